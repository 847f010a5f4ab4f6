"""Load a script of ``tools/`` as a module, once per process (the tests of tools/ share it)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def tool(name: str):
    """``tools/<name>.py`` imported as the module ``name``: the same object for every test file of the
    process, and importable by name in the worker processes build_book spawns (they get this sys.path)."""
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    return importlib.import_module(name)
