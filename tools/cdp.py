"""A headless Chromium driven by the DevTools protocol over a pipe (``--remote-debugging-pipe``).

No web socket and no third-party client: Chromium reads commands from file descriptor 3 and writes
replies and events to descriptor 4, one JSON message each, ended by a NUL byte. :mod:`tools.check_book`
loads a page once with it, lets the page's scripts run on virtual time (what ``--virtual-time-budget``
does), reads the DOM, the console and the requests, then takes the screenshot from the same page.

Protocol reference: https://chromedevtools.github.io/devtools-protocol/ (domains Target, Page, Runtime,
Network, Log, Emulation).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:", "chrome:", "chrome-error:", "devtools:")


class CdpError(RuntimeError):
    """Chromium answered a command with an error, stopped, or did not answer in time."""


@dataclass
class PageLoad:
    """What one page did while it loaded and ran its scripts."""
    dom: str = ""
    console: list[str] = field(default_factory=list)    # uncaught errors, console.error, failed loads
    requests: list[str] = field(default_factory=list)   # non-local URLs the page asked for


@dataclass
class Tab:
    """A page target and the session attached to it."""
    target: str
    session: str


class Browser:
    """One headless Chromium; :meth:`load` a page, :meth:`screenshot` it, :meth:`close` (or ``with``)."""

    def __init__(self, chromium: str, flags: list[str], profile: Path, log: Path):
        low_r, self._to_child = os.pipe()
        self._from_child, low_w = os.pipe()
        # copies numbered 10 or more: never 3 or 4 themselves, so the redirections below cannot clash
        to_child_r, from_child_w = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (low_r, low_w))
        os.close(low_r)
        os.close(low_w)

        # The pipe ends become the child's descriptors 3 and 4 through bash's redirections (no
        # preexec_fn, which is unsafe with threads).
        fds = f"3<&{to_child_r} 4>&{from_child_w} {to_child_r}<&- {from_child_w}>&-"
        self._log_path = log
        self._log = open(log, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" {fds}', chromium, *flags, "--remote-debugging-pipe",
             f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            pass_fds=(to_child_r, from_child_w))
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer, self._events, self._next_id = b"", [], 0

    # ---------------------------------------------------------------- the wire
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            poller = select.poll()
            poller.register(self._from_child, select.POLLIN)
            if left <= 0 or not poller.poll(left * 1000):
                raise CdpError("Chromium did not answer in time")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise CdpError(self._stopped())
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def _stopped(self) -> str:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self._log.flush()
        tail = self._log_path.read_text(errors="replace").strip()[-300:]
        return f"Chromium stopped (exit {code}); the end of its log: {tail or '(empty)'}"

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 60.0) -> dict:
        """Send one command and wait for its reply (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._to_child, data):]
        except BrokenPipeError:
            raise CdpError(self._stopped()) from None
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CdpError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self._events.append(reply)

    def wait_for(self, event: str, timeout: float) -> dict:
        """The next event called ``event`` (earlier events are kept)."""
        for k, message in enumerate(self._events):
            if message.get("method") == event:
                return self._events.pop(k)
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_message(deadline)
            if message.get("method") == event:
                return message
            self._events.append(message)

    # ---------------------------------------------------------------- pages
    def load(self, url: str, budget_ms: int = 10000, width: int = 1280, height: int = 1000,
             timeout: float = 90.0) -> tuple[Tab, PageLoad]:
        """Open ``url`` in a new tab ``width`` x ``height`` and let it run for ``budget_ms`` of virtual time
        (timers fast-forward, network fetches pause it). Returns the tab and what the page did."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(target, session)
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        self.send("Emulation.setVirtualTimePolicy", {"policy": "pause"}, session)
        self.send("Page.navigate", {"url": url}, session)
        self.send("Emulation.setVirtualTimePolicy",
                  {"policy": "pauseIfNetworkFetchesPending", "budget": budget_ms}, session)
        self.wait_for("Emulation.virtualTimeBudgetExpired", timeout)
        result = PageLoad()
        result.dom = self.evaluate(tab, "document.documentElement.outerHTML")
        for message in self._events:
            if message.get("sessionId") == session:
                _record(message, result)
        self._events = [m for m in self._events if m.get("sessionId") != session]
        return tab, result

    def evaluate(self, tab: Tab | str, expression: str):
        """The value of a JavaScript expression in the tab (JSON-like values only)."""
        session = tab.session if isinstance(tab, Tab) else tab
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
        if "exceptionDetails" in reply:
            raise CdpError(f"{expression[:60]}: {reply['exceptionDetails'].get('text')}")
        return reply["result"].get("value")

    def screenshot(self, tab: Tab, png: Path, width: int, height: int, timeout: float = 120.0) -> None:
        """The tab, ``width`` x ``height`` pixels from its top, into ``png`` (the window is resized)."""
        session = tab.session
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False},
                         session, timeout=timeout)
        png.write_bytes(base64.b64decode(shot["data"]))

    def close_tab(self, tab: Tab) -> None:
        """Close the tab and forget its events."""
        self.send("Target.closeTarget", {"targetId": tab.target})
        self._events = [m for m in self._events if m.get("sessionId") != tab.session]

    def close(self) -> None:
        """Stop Chromium (politely, then by force); calling it again does nothing."""
        if self._log.closed:
            return
        try:
            self.send("Browser.close", timeout=10)
        except (CdpError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _record(message: dict, result: PageLoad) -> None:
    """Keep what matters of one event of the page: its errors and its requests."""
    method, params = message.get("method"), message.get("params", {})
    if method == "Runtime.exceptionThrown":
        details = params["exceptionDetails"]
        text = (details.get("exception") or {}).get("description") or details.get("text", "")
        result.console.append(f"Uncaught {text.splitlines()[0] if text else ''} "
                              f"(source: {details.get('url', '')[-80:]})")
    elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
        text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
        result.console.append(f"console.error: {text[:200]}")
    elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
        entry = params["entry"]
        result.console.append(f"{entry.get('text', '')[:200]} (source: {entry.get('url', '')[-80:]})")
    elif method == "Network.requestWillBeSent":
        url = params["request"]["url"]
        if not url.startswith(LOCAL_SCHEMES):
            result.requests.append(url)
