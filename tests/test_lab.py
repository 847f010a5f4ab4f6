"""`make lab` starts JupyterLab on the course's environment, headless, and serves the chapters with the widget
extension that makes the live sliders redraw."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=10) as r:  # noqa: S310 - loopback only
        return r.status, r.read()


@pytest.mark.slow
def test_make_lab_serves_a_chapter_headless(tmp_path):
    if shutil.which("make") is None:
        pytest.fail("make is not installed")
    port, token = _free_port(), "course-test-token"
    args = (f"--no-browser --ip=127.0.0.1 --port={port} --ServerApp.token={token} "
            f"--ServerApp.port_retries=0 --ServerApp.open_browser=False")
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path), "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg")}
    log = open(tmp_path / "lab.log", "w+")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(["make", "-s", "lab", f"LAB_ARGS={args}"], cwd=REPO, env=env, stdout=log,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline, status = time.time() + 120, None
        while time.time() < deadline:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"make lab exited with {proc.returncode}:\n{log.read()[-3000:]}")
            try:
                status, _ = _get(f"{base}/api/status?token={token}")
                break
            except OSError:
                time.sleep(0.5)
        assert status == 200, "JupyterLab did not answer within 120 s"
        status, page = _get(f"{base}/lab/tree/book/chapters/ch01_kinematics.ipynb?token={token}")
        assert status == 200 and b"JupyterLab" in page
        status, body = _get(f"{base}/api/contents/book/chapters/ch01_kinematics.ipynb?token={token}")
        nb = json.loads(body)
        assert status == 200 and nb["type"] == "notebook" and nb["content"]["cells"]
        # the widget manager's lab extension is installed: sliders in the live notebook redraw their figure
        plugin = "@jupyter-widgets/jupyterlab-manager:plugin"
        status, body = _get(f"{base}/lab/api/settings/{plugin}?token={token}")
        assert status == 200 and json.loads(body)["id"] == plugin
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
