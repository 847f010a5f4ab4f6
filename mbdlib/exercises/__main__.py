"""Command line: ``python -m mbdlib.exercises {generate,grade,list} ...``.

Examples::

    python -m mbdlib.exercises generate solutions exercises          # write student versions
    python -m mbdlib.exercises generate solutions exercises --check  # exit 1 if out of date
    python -m mbdlib.exercises grade submissions/ --out grades.csv --timeout 120 --workers 2 \\
        --feedback feedback/
    python -m mbdlib.exercises execute solutions/ch01_kinematics.ipynb  # refresh stored outputs
    python -m mbdlib.exercises list 1                                # the registry of chapter 1
"""

from __future__ import annotations

import argparse
import logging
import sys

import nbformat

from .core import exercises
from .generate import GenerateError, generate, render
from .grade import execute, grade, notebooks_in


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mbdlib.exercises", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    g = sub.add_parser("generate", help="write the student notebooks from the solution notebooks")
    g.add_argument("solutions", help="directory of solution notebooks (source of truth)")
    g.add_argument("exercises", help="directory of student notebooks (generated)")
    g.add_argument("--check", action="store_true", help="write nothing; exit 1 if exercises/ is out of date")

    r = sub.add_parser("grade", help="execute submissions and write grades.csv (+ feedback)")
    r.add_argument("submissions", nargs="+", help="notebooks, or directories of notebooks")
    r.add_argument("--out", default="grades.csv", help="CSV file to write (default: grades.csv)")
    r.add_argument(
        "--timeout", type=float, default=120, help="seconds per notebook, wall clock (default 120)"
    )
    r.add_argument("--workers", type=int, default=1, help="notebooks graded in parallel (default 1)")
    r.add_argument("--feedback", default=None, help="directory for one markdown feedback file per student")
    r.add_argument("--chapter", type=int, default=None, help="chapter, when notebooks do not say")
    r.add_argument("--resume", action="store_true", help="keep --out and skip students already in it")

    x = sub.add_parser("execute", help="run notebooks in place (refresh stored outputs, e.g. of solutions)")
    x.add_argument("notebooks", nargs="+")
    x.add_argument("--timeout", type=float, default=300, help="seconds per notebook (default 300)")

    lst = sub.add_parser("list", help="list the registered exercises of a chapter")
    lst.add_argument("chapter", type=int)

    args = parser.parse_args(argv)
    if args.command == "generate":
        try:
            result = generate(args.solutions, args.exercises, check=args.check)
        except GenerateError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if args.check:
            for problem in result:
                print(problem, file=sys.stderr)
            if result:
                print(
                    f"run: python -m mbdlib.exercises generate {args.solutions} {args.exercises}",
                    file=sys.stderr,
                )
                return 1
            print(f"{args.exercises} is up to date with {args.solutions}")
            return 0
        for path in result:
            print(f"wrote {path}")
        if not result:
            print(f"{args.exercises} already up to date")
        return 0
    if args.command == "grade":
        # a notebook stopped at its time limit leaves nbclient tasks pending: not worth a traceback
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        subs = grade(
            args.submissions, args.out, args.timeout, args.workers, args.feedback, args.chapter, args.resume
        )
        print(f"graded {len(subs)} notebook(s) into {args.out}")
        return 0
    if args.command == "execute":
        failed = 0
        for path in notebooks_in(args.notebooks):
            nb = nbformat.read(path, as_version=4)
            status, detail = execute(nb, path.parent, args.timeout, store_widget_state=True)
            if status != "ok":
                print(f"{path}: {status}: {detail}", file=sys.stderr)
                failed += 1
                continue
            path.write_text(render(nb), encoding="utf-8")
            print(f"executed {path}")
        return 1 if failed else 0
    for ex in exercises(args.chapter):
        kind = "function" if ex.is_function else "value"
        print(f"{ex.id}\t{ex.points:g} pt\t{kind}\t{len(ex.mistakes)} mistakes\t{ex.title}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
