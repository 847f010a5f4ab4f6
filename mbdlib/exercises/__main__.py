"""Command line: ``python -m mbdlib.exercises {generate,release,grade,execute,list} ...``.

Examples::

    python -m mbdlib.exercises generate solutions exercises          # write student versions
    python -m mbdlib.exercises generate solutions exercises --check  # exit 1 if out of date
    python -m mbdlib.exercises release exercises/ch01_kinematics.ipynb --roster roster.csv \\
        --secret-file secret --out release/ch01                      # one notebook per student
    python -m mbdlib.exercises release solutions/ch01_kinematics.ipynb --nbgrader --out source/ch01
    python -m mbdlib.exercises grade submissions/ --chapter 1 --roster roster.csv --secret-file secret \\
        --out grades.csv --totals totals.csv --totals-format canvas --feedback feedback/ --workers 2
    python -m mbdlib.exercises execute solutions/ch01_kinematics.ipynb  # refresh stored outputs
    python -m mbdlib.exercises list 1                                # the registry of chapter 1
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from pathlib import Path

import nbformat

from .core import exercises
from .generate import GenerateError, generate, render
from .grade import coalesce_streams, execute, grade, notebooks_in
from .release import nbgrader_source, release_variants
from .sandbox import SandboxConfig, close_all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mbdlib.exercises", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    g = sub.add_parser("generate", help="write the student notebooks from the solution notebooks")
    g.add_argument("solutions", help="directory of solution notebooks (source of truth)")
    g.add_argument("exercises", help="directory of student notebooks (generated)")
    g.add_argument("--check", action="store_true", help="write nothing; exit 1 if exercises/ is out of date")

    rel = sub.add_parser("release", help="one notebook per student (their variant), or nbgrader sources")
    rel.add_argument("notebook", help="the student version (exercises/chNN_*.ipynb); with --nbgrader the "
                                      "solution notebook (solutions/chNN_*.ipynb)")
    rel.add_argument("--out", required=True, help="directory to write into")
    rel.add_argument("--roster", help="CSV with columns student_id,name,file")
    rel.add_argument("--secret-file", help="the course secret (keep it out of the students' reach)")
    rel.add_argument("--course", default="", help="a label written into each variant (optional)")
    rel.add_argument("--nbgrader", action="store_true", help="write an nbgrader source notebook instead")

    r = sub.add_parser("grade", help="execute submissions and write grades.csv (+ feedback, totals)")
    r.add_argument("submissions", nargs="+", help="notebooks, or directories of notebooks")
    r.add_argument("--out", default="grades.csv", help="CSV file to write (default: grades.csv)")
    r.add_argument("--timeout", type=float, default=120, help="seconds per notebook, wall clock")
    r.add_argument("--workers", type=int, default=1, help="notebooks graded in parallel (default 1)")
    r.add_argument("--feedback", default=None, help="directory for one markdown feedback file per student")
    r.add_argument("--chapter", type=int, required=True,
                   help="the chapter you assigned: every notebook is graded against it (whatever it says)")
    r.add_argument("--resume", action="store_true", help="keep complete students of --out")
    r.add_argument("--roster", help="CSV with columns student_id,name,file (default: file name = student id)")
    r.add_argument("--secret-file", help="the course secret: grade each student's own variant")
    r.add_argument("--totals", help="CSV with one total per student (for a gradebook import)")
    r.add_argument("--totals-format", choices=["plain", "canvas", "moodle"], default="plain",
                   help="columns of --totals: Canvas's or Moodle's grade import, or plain (default)")
    r.add_argument("--assignment-name", default="",
                   help="title of the grade column in --totals (the assignment's name in the gradebook)")
    r.add_argument("--problems", help="CSV of the problems found (default: <out>.problems.csv)")
    r.add_argument("--mistakes", help="CSV: how many students made each mistake (default <out>.mistakes.csv)")
    r.add_argument("--memory-mb", type=int, default=2048, help="memory of a kernel's processes (2048)")
    r.add_argument("--cpu-seconds", type=int, default=300, help="CPU time per kernel process (default 300)")
    r.add_argument("--max-processes", type=int, default=128, help="processes and threads per kernel (128)")
    r.add_argument("--disk-mb", type=int, default=256, help="a kernel's own folder, at most (default 256)")
    r.add_argument("--judge-seconds", type=float, default=30,
                   help="longest the grader spends judging one answer (default 30)")
    iso = r.add_mutually_exclusive_group()
    iso.add_argument("--require-isolation", action="store_true",
                     help="refuse to grade unless every confinement mechanism is available (it says which "
                          "is missing)")
    iso.add_argument("--no-isolation", action="store_true", help="run kernels with limits only")
    r.add_argument("--assignment-dir", help="data files the notebooks need (copied next to each one)")

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
                print(f"run: python -m mbdlib.exercises generate {args.solutions} {args.exercises}",
                      file=sys.stderr)
                return 1
            print(f"{args.exercises} is up to date with {args.solutions}")
            return 0
        for path in result:
            print(f"wrote {path}")
        if not result:
            print(f"{args.exercises} already up to date")
        return 0
    if args.command == "release":
        try:
            if args.nbgrader:
                path = nbgrader_source(args.notebook, Path(args.out) / Path(args.notebook).name)
                print(f"wrote {path} (nbgrader source: run nbgrader generate_assignment on it)")
                return 0
            if not (args.roster and args.secret_file):
                print("error: release needs --roster and --secret-file (or --nbgrader)", file=sys.stderr)
                return 2
            paths = release_variants(args.notebook, args.roster, args.secret_file, args.out, args.course)
        except (OSError, ValueError, KeyError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {len(paths)} notebooks into {args.out}")
        return 0
    if args.command == "grade":
        # a notebook stopped at its time limit leaves nbclient tasks pending: not worth a traceback
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        signal.signal(signal.SIGTERM, _terminated)
        isolate = True if args.require_isolation else False if args.no_isolation else None
        sandbox = SandboxConfig(args.memory_mb, args.cpu_seconds, isolate, args.max_processes, args.disk_mb)
        try:
            run = grade(args.submissions, args.out, args.timeout, args.workers, args.feedback, args.chapter,
                        args.resume, roster=args.roster, secret_file=args.secret_file, totals=args.totals,
                        sandbox=sandbox, assignment=args.assignment_dir, totals_format=args.totals_format,
                        assignment_name=args.assignment_name, problems=args.problems, mistakes=args.mistakes,
                        judge_seconds=args.judge_seconds)
        except (OSError, ValueError, RuntimeError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"graded {len(run)} student(s) into {args.out}" + (f", totals in {args.totals}" if args.totals
                                                                   else ""))
        if run.exit_status:
            print(f"exit status {run.exit_status}: {sum(p.kind != 'no-submission' for p in run.problems)} "
                  "problem(s) to look at (see the problems file)", file=sys.stderr)
        return run.exit_status
    if args.command == "execute":
        failed = 0
        for path in notebooks_in(args.notebooks):
            nb = nbformat.read(path, as_version=4)
            status, detail = execute(nb, path.parent, args.timeout, store_widget_state=True)
            if status != "ok":
                print(f"{path}: {status}: {detail}", file=sys.stderr)
                failed += 1
                continue
            coalesce_streams(nb)
            path.write_text(render(nb), encoding="utf-8")
            print(f"executed {path}")
        return 1 if failed else 0
    for ex in exercises(args.chapter):
        kind = "function" if ex.is_function else "value"
        variant = "variants" if ex.has_variants else "same for all"
        print(f"{ex.id}\t{ex.points:g} pt\t{kind}\t{variant}\t{len(ex.mistakes)} mistakes\t{ex.title}")
    return 0


def _terminated(signum, frame) -> None:  # pragma: no cover - a signal
    """SIGTERM while grading: end the kernels, remove their folders and cgroups, then exit (143)."""
    close_all()
    print("grading interrupted (SIGTERM): the students written so far are complete; rerun with --resume",
          file=sys.stderr)
    os._exit(143)


if __name__ == "__main__":
    sys.exit(main())
