"""``llm-eval replay RUN_DIR|TRANSCRIPT...``: re-run recorded jobs offline and check they
reproduce their transcripts (the checks are ``llm_eval.replay``'s ``replay_checks`` and
``replay_check``; this module prints them and sets the exit code)."""

from __future__ import annotations

import sys
from collections import Counter
from typing import TYPE_CHECKING

from ..errors import LlmEvalError

if TYPE_CHECKING:
    from ..replay import ReplayResult

__all__ = ["cmd_replay", "add_replay_parser"]


def cmd_replay(args) -> int:
    """``llm-eval replay RUN_DIR|TRANSCRIPT...``: one line per check, then ``reproduced N/M``
    over the jobs checked; exit 1 when any job checked failed (a mismatch, or a done job's
    transcript missing, incomplete or unreadable), else 2 when a path holds no transcript, a
    file is not a readable transcript, no job could be checked (every job unfinished: a
    check that verified nothing does not pass) or the price file of ``--prices`` cannot be
    read, else 0. Each job is priced as its run priced it, or by ``--prices``."""
    from ..replay import replay_check, replay_checks  # not when only the parser is built

    try:
        if args.prices is not None:   # a bad price file is one usage error, not one per job
            from ..pricing import load_prices

            load_prices(args.prices)
        checks = [c for target in args.targets for c in replay_checks(target)]
    except LlmEvalError as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return 2
    results = []
    for path, row in checks:
        results.append(replay_check(path, row, prices=args.prices))
        print(results[-1].line(), flush=True)
    checked = [r for r in results if r.checked]
    reproduced = sum(r.reproduced for r in checked)
    skipped = sum(r.status == "skipped" for r in results)
    unreadable = [r for r in results if not r.checked and r.status != "skipped"]
    notes = [f"{skipped} unfinished jobs skipped"] * bool(skipped) + \
        [f"{len(unreadable)} unreadable files"] * bool(unreadable)
    print(f"reproduced {reproduced}/{len(checked)}" + (f" ({', '.join(notes)})" if notes else ""))
    for r in checked:
        if not r.reproduced:
            print(f"{r.status}: job {r.job_id} ({r.path}): {r.detail}", file=sys.stderr)
    for r in unreadable:
        print(f"llm-eval: error: {r.detail}", file=sys.stderr)
    if reproduced < len(checked):
        return 1
    if not checked:
        print(f"llm-eval: error: nothing could be replayed: {_skipped_summary(results)}",
              file=sys.stderr)
        return 2
    return 2 if unreadable else 0


def _skipped_summary(results: list[ReplayResult]) -> str:
    """``"3 transcript(s) skipped: not finished (unfinished 2, interrupted 1)"``, and how many
    files were not readable transcripts."""
    from ..replay import SKIPPED_BECAUSE

    skipped = [r for r in results if r.status == "skipped"]
    unreadable = len(results) - len(skipped)   # nothing was checked: the rest were unreadable
    parts = []
    if skipped:
        statuses = Counter(r.detail.removeprefix(SKIPPED_BECAUSE) for r in skipped)
        counts = ", ".join(f"{status} {n}" for status, n in statuses.most_common())
        parts.append(f"{len(skipped)} transcript(s) skipped: not finished ({counts})")
    if unreadable:
        parts.append(f"{unreadable} file(s) not readable transcripts")
    return "; ".join(parts)


def add_replay_parser(commands):
    """Add ``replay`` to the ``llm-eval`` subcommands."""
    replay = commands.add_parser(
        "replay", help="re-run recorded jobs offline and check they reproduce their transcripts",
        description="Re-run each finished job of a run directory (or each transcript given) "
                    "with its model calls answered from the transcript, and compare the new "
                    "transcript with the recorded one, ignoring times, latencies and retry "
                    "attempts. A run directory is checked against its run store: a job it "
                    "records done whose transcript is missing, torn or unreadable fails. "
                    "Prints one line per job and 'reproduced N/M'; exits 1 naming the job, "
                    "event and step of any mismatch or failure, and 2 when a file is not a "
                    "readable transcript or no job could be replayed (none finished).")
    replay.add_argument("targets", nargs="+", metavar="RUN_DIR|TRANSCRIPT")
    replay.add_argument("--prices", metavar="FILE",
                        help="price the replayed calls with this price file instead of the "
                             "prices each transcript records (for transcripts made before "
                             "they recorded them; a file with the recorded sha256 is the "
                             "run's own, wherever it now is)")
    replay.set_defaults(handler=cmd_replay)
    return replay
