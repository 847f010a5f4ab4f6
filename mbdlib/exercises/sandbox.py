"""A confined kernel for grading: own folder, memory and CPU limits, no network, read-only elsewhere.

The grader runs each submission in a Jupyter kernel started through this module::

    python -m mbdlib.exercises.sandbox --workdir W --memory-mb M --cpu-seconds C [--isolate] -- CMD...

which, before it becomes ``CMD`` (the ipykernel launcher):

1. with ``--isolate``, re-runs itself inside new user, mount and network namespaces
   (``unshare --user --map-root-user --mount --net``): the kernel then has no network at all (only its own
   loopback), and every mount except ``/proc``, ``/sys`` and ``/dev`` is re-mounted **read-only**, with
   the work folder ``W`` bound read-write on top. The submission can read the course library but write
   only its own copy of the assignment folder: it cannot touch the instructor's files or another
   submission's. The kernel talks to the grader over Unix sockets in ``W`` (ZeroMQ "ipc" transport),
   which cross the network namespace;
2. sets resource limits inherited by the kernel: address space (``RLIMIT_AS``, memory), CPU seconds
   (``RLIMIT_CPU``: the kernel is killed when it has used them), largest file, open files;
3. sets ``HOME`` and ``TMPDIR`` to ``W`` and one BLAS thread, and sends the kernel's standard error to
   ``W/.kernel.log``.

:func:`isolation_available` says whether step 1 works on this machine (it needs unprivileged user
namespaces, or root); the grader reports it, and without it grades with limits only and says so.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SandboxConfig", "isolation_available", "kernel_argv"]

PROTECTED_SKIP = ("/proc", "/sys", "/dev")


@dataclass(frozen=True)
class SandboxConfig:
    """Limits of a grading kernel. ``isolate``: None = when available, True = required, False = never."""

    memory_mb: int = 2048
    cpu_seconds: int = 300
    isolate: bool | None = None


def isolation_available() -> tuple[bool, str]:
    """(True, "") if a kernel can run without network and with a read-only file system, else (False, why)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False, "the unshare command (util-linux) is not installed"
    probe = [unshare, "--user", "--map-root-user", "--mount", "--net", "--", "sh", "-c",
             "mount -o remount,bind,ro / 2>/dev/null || mount --bind / / ; true"]
    try:
        proc = subprocess.run(probe, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"unshare failed ({exc})"
    if proc.returncode != 0:
        return False, ("user namespaces are not available to this user (unshare: "
                       f"{proc.stderr.strip()[:160] or proc.returncode})")
    return True, ""


def kernel_argv(workdir: Path, config: SandboxConfig, isolate: bool) -> list[str]:
    """The kernel spec ``argv`` of a confined ipykernel (jupyter_client fills in ``{connection_file}``)."""
    argv = [sys.executable, "-m", "mbdlib.exercises.sandbox", "--workdir", str(workdir),
            "--memory-mb", str(int(config.memory_mb)), "--cpu-seconds", str(int(config.cpu_seconds))]
    if isolate:
        argv.append("--isolate")
    return [*argv, "--", sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]


def _protect_mounts(workdir: Path) -> list[str]:
    """Inside a mount namespace: every mount read-only but /proc, /sys, /dev; ``workdir`` read-write."""
    failed = []
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        for line in f:
            point = line.split()[4].replace("\\040", " ")
            if not point.startswith(PROTECTED_SKIP) and point not in points:
                points.append(point)
    for point in sorted(points, key=len):
        done = subprocess.run(["mount", "-o", "remount,bind,ro", point], capture_output=True, check=False)
        if done.returncode != 0:
            again = subprocess.run(["sh", "-c", f'mount --bind "{point}" "{point}" && '
                                                f'mount -o remount,bind,ro "{point}"'],
                                   capture_output=True, check=False)
            if again.returncode != 0:
                failed.append(point)
    w = str(workdir)
    subprocess.run(["mount", "--bind", w, w], check=True, capture_output=True)
    subprocess.run(["mount", "-o", "remount,bind,rw", w], check=True, capture_output=True)
    return failed


def _limit(kind: int, value: int) -> None:
    soft, hard = resource.getrlimit(kind)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(kind, (value, value))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("--cpu-seconds", type=int, default=300)
    parser.add_argument("--isolate", action="store_true")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    workdir = args.workdir.resolve()
    if args.isolate and not args.inside:
        me = [sys.executable, "-m", "mbdlib.exercises.sandbox", "--workdir", str(workdir), "--memory-mb",
              str(args.memory_mb), "--cpu-seconds", str(args.cpu_seconds), "--isolate", "--inside", "--",
              *command]
        os.execvp("unshare", ["unshare", "--user", "--map-root-user", "--mount", "--net", "--", *me])
    if args.inside:
        failed = _protect_mounts(workdir)
        if failed:  # a mount we could not make read-only: refuse rather than run unconfined
            print(f"sandbox: could not make read-only: {', '.join(failed)}", file=sys.stderr)
            return 70
    _limit(resource.RLIMIT_AS, args.memory_mb * 1024 * 1024)
    _limit(resource.RLIMIT_CPU, args.cpu_seconds)
    _limit(resource.RLIMIT_FSIZE, 256 * 1024 * 1024)
    _limit(resource.RLIMIT_NOFILE, 1024)
    tmp = workdir / ".tmp"
    tmp.mkdir(exist_ok=True)
    log = os.open(workdir / ".kernel.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 2)  # the kernel's own messages go to the work folder, not the grader's terminal
    os.chdir(workdir)
    env = {**os.environ, "HOME": str(workdir), "TMPDIR": str(tmp), "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "MPLCONFIGDIR": str(tmp), "MBDLIB_SANDBOX": "1"}
    os.execvpe(command[0], command, env)
    return 0  # pragma: no cover - exec does not return


if __name__ == "__main__":
    sys.exit(main())
