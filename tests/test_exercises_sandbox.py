"""A hostile submission is contained, whatever it tries (issue 24).

Each test runs notebook cells in a grading kernel exactly as the grader does (:class:`Jail`, the grader's
kernel manager, the work folder sealed once the kernel is up) and shows that an attack fails: reading the
secret, the roster, another student's files or the grader's environment; writing outside its own folder
or beyond its quota; reaching any socket; leaving a process behind; a fork bomb; exhausting memory over
several processes; signalling or starving others; flooding the grader with output or with a formula that
takes forever to compare. Where this machine lacks the mechanism a test needs, the test shows instead that
``--require-isolation`` refuses to grade and names what is missing.

The attacks are written to do no harm when the confinement fails (a bounded number of sleeping processes,
a few hundred MB), so that a broken sandbox fails these tests instead of the machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
import sympy as sp
from nbformat.v4 import new_code_cell, new_notebook

from mbdlib.exercises import get, sandbox
from mbdlib.exercises import grade as grading
from mbdlib.exercises.__main__ import main
from mbdlib.exercises.answers import serialize
from mbdlib.exercises.grade import _manager, execute, grade
from mbdlib.exercises.judging import judge_all
from mbdlib.exercises.sandbox import MECHANISMS, Jail, SandboxConfig

pytestmark = pytest.mark.slow


def available(*mechanisms: str) -> bool:
    """True if this machine offers ``mechanisms``; otherwise assert that a run that requires isolation is
    refused with a message naming each missing one (and return False: the attack is not run)."""
    missing = [m for m in mechanisms if sandbox.probe()[m]]
    if not missing:
        return True
    with pytest.raises(RuntimeError) as refused:
        grade([], "unused.csv", chapter=1, sandbox=SandboxConfig(isolate=True), log=lambda *a: None)
    for m in missing:
        assert m in str(refused.value) and sandbox.probe()[m] in str(refused.value)
    return False


def run_confined(cells: list[str], config: SandboxConfig | None = None, timeout: float = 90) -> dict:
    """Run ``cells`` in a grading kernel; returns the text output, status, the jail's cgroup statistics
    (read before it is closed) and the pids its closing had to kill."""
    config = config or SandboxConfig(memory_mb=1024, max_processes=64, disk_mb=64)
    nb = new_notebook(cells=[new_code_cell(c) for c in cells])
    jail = Jail(config, isolate=True)
    stats = {}
    try:
        status, detail = execute(nb, jail.work, timeout, km=_manager(jail), always_last=True,
                                 on_ready=jail.seal)
        for d in jail.cgroups:
            for name in ("cpu.stat", "cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.max",
                         "memory.max_usage_in_bytes", "memory.peak", "pids.max"):
                if (d / name).exists():
                    stats[name] = (d / name).read_text()
        work = sorted(p.name for p in jail.work.iterdir())
    finally:
        killed = jail.close()
    text = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text.append(out.get("text", "") or out.get("data", {}).get("text/plain", "")
                        or f"{out.get('ename', '')}: {out.get('evalue', '')}")
    return {"text": "\n".join(text), "status": status, "detail": detail, "stats": stats, "killed": killed,
            "work": work, "folder": jail.work.name}


def lines(result: dict) -> dict[str, str]:
    """``name: value`` lines the attack printed, as a dict."""
    return dict(re.findall(r"^(\w[\w-]*): (.*)$", result["text"], re.M))


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        h.update(str(p).encode() + (p.read_bytes() if p.is_file() else b""))
    return h.hexdigest()


def test_this_machine_says_what_it_offers():
    found = sandbox.probe()
    assert set(found) == set(MECHANISMS)
    ok, why = sandbox.isolation_available()
    assert ok == (not any(found.values())) and all(m in why for m, v in found.items() if v)


def test_require_isolation_refuses_and_names_what_is_missing(monkeypatch, tmp_path, capsys):
    """(Independent of this machine: two mechanisms made to look missing.)"""
    fake = {m: "" for m in MECHANISMS}
    fake.update({"cgroup pids": "no pids cgroup controller is available to the grader",
                 "disk quota": "bubblewrap is not installed (Debian: apt-get install bubblewrap)"})
    monkeypatch.setattr(sandbox, "probe", lambda: fake)
    with pytest.raises(RuntimeError, match="cgroup pids: no pids cgroup.*|disk quota: bubblewrap"):
        grade([], tmp_path / "g.csv", chapter=1, sandbox=SandboxConfig(isolate=True), log=lambda *a: None)
    code = main(["grade", str(tmp_path), "--chapter", "1", "--out", str(tmp_path / "g.csv"),
                 "--require-isolation"])
    err = capsys.readouterr().err
    assert code == 2 and "cgroup pids" in err and "apt-get install bubblewrap" in err
    assert not (tmp_path / "g.csv").exists()


def test_nothing_of_the_instructor_or_other_students_is_visible(tmp_path, monkeypatch):
    if not available("namespaces"):
        return
    instructor = tmp_path / "course"
    (instructor / "submissions").mkdir(parents=True)
    token = secrets.token_hex(16)
    (instructor / "course.secret").write_text(token)
    (instructor / "roster.csv").write_text(f"student_id,name,file\ns1,{token},ann.ipynb\n")
    (instructor / "submissions" / "bo.ipynb").write_text(token)
    for p in [instructor, *instructor.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)  # readable by anyone on the host: only the sandbox hides it
    neighbour = Jail(SandboxConfig(), isolate=True)  # another kernel's folder, with its connection key
    (neighbour.work / "kernel.json").write_text(json.dumps({"key": token}))
    monkeypatch.setenv("MBDLIB_GRADER_TOKEN", token)
    paths = [instructor / "course.secret", instructor / "roster.csv", instructor / "submissions" / "bo.ipynb",
             neighbour.work / "kernel.json", Path.home() / ".bash_history", Path("/etc/shadow")]
    try:
        result = run_confined([
            "import os, glob\n"
            f"for i, p in enumerate({[str(p) for p in paths]!r}):\n"
            "    try:\n        print(f'read{i}: ' + open(p).read()[:200])\n"
            "    except OSError as e:\n        print(f'read{i}: blocked {type(e).__name__}')\n"
            "print('env: ' + ' '.join(f'{k}={v}' for k, v in os.environ.items()))\n"
            "seen = []\n"
            "for f in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline'):\n"
            "    try:\n        seen.append(open(f, 'rb').read().decode(errors='replace'))\n"
            "    except OSError:\n        pass\n"
            "print('proc: ' + ' '.join(seen).replace(chr(0), ' '))\n"
            "print('pids: ' + ' '.join(sorted(p for p in os.listdir('/proc') if p.isdigit())))\n"
            "print('tmp: ' + ' '.join(os.listdir('/tmp')))\n"])
    finally:
        neighbour.close()
    got = lines(result)
    assert token not in result["text"], result["text"]
    for i in range(len(paths)):
        assert got[f"read{i}"].startswith("blocked"), (paths[i], got[f"read{i}"])
    assert "MBDLIB_GRADER_TOKEN" not in got["env"]
    # in /tmp, only (the mount point of) its own work folder, and of the read-only Python folders when the
    # course's environment itself lives under /tmp (a clone there: /tmp/clone/.venv, /tmp/clone/mbdlib)
    python_mounts = {Path(p).relative_to("/tmp").parts[0] for p in sandbox._python_paths()
                     if p.startswith("/tmp/")}
    assert set(got["tmp"].split()) == {result["folder"], *python_mounts}
    assert len(got["pids"].split()) <= 4  # only its own processes (the namespace's init, the kernel)


def test_writes_stay_in_its_own_folder_within_its_quota(tmp_path):
    if not available("namespaces", "disk quota", "own user"):
        return
    instructor = tmp_path / "course"
    instructor.mkdir()
    (instructor / "grades.csv").write_text("keep me\n")
    instructor.chmod(0o777)  # even a folder anyone may write to on the host
    before = digest(instructor)
    import mbdlib

    targets = [instructor / "grades.csv", instructor / "new.txt", Path(mbdlib.__file__).parent / "x.py",
               Path("/usr/x"), Path("/etc/x")]
    result = run_confined([
        "import os\n"
        f"for i, p in enumerate({[str(p) for p in targets]!r}):\n"
        "    try:\n        open(p, 'a').write('x')\n        print(f'write{i}: done')\n"
        "    except OSError as e:\n        print(f'write{i}: blocked {type(e).__name__}')\n"
        "import json, glob\n"
        "work = os.path.dirname(glob.glob('/tmp/mbdlib-grade-*/kernel.json')[0]) if glob.glob("
        "'/tmp/mbdlib-grade-*/kernel.json') else None\n"
        "for name in ('work', 'ipc-junk'):\n"
        "    try:\n        open(os.path.join(str(work), name), 'w').write('x' * 1000)\n"
        "        print(f'{name}: done')\n"
        "    except OSError as e:\n        print(f'{name}: blocked {type(e).__name__}')\n"
        "def fill(folder):\n"
        "    n = 0\n"
        "    try:\n"
        "        with open(os.path.join(folder, 'fill'), 'wb') as f:\n"
        "            for _ in range(1000):\n                f.write(b'x' * 2**20)\n                n += 1\n"
        "                f.flush()\n"
        "    except OSError as e:\n        return f'{n} MB then {type(e).__name__} {e.errno}'\n"
        "    return f'{n} MB'\n"
        "for name, folder in (('home', os.path.expanduser('~')), ('tmp', '/tmp'), ('shm', '/dev/shm')):\n"
        "    print(f'{name}: ' + fill(folder))\n"
        "    os.remove(os.path.join(folder, 'fill'))\n"],
        SandboxConfig(memory_mb=1024, max_processes=64, disk_mb=64))
    got = lines(result)
    for i, p in enumerate(targets):
        assert got[f"write{i}"].startswith("blocked"), (p, got[f"write{i}"])
    assert got["work"].startswith("blocked") and got["ipc-junk"].startswith("blocked")  # sealed
    home_mb = int(got["home"].split()[0])
    assert 56 <= home_mb <= 64 and "OSError 28" in got["home"]  # ENOSPC at the 64 MB quota
    assert int(got["tmp"].split()[0]) <= 16 and int(got["shm"].split()[0]) <= 16
    assert digest(instructor) == before
    assert set(result["work"]) <= {"kernel.json"} | {f"ipc-{k}" for k in range(1, 10)}


def test_no_socket_of_any_kind_is_reachable(tmp_path):
    if not available("namespaces"):
        return
    path_socket = tmp_path / "grader.sock"
    abstract = f"\0mbdlib-test-{secrets.token_hex(4)}"
    listeners = []
    for family, address in ((socket.AF_UNIX, str(path_socket)), (socket.AF_UNIX, abstract),
                            (socket.AF_INET, ("127.0.0.1", 0))):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.bind(address)
        s.listen()
        s.settimeout(0.2)
        listeners.append(s)
    os.chmod(path_socket, 0o777)
    tcp_port = listeners[2].getsockname()[1]
    accepted = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            for s in listeners:
                try:
                    accepted.append(s.accept())
                except (TimeoutError, OSError):
                    pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        result = run_confined([
            "import socket\n"
            f"targets = [('path', socket.AF_UNIX, {str(path_socket)!r}), ('abstract', socket.AF_UNIX, "
            f"{abstract!r}), ('loopback', socket.AF_INET, ('127.0.0.1', {tcp_port})), "
            "('internet', socket.AF_INET, ('192.0.2.1', 80)), ('dns', socket.AF_INET, ('8.8.8.8', 53))]\n"
            "for name, family, address in targets:\n"
            "    s = socket.socket(family, socket.SOCK_STREAM)\n    s.settimeout(3)\n"
            "    try:\n        s.connect(address)\n        print(f'{name}: connected')\n"
            "    except OSError as e:\n        print(f'{name}: blocked {type(e).__name__} {e}')\n"])
    finally:
        stop.set()
        thread.join(5)
        for s in listeners:
            s.close()
    got = lines(result)
    assert set(got) >= {"path", "abstract", "loopback", "internet", "dns"}, result["text"]
    assert all(v.startswith("blocked") for k, v in got.items()), got
    assert not accepted


def test_no_process_outlives_its_kernel():
    if not available("namespaces"):
        return
    marker = f"mbdlib-orphan-{secrets.token_hex(6)}"
    result = run_confined([
        "import os, subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {marker!r}],\n"
        "                 start_new_session=True)\n"
        "if os.fork() == 0:  # a daemon: double fork, new session, the parent gone\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.execv(sys.executable,\n"
        f"                 [sys.executable, '-c', 'import time; time.sleep(600)', {marker!r}])\n"
        "    os._exit(0)\n"
        "def cmdline(p):\n"
        "    try:\n"
        "        return open(f'/proc/{p}/cmdline').read()\n"
        "    except OSError:  # the process ended meanwhile\n"
        "        return ''\n"
        "def started():\n"
        f"    return sum({marker!r} in cmdline(p) for p in os.listdir('/proc') if p.isdigit())\n"
        "deadline = time.monotonic() + 30  # a loaded machine may take seconds to start them\n"
        "while started() < 2 and time.monotonic() < deadline:\n"
        "    time.sleep(0.1)\n"
        "print('started: ' + str(started()))\n"])
    assert lines(result)["started"] == "2"
    time.sleep(1)
    alive = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                alive.append(pid)
        except OSError:
            pass
    assert not alive, f"processes left behind: {alive}"


def test_no_kernel_outlives_a_grader_killed_outright(tmp_path):
    """SIGKILL cannot be caught: the kernel's watcher (outside its namespaces) ends it when the grader is
    gone. SIGTERM is caught: the grader ends its kernels and removes their folders before it exits."""
    if not available("namespaces"):
        return
    subs = tmp_path / "subs"
    subs.mkdir()
    marker = f"mbdlib-loop-{secrets.token_hex(4)}"
    nb = new_notebook(cells=[new_code_cell(f"import time  # {marker}\nwhile True:\n    time.sleep(1)")])
    nbformat.write(nb, subs / "loop.ipynb")

    def kernels(of: int | None = None) -> list[str]:
        """Connection files of the running grading kernels (of the grader ``of``: its descendants)."""
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                line = Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
            except OSError:
                continue
            if "ipykernel_launcher" in line and "mbdlib-grade-" in line:
                ancestors, p = [], int(pid)
                while p > 1 and len(ancestors) < 8:
                    p = sandbox._parent_of(p) or 1
                    ancestors.append(p)
                if of is None or of in ancestors:
                    found.append(line.split("\0")[-2])  # the connection file: whose kernel it is
        return found

    for signal_name, how in (("SIGKILL", 9), ("SIGTERM", 15)):
        grader = subprocess.Popen([sys.executable, "-m", "mbdlib.exercises", "grade", str(subs), "--chapter",
                                   "1", "--out", str(tmp_path / "g.csv"), "--timeout", "300"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(240):
            mine = set(kernels(of=grader.pid))  # (other tests' kernels may run beside it)
            if mine:
                break
            time.sleep(0.5)
        assert mine, "the kernel did not start"
        folder = Path(next(iter(mine))).parent
        time.sleep(2)
        grader.send_signal(how)
        grader.wait(30)
        for _ in range(20):
            if not set(kernels()) & mine:
                break
            time.sleep(0.5)
        assert not set(kernels()) & mine, f"a kernel outlived its grader ({signal_name})"
        if how == 15:
            assert not folder.exists() and "rerun with --resume" in grader.stderr.read()
        else:
            sandbox.sweep(older_than=0, only=folder.name)  # (a killed grader leaves folders, cgroups)
            assert not folder.exists()


def test_a_fork_bomb_stops_at_the_process_limit():
    if not available("namespaces", "cgroup pids"):
        return
    result = run_confined([
        "import os, signal, time\n"
        "children = []\n"
        "for _ in range(300):\n"
        "    try:\n        pid = os.fork()\n"
        "    except OSError as e:\n        print('stopped: ' + e.strerror)\n"
        "        break\n"
        "    if pid == 0:\n        time.sleep(60)\n        os._exit(0)\n"
        "    children.append(pid)\n"
        "print(f'forked: {len(children)}')\n"
        "for pid in children:\n    os.kill(pid, signal.SIGKILL)\n    os.waitpid(pid, 0)\n"],
        SandboxConfig(memory_mb=1024, max_processes=48, disk_mb=64))
    got = lines(result)
    assert "stopped" in got, result["text"]
    assert 5 <= int(got["forked"]) < 48  # the kernel's own threads count too


def test_memory_over_several_processes_is_bounded():
    if not available("namespaces", "cgroup memory"):
        return
    result = run_confined([
        "import subprocess, sys\n"
        "eat = 'b = bytearray(350 * 2**20); import time; time.sleep(8)'\n"
        "procs = [subprocess.Popen([sys.executable, '-c', eat]) for _ in range(4)]\n"
        "print('codes: ' + ' '.join(str(p.wait()) for p in procs))\n"],
        SandboxConfig(memory_mb=800, max_processes=64, disk_mb=64))
    # each process is allowed 800 MB of address space, but together they get 800 MB: some are killed
    if result["status"] == "ok":
        codes = [int(c) for c in lines(result)["codes"].split()]
        assert any(c == -9 for c in codes), codes
    else:
        assert "died" in result["detail"]  # (or the kernel itself was the process the limit chose)


def test_it_cannot_signal_anyone_else_or_take_more_than_one_core():
    if not available("namespaces", "cgroup cpu"):
        return
    grader = os.getpid()
    result = run_confined([
        "import os, signal, time, multiprocessing as mp\n"
        "try:\n"
        f"    os.kill({grader}, 0)\n    print('grader: reachable')\n"
        "except OSError as e:\n    print(f'grader: blocked {type(e).__name__}')\n"
        "def spin(t):\n    end = time.time() + t\n    while time.time() < end:\n        pass\n"
        "start, before = time.time(), os.times()\n"
        "ps = [mp.Process(target=spin, args=(3,)) for _ in range(4)]\n"
        "[p.start() for p in ps]; [p.join() for p in ps]\n"
        "after, wall = os.times(), time.time() - start\n"
        "cpu = after.children_user + after.children_system\n"
        "cpu -= before.children_user + before.children_system\n"
        "print(f'cores: {cpu / wall:.2f}')\n"])
    got = lines(result)
    assert got["grader"].startswith("blocked ProcessLookupError")  # not even visible
    assert float(got["cores"]) <= 1.3, got["cores"]
    stats = result["stats"]
    quota = stats.get("cpu.max", "").split()[:1] or [stats["cpu.cfs_quota_us"].strip()]
    period = stats.get("cpu.max", "").split()[1:] or [stats["cpu.cfs_period_us"].strip()]
    assert int(quota[0]) == int(period[0])  # one core's worth per period
    periods = int(re.search(r"nr_periods (\d+)", stats["cpu.stat"]).group(1))
    assert periods > 0  # the spinning processes ran under the quota
    # (Whether the kernel had to throttle them, nr_throttled > 0, depends on the rest of the machine: with
    # the other test worker busy on the second core, the load alone holds them to one core, and a
    # fresh-clone `make test` saw at least 0.9 cores with no throttled period. The bound above holds
    # either way.)


def test_a_flood_of_output_is_cut_off(monkeypatch):
    if not available("namespaces"):
        return
    monkeypatch.setattr(grading, "MAX_OUTPUT_MB", 2)
    start = time.monotonic()
    result = run_confined(["import sys\nfor _ in range(100):\n    sys.stdout.write('x' * 2**20)\n"
                           "    sys.stdout.flush()\n", "print('after')"])
    assert result["status"] == "error" and "printed more than 2 MB" in result["detail"]
    assert "after" not in result["text"] and time.monotonic() - start < 60


def test_judging_a_record_takes_bounded_time():
    """A formula equal to the key at every test point but ruinous to simplify: the grader gives up on it
    after its time limit (an error verdict that says why), and still judges the other exercises."""
    ex = get("1.9")
    key = ex.key()
    x, y = sorted(key.free_symbols, key=str)[:2]
    zero = sp.expand((sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1) * (1 + x + y) ** 12)
    ruinous = {"schema": 2, "exercise": "1.9", "answer": serialize(key + sp.Matrix([zero, zero, 0]))}
    fine = {"schema": 2, "exercise": "1.1", "answer": serialize(get("1.1").key())}
    start = time.monotonic()
    got = judge_all([("1.9", ruinous, [()], dict(ex.params)), ("1.1", fine, [()], dict(get("1.1").params))],
                    seconds=3)
    assert got["1.9"].verdict == "error" and "gave up comparing this answer after 3 s" in got["1.9"].hint
    assert got["1.1"].verdict == "correct"
    assert time.monotonic() - start < 60


def test_a_batch_with_hostile_notebooks_grades_its_neighbours_right(tmp_path):
    """End to end: a fork bomb, a memory eater over several processes, an orphan maker and a flood graded
    beside an honest notebook on two workers; the honest one is graded right, the others get rows."""
    if not available(*MECHANISMS):
        return
    solution = nbformat.read(Path(__file__).resolve().parents[1] / "solutions" / "ch01_kinematics.ipynb",
                             as_version=4)
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(solution, subs / "honest.ipynb")
    attacks = {
        "bomb": "import os, time\nfor _ in range(200):\n    try:\n        pid = os.fork()\n"
                "    except OSError:\n        break\n"
                "    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n",
        "eater": "import subprocess, sys\nps = [subprocess.Popen([sys.executable, '-c', 'b = bytearray(500 * "
                 "2**20); import time; time.sleep(20)']) for _ in range(4)]\n[p.wait() for p in ps]\n",
        "flood": "import sys\nfor _ in range(200):\n    sys.stdout.write('x' * 2**20)\n",
    }
    for name, code in attacks.items():
        nb = nbformat.from_dict(json.loads(json.dumps(solution)))
        nb.cells.insert(2, new_code_cell(code))
        nb.metadata["mbdlib"]["chapter"] = 3  # and it claims another chapter
        nbformat.write(nb, subs / f"{name}.ipynb")
    out = tmp_path / "grades.csv"
    run = grade([subs], out, chapter=1, timeout=120, workers=2, log=lambda *a: None,
                sandbox=SandboxConfig(memory_mb=1500, max_processes=64, isolate=True))
    rows = list(__import__("csv").DictReader(out.open(encoding="utf-8")))
    honest = {r["exercise"]: r["verdict"] for r in rows if r["student"] == "honest"}
    assert set(honest.values()) == {"correct"}, [(r["exercise"], r["verdict"], r["hint"]) for r in rows
                                                 if r["student"] == "honest"][:2]
    assert {r["student"] for r in rows} == {"honest", *attacks}
    assert sorted(p.student for p in run.problems if p.kind == "chapter-mismatch") == sorted(attacks)
    assert run.exit_status == 1
