"""``llm-eval suites``: list, show, check and freeze suite manifests.

- ``llm-eval suites list [--json]``: each shipped suite, its task and world counts and digest;
- ``llm-eval suites show NAME [--json]``: its tasks (id, world, family, files);
- ``llm-eval suites check [NAME...]``: re-hash every file of every task; exit 1 naming each
  task and file that no longer matches (default: every shipped suite);
- ``llm-eval suites freeze NAME [--worlds W...] [--description TEXT] [-o FILE]``: (re)write the
  manifest from the shipped tasks as they are now (default: every shipped task; ``--worlds``
  restricts it), keeping the old description unless one is given, and print what changed
  against the previous manifest (tasks added, removed, or with changed files) and the new
  digest. A suite is frozen once its tasks validate (``llm-eval tasks validate``).
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_suites_parser"]


def _cmd_list(args: argparse.Namespace) -> int:
    from ..suites.manifest import load_suite, suite_names

    suites = [load_suite(name) for name in suite_names()]
    if args.json:
        print(json.dumps([{"name": s.name, "digest": s.digest, "tasks": len(s.tasks),
                           "worlds": len(s.worlds), "description": s.description}
                          for s in suites], indent=2))
        return 0
    if not suites:
        print("no shipped suites")
    for s in suites:
        print(f"{s.name}  {len(s.tasks)} tasks, {len(s.worlds)} worlds  sha256 "
              f"{s.short_digest}  {s.description}".rstrip())
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from ..suites.manifest import load_suite

    suite = load_suite(args.name)
    if args.json:
        print(json.dumps(suite.model_dump(mode="json"), indent=2))
        return 0
    print(f"suite {suite.name}: {len(suite.tasks)} tasks, {len(suite.worlds)} worlds, "
          f"sha256 {suite.digest}")
    if suite.description:
        print(suite.description)
    width = max(len(t.id) for t in suite.tasks)
    for t in suite.tasks:
        files = "  ".join(f"{f.path} {f.sha256[:12]}" for f in t.files)
        print(f"  {t.id:<{width}}  {files}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from ..suites.manifest import load_suite, suite_names

    names = args.names or suite_names()
    failed = 0
    for name in names:
        suite = load_suite(name)
        bad = [(t, f, now) for t in suite.tasks for f, now in suite.mismatches(t.id)]
        for task, recorded, now in bad:
            state = "cannot be read" if now is None else f"sha256 {now[:12]}"
            print(f"{suite.name}: {task.id}: {recorded.label} llm_eval/{recorded.path}: "
                  f"{state}, manifest {recorded.sha256[:12]}")
        tasks = len({t.id for t, _, _ in bad})
        print(f"suite {suite.name} (sha256 {suite.short_digest}): {len(suite.tasks)} tasks, "
              + (f"{tasks} changed" if bad else "every file matches"))
        failed += bool(bad)
    return 1 if failed else 0


def _cmd_freeze(args: argparse.Namespace) -> int:
    from ..suites.manifest import SuiteError, freeze, load_suite, suite_names, write_suite
    from ..tasks.store import all_tasks
    from ..worlds import world_names

    if args.worlds:
        known = world_names()
        unknown = [w for w in args.worlds if w not in known]
        if unknown:
            raise SuiteError(f"--worlds: unknown world(s) {', '.join(unknown)}")
    old = None
    if args.output is None and args.name in suite_names():
        try:
            old = load_suite(args.name)
        except SuiteError as exc:   # a broken manifest is replaced, and said so
            print(f"replacing an unreadable manifest: {exc}", file=sys.stderr)
    description = args.description if args.description is not None else \
        (old.description if old is not None else "")
    suite = freeze(args.name, all_tasks(args.worlds, suite=args.name), description)
    path = write_suite(suite, args.output)
    if old is not None:
        before = {t.id: t for t in old.tasks}
        after = {t.id: t for t in suite.tasks}
        added = [i for i in after if i not in before]
        removed = [i for i in before if i not in after]
        changed = [i for i in after if i in before and after[i] != before[i]]
        for label, ids in (("added", added), ("removed", removed), ("changed", changed)):
            if ids:
                print(f"{label}: {', '.join(ids)}")
        if old.digest == suite.digest:
            print("no task changed")
    print(f"suite {suite.name}: {len(suite.tasks)} tasks, {len(suite.worlds)} worlds, "
          f"sha256 {suite.digest}")
    print(f"wrote {path}")
    return 0


def add_suites_parser(commands) -> argparse.ArgumentParser:
    """Add ``suites`` (list, show, check, freeze) to the ``llm-eval`` subcommands."""
    suites = commands.add_parser(
        "suites", help="list, show, check and freeze suite manifests",
        description="Suites are versioned manifests of shipped tasks with the sha256 of every "
                    "task file and program; 'llm-eval run --suite NAME' runs one.")
    sub = suites.add_subparsers(dest="suites_command", metavar="COMMAND", required=True)
    listing = sub.add_parser("list", help="the shipped suites")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_cmd_list)
    show = sub.add_parser("show", help="a suite's tasks and file digests")
    show.add_argument("name", metavar="NAME", help="a suite name (e.g. v1) or manifest path")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_cmd_show)
    check = sub.add_parser("check", help="check that every file still matches its digest "
                                         "(exit 1 if one does not)")
    check.add_argument("names", nargs="*", metavar="NAME",
                       help="suites to check (default: every shipped suite)")
    check.set_defaults(handler=_cmd_check)
    freeze = sub.add_parser(
        "freeze", help="(re)write a suite's manifest from the shipped tasks as they are now",
        description="Write the manifest of suite NAME: every shipped task (or those of "
                    "--worlds) with the sha256 of its task file and programs. Prints what "
                    "changed against the previous manifest and the new digest.")
    freeze.add_argument("name", metavar="NAME", help="the suite's name, e.g. v1")
    freeze.add_argument("--worlds", nargs="+", metavar="W",
                        help="only these worlds' tasks (default: every shipped task)")
    freeze.add_argument("--description", metavar="TEXT",
                        help="one line about the suite (default: keep the old one)")
    freeze.add_argument("-o", "--output", metavar="FILE",
                        help="write here instead of the shipped manifest "
                             "(llm_eval/suites/NAME.json)")
    freeze.set_defaults(handler=_cmd_freeze)
    return suites
