"""Load a script of ``tools/`` as a module, once per process (the tests of tools/ share it)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def tool(name: str):
    """``tools/<name>.py`` as the module ``name``: the same object for every test file of the process
    (dataclasses and the process pool of build_book look functions up by module name)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
