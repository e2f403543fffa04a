"""The ``llm-eval tasks`` commands: ``generate WORLD [--out DIR]`` writes a world's three task
files; ``validate [--json] [--quick] [--processes N] [WORLD...]`` runs every validity check on the shipped
tasks and prints a table per task (or JSON), exiting 1 when any task fails; ``validate --tasks
DIR`` validates the task files of a directory instead (imported ones as the import does);
``import autumnbench DATA_DIR [--validate now|later]`` imports published tasks, validating
them now or listing them as not validated (``unvalidated``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from ..argtypes import integer_at_least
from ..seeds import is_degenerate_seed

if TYPE_CHECKING:
    from ..tasks.validate import TaskReport

# the parser is built by every ``llm-eval`` invocation: what the commands need is imported
# when they run

__all__ = ["add_tasks_parser", "format_report", "cmd_generate", "cmd_validate"]


def _figures(figures: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in figures.items())


def format_report(report: TaskReport) -> list[str]:
    """The table of one task: a heading line, then one line per check."""
    lines = [f"{report.task} ({report.family}): {'PASS' if report.passed else 'FAIL'}"]
    width = max(len(c.name) for c in report.checks)
    for c in report.checks:
        status = "skip" if c.skipped else ("pass" if c.passed else "FAIL")
        text = _figures(c.figures)
        if c.detail and not c.passed:
            text = f"{text}  ({c.detail})" if text else c.detail
        lines.append(f"  {c.name:<{width}}  {status}  {text}".rstrip())
    return lines


def cmd_generate(args: argparse.Namespace) -> int:
    from ..tasks.generate import write_world_tasks
    from .episode import known_world

    known_world(args.world)   # an unknown name: a usage error with "did you mean" (exit 2)
    for path in write_world_tasks(args.world, args.out):
        print(path)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    if args.tasks is not None:
        return _validate_directory(args)
    from ..parallel import default_processes
    from ..tasks import report_cache
    from ..tasks.store import all_tasks
    from ..tasks.validate import FULL, QUICK
    from .episode import known_world

    for name in args.worlds:
        known_world(name)   # an unknown name: a usage error with "did you mean" (exit 2)
    effort = QUICK if args.quick else FULL
    tasks = all_tasks(args.worlds or None)
    processes = default_processes() if args.processes is None else args.processes
    folder = report_cache.cache_dir()
    reports, reused = [], 0
    for report, kept, not_kept in report_cache.validate_kept(tasks, effort, processes,
                                                              folder=folder,
                                                              refresh=args.no_cache):
        reports.append(report)
        reused += kept
        if not_kept:
            print(f"llm-eval: warning: {report.task}'s report not kept in {folder} "
                  f"({not_kept})", file=sys.stderr)
        if not args.json:
            print("\n".join(format_report(report)), flush=True)
    if folder is not None:
        print(f"llm-eval: {reused} of {len(reports)} reports reused from {folder} (their tasks, "
              "programs, effort and llm_eval's code unchanged); --no-cache validates every "
              "task again", file=sys.stderr)
    return _summary(reports, args.json)


def _validate_directory(args: argparse.Namespace) -> int:
    """``tasks validate --tasks DIR``: validate the task files of DIR (an imported task as
    the import does, ``validate_imported`` at ``--seed``; another with every check), print
    the tables, and take each task off DIR's list of tasks not validated yet
    (``unvalidated``). Exit 1 when any task fails."""
    from ..tasks.autumnbench_import import validate_imported
    from ..tasks.store import load_task_dir
    from ..tasks.unvalidated import unmark
    from ..tasks.validate import FULL, QUICK, validate_task

    if args.worlds:
        print("llm-eval: error: give WORLD names or --tasks DIR, not both", file=sys.stderr)
        return 2
    tasks = load_task_dir(args.tasks)
    reports = []
    for task in tasks:
        if task.source is not None:
            report = validate_imported(task, seed=args.seed)
        else:
            report = validate_task(task, QUICK if args.quick else FULL)
        reports.append(report)
        unmark(args.tasks, [task.id])
        if not args.json:
            print("\n".join(format_report(report)), flush=True)
    return _summary(reports, args.json)


def _summary(reports: list, as_json: bool) -> int:
    failed = [r.task for r in reports if not r.passed]
    if as_json:
        json.dump([r.to_dict() for r in reports], sys.stdout, indent=1)
        print()
    else:
        print(f"{len(reports)} tasks: {len(reports) - len(failed)} passed, {len(failed)} failed"
              + (f" ({', '.join(failed)})" if failed else ""))
    return 1 if failed else 0


def cmd_import(args: argparse.Namespace) -> int:
    """``tasks import autumnbench DATA_DIR [--out DIR] [--seed S] [--validate now|later]``:
    import, then validate (``later``: mark the tasks not validated instead)."""
    from ..tasks.autumnbench_import import import_autumnbench, validate_imported

    result = import_autumnbench(args.data_dir, args.out)
    if args.validate == "later":
        from ..tasks.unvalidated import mark

        for path in result.written:
            print(f"wrote {path}")
        mark(result.out_dir, [t.id for t in result.tasks])
        print(f"imported {len(result.tasks)} tasks into {result.out_dir}, not validated: "
              f"validate them with: llm-eval tasks validate --tasks {result.out_dir} "
              f"--seed {args.seed} (run and episode warn until then)")
        return 0
    if is_degenerate_seed(args.seed):
        print(f"llm-eval: warning: validating with seed {args.seed}, which removes every random "
              "choice (the published harness's default)", file=sys.stderr)
    reports = []
    for task, path in zip(result.tasks, result.written):
        print(f"wrote {path}")
        report = validate_imported(task, seed=args.seed)
        reports.append(report)
        if not args.json:
            print("\n".join(format_report(report)), flush=True)
    failed = [r.task for r in reports if not r.passed]
    if args.json:
        json.dump([r.to_dict() for r in reports], sys.stdout, indent=1)
        print()
    else:
        print(f"imported {len(reports)} tasks into {result.out_dir}: {len(reports) - len(failed)}"
              f" pass our validation, {len(failed)} do not"
              + (f" ({', '.join(failed)})" if failed else "")
              + f" (seed {args.seed}); run them with: llm-eval run --tasks {result.out_dir} ...")
    return 0


def add_tasks_parser(commands) -> None:
    """Register ``tasks generate`` and ``tasks validate`` on the top-level subparsers."""
    tasks = commands.add_parser("tasks", help="generate and validate WorldTest task files",
                                description="Generate and validate the WorldTest task files.")
    sub = tasks.add_subparsers(dest="tasks_command", metavar="COMMAND", required=True)
    gen = sub.add_parser(
        "generate", help="build a world's MFP, CD and planning task files",
        description="Build WORLD's three task files (deterministic) and write them to DIR "
                    "(default: the shipped task directory).")
    gen.add_argument("world", metavar="WORLD", help="a bundled world's name")
    gen.add_argument("--out", metavar="DIR", default=None, help="output directory")
    gen.set_defaults(handler=cmd_generate)
    val = sub.add_parser(
        "validate", help="check every shipped task (docs/spec/worldtest.md 5)",
        description="Run every validity check on the shipped tasks (of the given WORLDs, or "
                    "all) and print a table per task; exit 1 when any task fails.")
    val.add_argument("worlds", metavar="WORLD", nargs="*", help="only these worlds' tasks")
    val.add_argument("--tasks", metavar="DIR", default=None,
                     help="validate the task files of DIR instead of the shipped tasks (an "
                          "imported task with the import's checks, at --seed); each is taken "
                          "off DIR's list of tasks imported with --validate later")
    val.add_argument("--seed", type=int, default=1,
                     help="with --tasks: the world seed an imported task is validated with "
                          "(default 1, as tasks import)")
    val.add_argument("--json", action="store_true",
                     help="print a JSON list of objects (task, world, family, passed, checks)")
    val.add_argument("--quick", action="store_true",
                     help="fewer random rollouts, answers, fuzz runs and CD redraws, and no "
                          "planning redraws (reachable_without_dice: minutes to tens of "
                          "minutes for each planning task of a stochastic world)")
    val.add_argument("--processes", type=integer_at_least(1), metavar="N", default=None,
                     help="validate in N worker processes (default: one per core; 1: in "
                          "this process); the reports are the same and in the same order")
    val.add_argument("--no-cache", action="store_true",
                     help="validate every task again instead of reusing the report kept for "
                          "a task whose files, programs, effort and llm_eval's code are "
                          "unchanged (kept in $LLM_EVAL_REPORT_CACHE, default "
                          "~/.cache/llm_eval/reports; LLM_EVAL_REPORT_CACHE=off keeps none)")
    val.set_defaults(handler=cmd_validate)
    imp = sub.add_parser(
        "import", help="import published task files (autumnbench)",
        description="Read the published AutumnBench layout in DATA_DIR (programs/, prompts/, "
                    "answers/, color_dict.yaml), write one task file per environment x family "
                    "found to DIR, then validate each and print the table. Validation problems "
                    "are reported, not fatal; bad input is an error naming the file and field.")
    imp.add_argument("format", choices=("autumnbench",), help="the source format")
    imp.add_argument("data_dir", metavar="DATA_DIR", help="the published data directory")
    imp.add_argument("--out", metavar="DIR", default="autumnbench-tasks",
                     help="where to write the task files (default ./autumnbench-tasks)")
    imp.add_argument("--seed", type=int, default=1,
                     help="the world seed validation uses (the files carry none; default 1)")
    imp.add_argument("--json", action="store_true", help="print the validation as JSON")
    imp.add_argument("--validate", choices=("now", "later"), default="now",
                     help="now (default): validate each task after writing it; later: write "
                          "the tasks without validating them and list them as not validated "
                          "(DIR/UNVALIDATED) until 'llm-eval tasks validate --tasks DIR' runs; "
                          "run and episode warn on such a task")
    imp.set_defaults(handler=cmd_import)
