"""Write the student versions of the solution notebooks.

``solutions/`` is the source of truth.  In its code cells, the code between
``### BEGIN SOLUTION`` and ``### END SOLUTION`` (nbgrader's markers) is replaced
by placeholders that keep the names the solution defines, so the check cells
still run and report "not answered yet":

* ``A = rot_z(psi) @ ...``            becomes ``A = None  # your code here``
* ``def f(q): <body>``                keeps its signature and docstring, the body
  becomes ``# your code here`` and ``return None``
* ``return <expr>`` (a block inside a function) becomes ``return None  # your code here``

In markdown cells, ``<!-- BEGIN SOLUTION -->...<!-- END SOLUTION -->`` becomes
*Write your answer here.*  Outputs, execution counts and execution metadata are
cleared; the JSON is written the way ``nbformat`` writes it (sorted keys,
one-space indent), so generating twice gives byte-identical files.
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import nbformat

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
MD_BLOCK = re.compile(r"<!-- BEGIN SOLUTION -->.*?<!-- END SOLUTION -->", re.DOTALL)
MD_PLACEHOLDER = "*Write your answer here.*"
PLACEHOLDER = "# your code here"
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


class GenerateError(ValueError):
    """A solution notebook is malformed (unbalanced markers, ...); the message names the file and cell."""


def _placeholder(block: list[str], indent: str, used: set[str] | None = None) -> list[str]:
    """Placeholder lines for one solution block (``block``: its lines, without markers).

    ``used``: the names the rest of the notebook refers to; assigned names not in
    it are intermediate results of the solution and get no placeholder (None: keep all).
    """
    source = textwrap.dedent("\n".join(block))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = None
    out: list[str] = []
    seen: set[str] = set()

    def assign(name: str) -> None:
        if name not in seen and (used is None or name in used):
            seen.add(name)
            out.append(f"{indent}{name} = None  {PLACEHOLDER}")

    def targets(node) -> list[str]:
        if isinstance(node, ast.Name):
            return [node.id]
        if isinstance(node, (ast.Tuple, ast.List)):
            return [n for elt in node.elts for n in targets(elt)]
        return []  # attribute or subscript assignment: A[0, 1] = ... keeps no name

    body = tree.body if tree else []
    if any(isinstance(node, ast.Return) for node in body):  # the body of a function: only its result counts
        return [f"{indent}return None  {PLACEHOLDER}"]
    for node in body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                for name in targets(t):
                    assign(name)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            for name in targets(node.target):
                assign(name)
        elif isinstance(node, ast.FunctionDef):
            seen.add(node.name)
            lines = source.splitlines()
            first_body = node.body[0]
            keep_doc = (
                isinstance(first_body, ast.Expr)
                and isinstance(first_body.value, ast.Constant)
                and isinstance(first_body.value.value, str)
            )
            head_end = (first_body.end_lineno if keep_doc else first_body.lineno - 1) or 0
            start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
            head = lines[start:head_end]
            if not head:  # one-line def: rebuild the signature
                head = [f"def {node.name}({ast.unparse(node.args)}):"]
            out += [indent + line if line else line for line in head]
            one_line = first_body.lineno == node.lineno
            body_indent = indent + " " * (4 if one_line else first_body.col_offset - node.col_offset)
            out += [f"{body_indent}{PLACEHOLDER}", f"{body_indent}return None"]
    if not out:
        out.append(f"{indent}{PLACEHOLDER}")
    return out


def strip_solutions(source: str, where: str = "cell", used: set[str] | None = None) -> str:
    """Replace every marked solution block of a code cell's source by its placeholder.

    ``used``: names that later cells refer to (see :func:`_placeholder`); the
    code after the block in the same cell always counts.

    Examples
    --------
    >>> cell = "x = 1\\n### BEGIN SOLUTION\\nA = x + 1\\nB, C = 2, 3\\n### END SOLUTION\\ncheck(A)"
    >>> print(strip_solutions(cell))
    x = 1
    A = None  # your code here
    B = None  # your code here
    C = None  # your code here
    check(A)
    """
    lines = source.split("\n")
    out: list[str] = []
    block: list[str] | None = None
    indent = ""
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped == BEGIN:
            if block is not None:
                raise GenerateError(f"{where}, line {number}: '{BEGIN}' inside another solution block")
            block, indent = [], line[: len(line) - len(line.lstrip())]
        elif stripped == END:
            if block is None:
                raise GenerateError(f"{where}, line {number}: '{END}' without a '{BEGIN}' before it")
            later = set(_IDENT.findall("\n".join(lines[number:])))
            out += _placeholder(block, indent, None if used is None else used | later)
            block = None
        elif block is not None:
            block.append(line)
        else:
            out.append(line)
    if block is not None:
        raise GenerateError(f"{where}: '{BEGIN}' is never closed by '{END}'")
    return "\n".join(out)


def student_version(nb: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """A copy of a solution notebook with solutions replaced and outputs cleared."""
    nb = nbformat.from_dict(nb)  # deep copy
    code = [c.source if c.cell_type == "code" else "" for c in nb.cells]
    for i, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            used = set(_IDENT.findall("\n".join(code[i + 1 :])))
            cell.source = strip_solutions(cell.source, f"{name}, cell {i}", used)
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "markdown":
            cell.source = MD_BLOCK.sub(MD_PLACEHOLDER, cell.source)
    nb.metadata.setdefault("mbdlib", {})["student_version"] = True
    return nb


def render(nb: nbformat.NotebookNode) -> str:
    """The notebook as text, exactly as it will be written (deterministic)."""
    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def generate(src: str | Path, dst: str | Path, check: bool = False) -> list[str]:
    """Generate ``dst/<name>.ipynb`` from every ``src/<name>.ipynb``.

    Parameters
    ----------
    src, dst : path
        Solution and exercise directories.
    check : bool
        If True, write nothing and return the problems (files out of date,
        missing, or without a solution notebook).

    Returns
    -------
    list of str
        Files written (``check=False``) or problems found (``check=True``).
    """
    src, dst = Path(src), Path(dst)
    if not src.is_dir():
        raise GenerateError(f"solutions directory {src} does not exist")
    sources = sorted(p for p in src.glob("*.ipynb") if not p.name.startswith("."))
    result = []
    for path in sources:
        nb = nbformat.read(path, as_version=4)
        text = render(student_version(nb, path.name))
        target = dst / path.name
        if check:
            if not target.exists():
                result.append(f"{target}: missing (run: python -m mbdlib.exercises generate {src} {dst})")
            elif target.read_text(encoding="utf-8") != text:
                result.append(f"{target}: out of date with {path}")
        else:
            dst.mkdir(parents=True, exist_ok=True)
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")
                result.append(str(target))
    if check:
        names = {p.name for p in sources}
        for extra in sorted(dst.glob("*.ipynb")):
            if extra.name not in names:
                result.append(f"{extra}: has no solution notebook in {src} (delete it or add one)")
    return result
