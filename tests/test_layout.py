"""The library's layout: imports point down the modelling chain that ``mbdlib/__init__``'s docstring states.

Every relative import of every module is read from its source (``ast``: also the imports inside
functions), resolved to a module name, and compared with the order of the docstring: a module may import
only modules listed before it.  The docstring must list every module, and nothing else.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mbdlib

PACKAGE = Path(mbdlib.__file__).parent
CHAIN_BLOCK = re.compile(r"also those inside functions\)::\n\n(.*?)\n\n", re.S)


def chain_order() -> list[str]:
    """The module order of the docstring (``a -> b -> c`` over several lines)."""
    block = CHAIN_BLOCK.search(mbdlib.__doc__)
    assert block, "mbdlib/__init__'s docstring lost its module chain"
    return [name.strip() for name in block.group(1).replace("\n", " ").split("->") if name.strip()]


def library_modules() -> dict[str, Path]:
    """``{dotted name inside mbdlib: path}`` of every module except the package itself and the exercises."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] == "exercises" or parts == ("__init__",):
            continue
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def relative_imports(name: str, path: Path) -> set[str]:
    """The mbdlib modules that ``name`` imports (``from .x import y``, ``from . import x``, ``from ..x``)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    known = set(library_modules())
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.ImportFrom) and node.level):
            continue
        base = package[: len(package) - (node.level - 1)]
        if node.module:
            found.add(".".join([*base, *node.module.split(".")]))
        else:                                  # from . import x: x may be a module
            found.update(".".join([*base, a.name]) for a in node.names
                         if ".".join([*base, a.name]) in known)
    return found


def test_the_docstring_lists_every_module_once():
    order = chain_order()
    assert len(order) == len(set(order)), f"listed twice: {[m for m in order if order.count(m) > 1]}"
    modules = set(library_modules())
    assert set(order) == modules, (f"in the docstring but not in mbdlib: {sorted(set(order) - modules)}; "
                                   f"in mbdlib but not in the docstring: {sorted(modules - set(order))}")


@pytest.mark.parametrize("name", sorted(library_modules()))
def test_imports_point_down_the_chain(name):
    order = chain_order()
    rank = {m: k for k, m in enumerate(order)}
    up = sorted(m for m in relative_imports(name, library_modules()[name]) if rank.get(m, -1) >= rank[name])
    assert not up, f"mbdlib.{name} imports {up}, which come after it in the chain: {' -> '.join(order)}"


def test_the_package_does_not_import_figures_and_the_exercise_engine_stands_alone():
    """``import mbdlib`` stays free of matplotlib-based modules; the exercises' engine (all but the
    chapter modules ``chNN``) imports nothing of mbdlib outside ``mbdlib.exercises``."""
    assert not set(mbdlib._WHERE) & {"plotting", "schematics", "frames", "widgets", "view3d", "course"}
    for path in sorted((PACKAGE / "exercises").glob("*.py")):
        if re.fullmatch(r"ch\d\d\.py", path.name):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        outside = [node.module for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom) and node.level >= 2]
        assert not outside, f"mbdlib/exercises/{path.name} imports {outside} from the rest of mbdlib"


def test_import_mbdlib_loads_each_name_on_first_use():
    """``import mbdlib`` loads neither sympy nor scipy's integrators nor matplotlib; each public name comes
    from the module ``_WHERE`` gives (``linearize`` too, the function, not its module), a submodule by its
    name; anything else is an AttributeError."""
    code = ("import sys, mbdlib; print(sorted(m for m in sys.modules if m.startswith(('sympy', "
            "'scipy.integrate', 'matplotlib', 'mbdlib.planar'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", loaded
    assert sorted(mbdlib._MODULE) == sorted(mbdlib.__all__)
    for name, module in mbdlib._MODULE.items():
        assert getattr(mbdlib, name) is getattr(importlib.import_module(f"mbdlib.{module}"), name), name
    assert mbdlib.planar is importlib.import_module("mbdlib.planar")
    assert callable(mbdlib.linearize) and importlib.import_module("mbdlib.vehicles")  # imports the module
    assert mbdlib.linearize is importlib.import_module("mbdlib.linearize").linearize
    with pytest.raises(AttributeError, match="no attribute 'simulation'"):
        mbdlib.simulation  # noqa: B018
    assert not hasattr(mbdlib, "planar.PlanarModel")


def test_the_checker_catches_an_upward_import(tmp_path):
    """The check itself can fail: a module that imports one listed after it is reported."""
    fake = tmp_path / "kinematics.py"
    fake.write_text("from .dae import simulate\n\ndef f():\n    from . import planar\n")
    order = chain_order()
    found = relative_imports("kinematics", fake)
    assert found == {"dae", "planar"}
    assert all(order.index(m) > order.index("kinematics") for m in found)
