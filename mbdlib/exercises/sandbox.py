"""A confined kernel for grading: what a hostile submission can reach, and what this machine offers.

Each submission's kernel runs in a :class:`Jail` the grader prepares, through this module as the kernel's
command::

    python mbdlib/exercises/sandbox.py --workdir W [limits] [--isolate] [--uid U] [--cgroup DIR] -- CMD

**What a kernel may do**: read the Python installation, the course library and its own assignment files;
write its own home folder (a size-limited tmpfs: the **disk quota**), ``/tmp`` and ``/dev/shm`` (small
tmpfs too); talk to the grader over the ZeroMQ sockets it creates in ``W`` at start. Nothing else:

* **file system**: a new mount namespace built by bubblewrap (``bwrap``) holds only read-only binds of the
  system and Python directories, the ``mbdlib`` package folder, ``W``, and the tmpfs above; the secret,
  the roster, the submissions folder, the other kernels' folders, the grader's home do not exist in it;
* **no sockets**: a new network namespace (only its own loopback: no network, no abstract Unix socket of
  the host) and no path to any Unix socket but its own;
* **processes**: a new PID namespace (the kernel sees only its own processes: it cannot signal the grader
  or another kernel; when the kernel exits, every process it started dies with it), a new session, no
  capabilities, and (when the grader runs as root) a user id of its own, so that ``W`` is not its own:
  after the kernel is up the grader makes ``W`` read-only to it (:meth:`Jail.seal`);
* **resources** (cgroups, when the grader may create them: root on cgroup v1, or a delegated v2 tree):
  memory of all its processes together (tmpfs included), number of processes and threads (a fork bomb
  stops there), CPU share (one core); plus per-process limits (address space: the memory limit, or four
  times it as a backstop where the memory cgroup counts the real use; CPU seconds, file size, open files,
  no core dumps);
* **environment**: emptied; only ``PATH``, ``HOME``, ``LANG`` and the thread settings are set.

:func:`probe` says which of these mechanisms this machine offers (``bwrap`` is Debian's ``bubblewrap``;
``tools/ensure_bubblewrap.sh`` installs it as root); the grader prints it, grades with what there is, and
``--require-isolation`` refuses to grade when anything is missing, naming it.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = ["SandboxConfig", "Jail", "probe", "isolation_available", "MECHANISMS"]

#: What complete isolation needs; :func:`probe` maps each to "" (available) or why it is missing.
MECHANISMS = ("namespaces", "disk quota", "own user", "cgroup memory", "cgroup pids", "cgroup cpu")

PYTHON = os.path.abspath(sys.executable)  # (no "..": the folders it passes through are not in the sandbox)
#: This file, run as a script: the launcher imports nothing of mbdlib (importing the package costs seconds).
LAUNCHER = os.path.abspath(__file__)
HOME = "/home/student"   # the kernel's home and working folder inside the sandbox (a size-limited tmpfs)
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf", "passwd", "group",
       "fonts", "alternatives", "ssl", "mime.types", "os-release")


@dataclass(frozen=True)
class SandboxConfig:
    """Limits of a grading kernel. ``isolate``: None = as far as available, True = required, False = never.

    ``memory_mb``: all the kernel's processes together (cgroup), and each one's address space (four times
    ``memory_mb`` where the cgroup counts the memory);
    ``cpu_seconds``: CPU time of each process; ``max_processes``: processes and threads together;
    ``disk_mb``: the kernel's home folder (``/tmp`` and ``/dev/shm`` get a quarter each); ``cpus``: CPU
    share (1.0 = one core).
    """

    memory_mb: int = 2048
    cpu_seconds: int = 300
    isolate: bool | None = None
    max_processes: int = 128
    disk_mb: int = 256
    cpus: float = 1.0


# ---------------------------------------------------------------- what the machine offers
def _bwrap() -> str | None:
    return shutil.which("bwrap")


def _cgroup_dirs() -> dict[str, Path]:
    """Controller -> the grader's own cgroup folder for it (v1: one hierarchy per controller; v2: one)."""
    root = Path("/sys/fs/cgroup")
    own = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(","):
            if c in ("memory", "pids", "cpu"):
                mount = next((d for d in root.iterdir() if d.is_dir() and c in d.name.split(",")), None) \
                    if root.is_dir() else None
                if mount is not None:
                    own[c] = mount / path.lstrip("/")
        if controllers == "" and (root / "cgroup.controllers").exists():  # pure cgroup v2
            v2 = root / path.lstrip("/")
            try:
                enabled = (v2 / "cgroup.subtree_control").read_text().split()
            except OSError:
                enabled = []
            for c in ("memory", "pids", "cpu"):
                if c in enabled and c not in own:
                    own[c] = v2
    return own


def _try_cgroup(controller: str, base: Path) -> str:
    test = base / f"mbdlib-probe-{os.getpid()}-{random.randrange(1 << 30)}"
    try:
        test.mkdir()
    except OSError as exc:
        return f"cannot create a cgroup under {base} ({exc.strerror})"
    try:
        return ""
    finally:
        try:
            test.rmdir()
        except OSError:
            pass


@cache
def probe() -> dict[str, str]:
    """``{mechanism: ""}`` where available, else ``{mechanism: why it is missing}`` (:data:`MECHANISMS`)."""
    found = dict.fromkeys(MECHANISMS, "")
    bwrap = _bwrap()
    if bwrap is None:
        why = "bubblewrap is not installed (Debian: apt-get install bubblewrap)"
        found.update({"namespaces": why, "disk quota": why})
    else:
        cmd = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
               "--proc", "/proc", "--dev", "/dev", "--size", str(1 << 20), "--tmpfs", "/tmp", "true"]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)
            why = "" if run.returncode == 0 else \
                f"bwrap cannot create namespaces here: {run.stderr.strip()[:160]}"
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"bwrap failed ({exc})"
        found.update({"namespaces": why, "disk quota": why})
    if os.geteuid() != 0:
        found["own user"] = ("the grader is not root: each kernel runs as the grader's user, owns its work "
                             "folder and cannot be kept from writing there (run the grader as root)")
        if not found["disk quota"]:
            found["disk quota"] = "the work folder cannot be sealed without a user of the kernel's own"
    dirs = _cgroup_dirs()
    for c in ("memory", "pids", "cpu"):
        name = f"cgroup {c}"
        if c not in dirs:
            found[name] = f"no {c} cgroup controller is available to the grader"
        else:
            found[name] = _try_cgroup(c, dirs[c])
    return found


def isolation_available() -> tuple[bool, str]:
    """(True, "") if every mechanism of :data:`MECHANISMS` is available, else (False, what is missing)."""
    missing = {k: v for k, v in probe().items() if v}
    return (not missing, "; ".join(f"{k}: {v}" for k, v in missing.items()))


def describe(isolate: bool) -> str:
    """One line for the grader's log: what confines the kernels of this run."""
    found = probe()
    have = [k for k, v in found.items() if not v] if isolate else []
    lack = [k for k in MECHANISMS if k not in have]
    text = "kernels confined by " + (", ".join(have) if have else "per-process limits only")
    return text + (f"; NOT available: {', '.join(lack)}" if lack else "")


# ---------------------------------------------------------------- one kernel's jail (grader side)
class Jail:
    """The folder, user and cgroups of one grading kernel; :meth:`close` removes them and any process left.

    ``isolate``: use the namespaces (bubblewrap); the other mechanisms are used when :func:`probe` finds
    them.
    """

    def __init__(self, config: SandboxConfig, isolate: bool, assignment: Path | None = None):
        self.config, self.isolate = config, bool(isolate)
        with _JAILS_LOCK:
            _JAILS.add(self)
        found = probe()
        self.work = Path(tempfile.mkdtemp(prefix="mbdlib-grade-"))
        self.uid = None
        if self.isolate and not found["own user"] and not found["namespaces"]:
            self.uid = random.randrange(1 << 30, 1 << 31)  # a user of its own, unknown to the system
        os.chmod(self.work, 0o733 if self.uid is not None else 0o700)
        if assignment is not None:
            shutil.copytree(assignment, self.work / "assignment", ignore=shutil.ignore_patterns("*.ipynb"))
            for p in [self.work / "assignment", *(self.work / "assignment").rglob("*")]:
                os.chmod(p, 0o755 if p.is_dir() else 0o644)
        self.cgroups: list[Path] = []
        dirs = _cgroup_dirs()
        name = self.work.name
        for c in ("memory", "pids", "cpu"):
            if found[f"cgroup {c}"] or c not in dirs:
                continue
            d = dirs[c] / name
            try:
                d.mkdir(exist_ok=True)
                self._limit(c, d)
            except OSError:
                continue
            if d not in self.cgroups:
                self.cgroups.append(d)

    def _limit(self, controller: str, d: Path) -> None:
        cfg = self.config
        v2 = (d / "cgroup.controllers").exists()
        if controller == "memory":
            limit = str(int(cfg.memory_mb) * 1024 * 1024)
            if v2:
                (d / "memory.max").write_text(limit)
                if (d / "memory.swap.max").exists():
                    (d / "memory.swap.max").write_text("0")
            else:
                (d / "memory.limit_in_bytes").write_text(limit)
                if (d / "memory.memsw.limit_in_bytes").exists():
                    (d / "memory.memsw.limit_in_bytes").write_text(limit)
        elif controller == "pids":
            (d / "pids.max").write_text(str(int(cfg.max_processes)))
        elif controller == "cpu":
            period = 100_000
            quota = max(1000, int(cfg.cpus * period))
            if v2:
                (d / "cpu.max").write_text(f"{quota} {period}")
            else:
                (d / "cpu.cfs_period_us").write_text(str(period))
                (d / "cpu.cfs_quota_us").write_text(str(quota))

    @property
    def connection_file(self) -> Path:
        return self.work / "kernel.json"

    @property
    def ipc(self) -> Path:
        return self.work / "ipc"

    def kernel_argv(self, command: list[str]) -> list[str]:
        """The kernel spec ``argv``: this module confining ``command``."""
        cfg = self.config
        argv = [PYTHON, LAUNCHER, "--workdir", str(self.work),
                "--memory-mb", str(int(cfg.memory_mb)), "--cpu-seconds", str(int(cfg.cpu_seconds)),
                "--max-processes", str(int(cfg.max_processes)), "--disk-mb", str(int(cfg.disk_mb))]
        if self.isolate:
            argv.append("--isolate")
        if self.uid is not None:
            argv += ["--uid", str(self.uid)]
        for d in self.cgroups:
            argv += ["--cgroup", str(d)]
        return [*argv, "--", *command]

    def seal(self) -> None:
        """After the kernel has created its sockets: its work folder becomes read-only to it (own user)."""
        if self.uid is not None:
            os.chmod(self.work, 0o711)

    def processes(self) -> list[int]:
        """Host pids still in the kernel's cgroups."""
        pids = set()
        for d in self.cgroups:
            try:
                pids |= {int(x) for x in (d / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                pass
        return sorted(pids)

    def close(self) -> list[int]:
        """Kill what the kernel left running, remove its cgroups and folders; returns the pids killed."""
        killed = []
        for _ in range(50):
            left = self.processes()
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        for d in self.cgroups:
            for _ in range(40):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)
        for folder in (self.work, f"{self.work}-binds", f"{self.work}-spec"):
            shutil.rmtree(folder, ignore_errors=True)
        with _JAILS_LOCK:
            _JAILS.discard(self)
        return sorted(set(killed))


_JAILS: set[Jail] = set()
_JAILS_LOCK = threading.Lock()


def sweep(older_than: float = 3600.0, only: str = "") -> list[str]:
    """Remove what a grader killed outright (SIGKILL, a power cut) left: folders and empty cgroups of jails
    older than ``older_than`` seconds (a running jail is never that old without its kernel); ``only``: the
    jail of that name only. Returns what was removed."""
    removed = []
    now = time.time()
    pattern = f"{only}*" if only else "mbdlib-grade-*"
    for d in [*Path(tempfile.gettempdir()).glob(pattern),
              *(p for base in _cgroup_dirs().values() if base.is_dir() for p in base.glob(pattern))]:
        try:
            if now - d.stat().st_mtime < older_than:
                continue
            if str(d).startswith("/sys/"):
                if (d / "cgroup.procs").read_text().strip():
                    continue
                d.rmdir()
            else:
                shutil.rmtree(d)
            removed.append(str(d))
        except OSError:
            pass
    return removed


def close_all() -> None:
    """Close every open jail of this process (the grader's SIGTERM handler calls it before it exits)."""
    with _JAILS_LOCK:
        jails = list(_JAILS)
    for jail in jails:
        jail.close()


# ---------------------------------------------------------------- the launcher (kernel side)
def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _sentinel(grader: int, cgroups: list[Path], workdir: Path) -> None:
    """Fork a watcher that ends the kernel if the grader dies before it (a killed grader cannot close its
    jails): it polls whether this process (bwrap, once exec'd) still has the grader as its parent, and if
    not, kills it (its sandbox dies with it) and everything left in its cgroups. It leaves the cgroups
    first, and stays outside the namespaces, with the launcher's rights: the kernel cannot see or stop it."""
    launcher = os.getpid()
    if os.fork() != 0:
        return
    try:  # pragma: no cover - the watcher process
        os.setsid()
        for d in cgroups:
            try:
                with open(d.parent / "cgroup.procs", "w") as f:
                    f.write(str(os.getpid()))
            except OSError:
                pass
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.closerange(3, 65536)
        while True:
            time.sleep(0.5)
            parent = _parent_of(launcher)
            if parent is None or not workdir.exists():  # the kernel has ended, or the grader closed its jail
                break
            if parent != grader:  # the grader died first
                for pid in [launcher] + [int(x) for d in cgroups for x in
                                         _read(d / "cgroup.procs").split() if x.isdigit()]:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                break
    finally:
        os._exit(0)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _limit(kind: int, value: int) -> None:
    soft, hard = resource.getrlimit(kind)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(kind, (value, value))


def _python_paths() -> list[str]:
    """Folders the kernel's Python needs, read-only: installations, site-packages, the mbdlib package."""
    from importlib.util import find_spec

    package = os.path.dirname(os.path.abspath(find_spec("mbdlib").origin))  # (found, not imported)
    paths = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), os.path.abspath(sys.prefix),
             os.path.dirname(os.path.realpath(sys.executable)), package}
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and os.path.isdir(entry):
            paths.add(os.path.abspath(entry))
    out = []
    for p in sorted(paths, key=len):
        if os.path.isdir(p) and not any(p == q or p.startswith(q + os.sep) for q in out):
            out.append(p)
    return out


def _reachable(path: str) -> bool:
    """True if a user without any rights on the way can read ``path`` (every folder above it: o+x)."""
    p = os.path.abspath(path)
    try:
        if not os.stat(p).st_mode & 0o005:
            return False
        while p != "/":
            p = os.path.dirname(p)
            if not os.stat(p).st_mode & 0o001:
                return False
    except OSError:
        return False
    return True


def _stage(paths: list[str], stage: Path) -> dict[str, str]:
    """Make folders the kernel's user could not reach (Python under /root ...) reachable at ``stage/N``.

    In a mount namespace of this launcher's own (invisible to the host, gone with the kernel): each is
    bound read-only under ``stage``, a folder anyone can traverse. Needs root (the launcher still is).
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    ms_rdonly, ms_remount, ms_bind, ms_rec, ms_private = 1, 32, 4096, 16384, 1 << 18
    if libc.unshare(0x00020000) != 0 or libc.mount(None, b"/", None, ms_rec | ms_private, None) != 0:
        raise OSError(ctypes.get_errno(), "cannot make a mount namespace for the kernel's binds")
    out = {}
    for k, src in enumerate(paths):
        dest = stage / str(k)
        dest.mkdir(parents=True, exist_ok=True)
        os.chmod(dest, 0o755)
        if libc.mount(src.encode(), str(dest).encode(), None, ms_bind | ms_rec, None) != 0 or libc.mount(
                None, str(dest).encode(), None, ms_bind | ms_remount | ms_rdonly, None) != 0:
            raise OSError(ctypes.get_errno(), f"cannot bind {src} for the kernel")
        out[src] = str(dest)
    return out


def _bwrap_argv(args, python: list[str], sources: dict[str, str]) -> list[str]:
    """The bubblewrap command line: ``python``, the folders of :func:`_python_paths` (found before the
    launcher changed user); ``sources`` maps a folder to where to bind it from (:func:`_stage`)."""
    quarter = max(1, args.disk_mb // 4) * 1024 * 1024
    argv = [_bwrap() or "/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]

    def bind(path: str, rw: bool = False) -> None:
        argv.extend(["--bind" if rw else "--ro-bind", sources.get(path, path), path])

    for top in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            bind(top)
    for name in ETC:
        if os.path.exists(f"/etc/{name}"):
            bind(f"/etc/{name}")
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(quarter), "--tmpfs", "/tmp", "--size", str(quarter), "--tmpfs", "/dev/shm",
             "--size", str(args.disk_mb * 1024 * 1024), "--perms", "0755", "--tmpfs", HOME]
    for p in python:     # after the tmpfs: a Python (a venv, a clone) under /tmp stays visible
        bind(p)
    bind(str(args.workdir), rw=True)
    env = {"PATH": f"{os.path.dirname(PYTHON)}:/usr/local/bin:/usr/bin:/bin", "HOME": HOME,
           "TMPDIR": "/tmp", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2", "MPLCONFIGDIR": "/tmp/matplotlib",
           "MBDLIB_SANDBOX": "1", "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    for k, v in env.items():
        argv += ["--setenv", k, v]
    argv += ["--chdir", HOME, "--remount-ro", "/"]
    return argv


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("--cpu-seconds", type=int, default=300)
    parser.add_argument("--max-processes", type=int, default=128)
    parser.add_argument("--disk-mb", type=int, default=256)
    parser.add_argument("--isolate", action="store_true")
    parser.add_argument("--uid", type=int, default=None)
    parser.add_argument("--cgroup", action="append", default=[])
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    workdir = args.workdir.resolve()
    args.workdir = workdir
    if args.inside:  # inside the namespaces: the assignment's files into the home folder, then the kernel
        home = Path(HOME)
        src = workdir / "assignment"
        if src.is_dir():
            shutil.copytree(src, home, dirs_exist_ok=True)
        log = os.open(home / ".kernel.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(log, 1)  # the kernel's own messages stay in its folder (the protocol uses the sockets)
        os.dup2(log, 2)
        os.execvp(command[0], command)
    for d in args.cgroup:  # before anything else: every process of the kernel is counted
        with open(Path(d) / "cgroup.procs", "w") as f:
            f.write(str(os.getpid()))
    _sentinel(os.getppid(), [Path(d) for d in args.cgroup], workdir)
    # the address space counts reservations that are not memory (a thread's malloc arena reserves 64 MB):
    # where a memory cgroup bounds the real use, the per-process limit is only a backstop
    counted = any((Path(d) / f).exists() for d in args.cgroup
                  for f in ("memory.max", "memory.limit_in_bytes"))
    _limit(resource.RLIMIT_AS, (4 if counted else 1) * args.memory_mb * 1024 * 1024)
    _limit(resource.RLIMIT_CPU, args.cpu_seconds)
    _limit(resource.RLIMIT_FSIZE, args.disk_mb * 1024 * 1024)
    _limit(resource.RLIMIT_NOFILE, 1024)
    _limit(resource.RLIMIT_CORE, 0)
    if not args.isolate:  # limits only: the kernel runs in the work folder with the grader's rights
        tmp = workdir / ".tmp"
        tmp.mkdir(exist_ok=True)
        log = os.open(workdir / ".kernel.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.chdir(workdir)
        env = {**os.environ, "HOME": str(workdir), "TMPDIR": str(tmp), "OPENBLAS_NUM_THREADS": "1",
               "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2", "MPLCONFIGDIR": str(tmp),
               "MBDLIB_SANDBOX": "1"}
        os.execvpe(command[0], command, env)
    sources: dict[str, str] = {}
    python = _python_paths()
    if args.uid is not None:  # a user of its own: the connection file becomes its, the work folder not
        hidden = [p for p in python if not _reachable(p)]
        if hidden:
            sources = _stage(hidden, Path(f"{workdir}-binds"))
        connection = next((command[i + 1] for i, a in enumerate(command[:-1]) if a == "-f"), None)
        if connection:
            os.chown(connection, args.uid, args.uid)
        _limit(resource.RLIMIT_NPROC, args.max_processes)
        os.setgroups([])
        os.setgid(args.uid)
        os.setuid(args.uid)
    bwrap = _bwrap_argv(args, python, sources)
    inner = [PYTHON, LAUNCHER, "--workdir", str(workdir), "--inside", "--",
             *command]
    # bwrap itself gets no more of the grader's environment than the kernel (--clearenv) does
    os.execve(bwrap[0], [*bwrap, "--", *inner], {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    return 0  # pragma: no cover - exec does not return


if __name__ == "__main__":
    sys.exit(main())
