#!/usr/bin/env bash
# Make sure Debian's Chromium is available for the built-book browser check (tools/check_book.py).
# If it is missing and we are root, install it with apt-get; if that is impossible, say so and exit 0:
# tests/test_book.py then skips the browser check with the same reason.
set -uo pipefail

for name in chromium chromium-browser google-chrome; do
  if command -v "$name" >/dev/null 2>&1; then
    exit 0
  fi
done

if [[ $(id -u) -ne 0 ]]; then
  echo "ensure_chromium.sh: chromium is not installed and we are not root; install it with" \
       "'sudo apt-get install chromium' to run the built-book browser check (it will be skipped)." >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure_chromium.sh: chromium is not installed and this system has no apt-get;" \
       "install Chromium by hand to run the built-book browser check (it will be skipped)." >&2
  exit 0
fi

echo "ensure_chromium.sh: installing chromium (Debian package) ..." >&2
if DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
   && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; then
  command -v chromium >/dev/null 2>&1 && exit 0
fi
echo "ensure_chromium.sh: could not install chromium with apt-get;" \
     "the built-book browser check will be skipped." >&2
exit 0
