"""``llm-eval compare``: arm A against arm B on the same tasks, per family and overall.

``llm-eval compare RUN_A [RUN_B] [--a KEY=VALUE ...] [--b KEY=VALUE ...] [--by KEY]
[--match KEY ...] [--per KEY]``

- Arms. Arm A is the episodes of RUN_A, arm B those of RUN_B (RUN_A again when omitted).
  ``--a KEY=VALUE`` keeps only arm A's episodes whose setting KEY has VALUE (repeatable: all
  must hold; ``none`` is an unset setting), ``--b`` the same for arm B, e.g. ``--a
  prompt=default --b prompt=reflective`` or ``--a model=random --b model=oracle`` inside one
  run. ``--by KEY`` splits one run by a setting with exactly two values (A is the first in
  sort order: numbers ascending, then words alphabetically). Within one run both arms are
  chosen (``--a`` and ``--b``, or ``--by``) and share no episode: an arm of "the rest of the
  run" would hold the other arm's episodes too.
- Pairs. Done episodes are paired on ``--match`` (default: world family seed repeat; a list
  given replaces it and must keep world and family, or task: a pair is one task);
  infrastructure errors never score and are counted apart. Repeats of one task within an arm
  (episodes equal on ``--match``) are averaged, but only when they are the same arm: the same
  model and ``stats.ARM_SETTINGS`` values. Two models, or two tool modes of one model, on one
  task of an arm are an error naming them, not an average.
- Output. An aligned table with one row per value of ``--per`` (default family) and an
  overall row: pairs, mean A, mean B, the difference B - A, its 95% interval (bootstrap
  clustered by world) and the sign-flip permutation p-value with its method
  (``stats.paired_comparison``); then the episodes left unmatched; then pass@k and pass^k
  over seeds per arm (``--k``, default 1 2 3; ``reliability.py``); with ``--tasks [N]`` the
  N pairs where the arms differ most (``report.side_by_side``). ``--json`` prints all of it
  as JSON instead.

Exit 0 after printing; 2 (and nothing printed on stdout) when an input is unusable: a path
that is not a run directory; a selection that matches no episode (named, with the values the
setting has); one run with only one of ``--a``/``--b``, or arms that share an episode; a
``--match`` or ``--per`` key that no episode has (named, with the keys there are); an arm
mixing models or arm settings on one task (named, with their values and how to choose); or
arms with no pair at all (with each arm's done, infrastructure-error and unmatched counts).
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..analysis.data import DEFAULT_MATCH
from ..argtypes import integer_at_least

# every ``llm-eval`` builds the parser: the store and numpy are imported when compare runs
if TYPE_CHECKING:
    from ..analysis.data import Episode
    from ..analysis.stats import Comparison

__all__ = ["add_compare_parser", "cmd_compare", "compare", "format_comparison", "select",
           "DEFAULT_MATCH", "EXIT_INPUT"]

EXIT_INPUT = 2
OVERALL = "overall"


def _selection(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def select(episodes: Sequence[Episode], conditions: Sequence[tuple[str, str]], *,
           flag: str, source: str) -> list[Episode]:
    """The episodes whose settings satisfy every ``KEY=VALUE`` condition; an AnalysisError
    naming the setting (and the values it has) when one condition matches nothing."""
    from ..analysis.data import AnalysisError
    from ..analysis.stats import natural_key, setting_label
    chosen = list(episodes)
    for key, value in conditions:
        kept = [e for e in chosen if setting_label(e.knob(key)) == value]
        if not kept:
            seen = sorted({setting_label(e.knob(key)) for e in chosen}, key=natural_key)
            raise AnalysisError(f"{flag} {key}={value} matches no episode in {source} "
                                f"({key} values there: {', '.join(seen)})")
        chosen = kept
    return chosen


def _split_by(episodes: Sequence[Episode], key: str,
              source: str) -> tuple[str, list[Episode], str, list[Episode]]:
    from ..analysis.data import AnalysisError
    from ..analysis.stats import natural_key, setting_label
    values = sorted({setting_label(e.knob(key)) for e in episodes}, key=natural_key)
    if len(values) != 2:
        raise AnalysisError(f"--by {key}: needs exactly two values in {source}, found "
                            f"{len(values)} ({', '.join(values)}); choose the arms with "
                            f"--a {key}=VALUE --b {key}=VALUE")
    low, high = values
    return (f"{key}={low}", [e for e in episodes if setting_label(e.knob(key)) == low],
            f"{key}={high}", [e for e in episodes if setting_label(e.knob(key)) == high])


def _label(run: str, conditions: Sequence[tuple[str, str]], same_run: bool) -> str:
    chosen = ",".join(f"{k}={v}" for k, v in conditions)
    if same_run and chosen:
        return chosen
    return f"{Path(run).name or run}:{chosen}" if chosen else (Path(run).name or run)


def _fmt(value: float, signed: bool = False) -> str:
    if not math.isfinite(value):
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _p(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    return f"{value:.4g}"


def format_comparison(rows: Sequence[tuple[str, Comparison]], *, per: str = "family",
                      match: Sequence[str] = DEFAULT_MATCH) -> str:
    """An aligned table of ``(row label, Comparison)`` rows (the last usually ``overall``),
    headed by the arms and followed by the unmatched count of the last row."""
    if not rows:
        return "no comparison"
    first = rows[0][1]
    header = (per, "pairs", "mean A", "mean B", "B - A", "95% CI", "p", "method")
    table = [header]
    for label, c in rows:
        interval = (f"[{_fmt(c.ci_low, True)}, {_fmt(c.ci_high, True)}]"
                    if math.isfinite(c.ci_low) else "-")
        table.append((label, str(c.n_pairs), _fmt(c.mean_a), _fmt(c.mean_b),
                      _fmt(c.mean_diff, True), interval, _p(c.p_value), c.method))
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    numeric = {1, 2, 3, 4, 6}
    lines = [f"A: {first.a_label}", f"B: {first.b_label}", ""]
    for line in table:
        cells = [cell.rjust(w) if i in numeric else cell.ljust(w)
                 for i, (cell, w) in enumerate(zip(line, widths))]
        lines.append("  ".join(cells).rstrip())
    last = rows[-1][1]
    lines.append("")
    lines.append(f"paired on {', '.join(match)}; {last.unmatched} done episode(s) without a "
                 "counterpart in the other arm")
    return "\n".join(lines)


def compare(a: Sequence[Episode], b: Sequence[Episode], *, a_label: str, b_label: str,
            match: Sequence[str] = DEFAULT_MATCH, per: str = "family",
            seed: int = 0) -> list[tuple[str, Comparison]]:
    """One comparison per value of ``per`` (in natural order), then the overall one."""
    from ..analysis.stats import natural_key, paired_comparison, setting_label
    match = tuple(match)
    values = sorted({setting_label(e.knob(per)) for e in (*a, *b)}, key=natural_key)
    rows = []
    for value in values:
        rows.append((value, paired_comparison(
            [e for e in a if setting_label(e.knob(per)) == value],
            [e for e in b if setting_label(e.knob(per)) == value],
            match=match, a_label=a_label, b_label=b_label, seed=seed)))
    rows.append((OVERALL, paired_comparison(list(a), list(b), match=match, a_label=a_label,
                                            b_label=b_label, seed=seed)))
    return rows


def _arms(args: argparse.Namespace) -> tuple[str, list[Episode], str, list[Episode]]:
    from ..analysis.data import AnalysisError, load_episodes
    from ..analysis.stats import setting_label
    run_a = args.run_a
    run_b = args.run_b or args.run_a
    same_run = Path(run_a).resolve() == Path(run_b).resolve()
    episodes_a = load_episodes([run_a])
    episodes_b = episodes_a if same_run else load_episodes([run_b])
    if args.by:
        if args.a or args.b or not same_run:
            raise AnalysisError("--by KEY splits one run into two arms; give one run and no "
                                "--a/--b with it")
        return _split_by(episodes_a, args.by, run_a)
    if same_run and not (args.a or args.b):
        raise AnalysisError(f"both arms are the same episodes of {run_a}: choose them with "
                            "--a KEY=VALUE --b KEY=VALUE (e.g. --a model=random --b "
                            "model=oracle) or --by KEY")
    if same_run and not (args.a and args.b):
        given, missing = ("--a", "--b") if args.a else ("--b", "--a")
        raise AnalysisError(f"one run ({run_a}) with {given} alone: arm {missing[-1].upper()} "
                            f"would be the whole run, the other arm's episodes included; "
                            f"choose it with {missing} KEY=VALUE too, or split the run "
                            "with --by KEY")
    a = select(episodes_a, args.a or (), flag="--a", source=run_a)
    b = select(episodes_b, args.b or (), flag="--b", source=run_b)
    a_label = _label(run_a, args.a or (), same_run)
    b_label = _label(run_b, args.b or (), same_run)
    shared = {(e.run_dir, e.job_id) for e in a} & {(e.run_dir, e.job_id) for e in b}
    if shared:
        what = ("are the same episodes" if len(shared) == len(a) == len(b)
                else f"share {len(shared)} episode(s)")
        example = next(e for e in a if (e.run_dir, e.job_id) in shared)
        raise AnalysisError(
            f"arms A ({a_label}) and B ({b_label}) {what} of {run_a} (e.g. "
            + " ".join(f"{k}={setting_label(example.knob(k))}"
                       for k in ("model", *DEFAULT_MATCH))
            + "); an episode belongs to one arm: narrow --a/--b until they are disjoint")
    return a_label, a, b_label, b


def _check_keys(a: Sequence[Episode], b: Sequence[Episode], match: Sequence[str],
                per: str) -> None:
    """An AnalysisError for a ``--match`` or ``--per`` key that no episode of either arm has
    (every episode would share its value ``none``: one pair, or one row, for everything)."""
    from ..analysis.data import AnalysisError
    available = sorted({key for e in (*a, *b) for key in e.settings})
    if not available:
        return    # no episode at all: the no-pair error says so
    for flag, keys in (("--match", match), ("--per", (per,))):
        for key in keys:
            if key in available:
                continue
            close = difflib.get_close_matches(key, available, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise AnalysisError(f"{flag} {key}: no episode has a setting {key}{hint}; the "
                                f"settings there are {', '.join(available)}")
    if not ({"world", "family"} <= set(match) or "task" in match):
        raise AnalysisError(f"--match {' '.join(match)}: a pair is one task, so the keys "
                            f"include world and family (or task); --match replaces the "
                            f"default, e.g. --match {' '.join(DEFAULT_MATCH)} "
                            f"{' '.join(k for k in match if k not in DEFAULT_MATCH)}".rstrip())


def _check_mixes(arms: Sequence[tuple[str, str, list[Episode]]], match: Sequence[str],
                 by: str | None) -> None:
    """An AnalysisError when an arm holds episodes of one task that differ in the model or an
    arm setting: averaging them would report a blend of two arms as one."""
    from ..analysis.data import AnalysisError
    from ..analysis.stats import mix_text, mixed_settings
    for name, label, arm in arms:
        mixed = mixed_settings(arm, match)
        if not mixed:
            continue
        key = next(iter(mixed))
        if by:   # --by labels its arms KEY=VALUE
            low, high = (label[len(by) + 1:] for _, label, _ in arms)
            choose = (f"choose one with --a {by}={low} --a {key}=VALUE --b {by}={high} --b "
                      f"{key}=VALUE")
        else:
            choose = f"select one with --{name.lower()} {key}=VALUE"
        raise AnalysisError(f"arm {name} ({label}) mixes {mix_text(mixed)} on the same tasks "
                            f"({', '.join(match)}), which would be averaged as one arm; "
                            f"{choose}, or pair like with like: --match {' '.join(match)} "
                            f"{key}")


def _counts(arm: Sequence[Episode], other: set[tuple], match: Sequence[str]) -> str:
    from ..analysis.stats import task_key
    done = [e for e in arm if e.is_done]
    infra = sum(e.is_infra_error for e in arm)
    failed = sum(e.status == "failed" for e in arm)
    fatal = sum(e.is_fatal for e in arm)
    others = len(arm) - len(done) - infra - failed - fatal
    parts = [f"{len(done)} done", f"{infra} infrastructure error(s)"]
    if failed:
        parts.append(f"{failed} failed")
    if fatal:
        parts.append(f"{fatal} fatal (refused by the provider)")
    if others:
        parts.append(f"{others} unfinished")
    parts.append(f"{sum(task_key(e, match) not in other for e in done)} unmatched")
    return ", ".join(parts)


def _few(values: set[str]) -> str:
    from ..analysis.stats import natural_key
    ordered = sorted(values, key=natural_key)
    return ", ".join(ordered[:5]) + (", ..." if len(ordered) > 5 else "")


def _no_pairs(a_label: str, a: Sequence[Episode], b_label: str, b: Sequence[Episode],
              match: Sequence[str]) -> str:
    """Why no done episode of A has a counterpart in B, with each arm's counts."""
    from ..analysis.stats import task_key
    keys_a = {task_key(e, match) for e in a if e.is_done}
    keys_b = {task_key(e, match) for e in b if e.is_done}
    empty = [name for name, keys in (("A", keys_a), ("B", keys_b)) if not keys]
    if empty:
        why = f"arm {' and arm '.join(empty)} has no done episode"
    else:
        apart = [(k, {t[i] for t in keys_a}, {t[i] for t in keys_b})
                 for i, k in enumerate(match)]
        apart = [(k, va, vb) for k, va, vb in apart if not va & vb]
        why = ("; ".join(f"{k} is {_few(va)} in A but {_few(vb)} in B"
                         for k, va, vb in apart)
               if apart else "no done episode of A has all of these equal to one of B")
    return (f"no pair could be formed on {', '.join(match)}: {why} (A, {a_label}: "
            f"{_counts(a, keys_b, match)}; B, {b_label}: {_counts(b, keys_a, match)})")


def cmd_compare(args: argparse.Namespace) -> int:
    from ..analysis.data import AnalysisError
    try:
        a_label, a, b_label, b = _arms(args)
        _check_keys(a, b, args.match, args.per)
        _check_mixes((("A", a_label, a), ("B", b_label, b)), args.match, args.by)
        rows = compare(a, b, a_label=a_label, b_label=b_label, match=args.match,
                       per=args.per, seed=args.seed)
        if rows[-1][1].n_pairs == 0:
            raise AnalysisError(_no_pairs(a_label, a, b_label, b, args.match))
    except AnalysisError as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    from ..analysis.reliability import format_reliability, reliability
    from ..report.side_by_side import differing_tasks, format_differences
    try:
        task_rows, arm_rows = reliability({f"A: {a_label}": a, f"B: {b_label}": b}, args.k,
                                          seed=args.seed)
    except AnalysisError as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    pairs = differing_tasks(a, b, args.match) if args.tasks is not None else []
    if args.json:
        print(json.dumps(_as_json(rows, task_rows, arm_rows, pairs, args), indent=2))
        return 0
    print(format_comparison(rows, per=args.per, match=args.match))
    excluded = [(name, sum(e.is_infra_error for e in arm))
                for name, arm in (("A", a), ("B", b))]
    if any(n for _, n in excluded):
        print("not scored (infrastructure errors): "
              + ", ".join(f"{n} in {name}" for name, n in excluded))
    print()
    print(format_reliability(arm_rows))
    if args.tasks is not None:
        print()
        print(format_differences(pairs, args.match, limit=args.tasks or None))
    return 0


def _as_json(rows, task_rows, arm_rows, pairs, args) -> dict:
    """``compare --json``: the comparison rows, reliability and (with --tasks) the pairs."""
    from dataclasses import asdict

    from ..analysis.reliability import reliability_json

    def num(value):
        return value if not isinstance(value, float) or math.isfinite(value) else None

    data = {"match": list(args.match), "per": args.per,
            "comparison": [{"row": label, **{k: num(v) for k, v in asdict(c).items()}}
                           for label, c in rows],
            "reliability": reliability_json(task_rows, arm_rows)}
    if args.tasks is not None:
        shown = pairs[:args.tasks] if args.tasks else pairs
        data["tasks"] = [{**dict(zip(args.match, d.key)), "mean_a": d.mean_a,
                          "mean_b": d.mean_b, "diff": d.diff, "job_a": d.episode_a.job_id,
                          "job_b": d.episode_b.job_id} for d in shown]
    return data


def add_compare_parser(commands) -> argparse.ArgumentParser:
    """Add ``compare`` to the ``llm-eval`` subcommands."""
    parser = commands.add_parser(
        "compare", help="compare two arms (runs, models, prompts...) on the same tasks",
        description="Pair the done episodes of arm A and arm B on the same tasks and print, "
                    "per family and overall, both means, the difference B - A with its 95% "
                    "bootstrap interval (clustered by world) and a sign-flip permutation "
                    "p-value. Exit 2, with the reason, when the arms overlap, an arm mixes "
                    "models or arm settings on one task, a key is unknown, or no pair "
                    "forms.")
    parser.add_argument("run_a", metavar="RUN_A", help="run directory of arm A")
    parser.add_argument("run_b", metavar="RUN_B", nargs="?",
                        help="run directory of arm B (default: RUN_A; one run needs both "
                             "--a and --b, or --by, and the arms may not share an episode)")
    parser.add_argument("--a", action="append", type=_selection, metavar="KEY=VALUE",
                        help="keep arm A's episodes with this setting (repeatable); an arm "
                             "must be one model and one set of arm settings per task")
    parser.add_argument("--b", action="append", type=_selection, metavar="KEY=VALUE",
                        help="keep arm B's episodes with this setting (repeatable)")
    parser.add_argument("--by", metavar="KEY",
                        help="split one run into two arms by a setting with two values "
                             "(e.g. model, prompt)")
    parser.add_argument("--match", nargs="+", default=list(DEFAULT_MATCH), metavar="KEY",
                        help="settings a pair shares (default: world family seed repeat); "
                             "the list replaces the default and keeps world and family (or "
                             "task); episodes of one arm equal on these are averaged, e.g. "
                             "--match world family seed repeat model pairs each model with "
                             "itself")
    parser.add_argument("--per", default="family", metavar="KEY",
                        help="one row per value of this setting (default: family)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the bootstrap and the permutations (default 0)")
    parser.add_argument("--k", nargs="+", type=integer_at_least(1), default=[1, 2, 3],
                        metavar="K",
                        help="pass@k and pass^k over each task's seeds for these k "
                             "(default 1 2 3; success: score above 0.5)")
    parser.add_argument("--tasks", nargs="?", type=integer_at_least(0), const=10,
                        metavar="N",
                        help="also list the N pairs (default 10; 0: all) where the arms "
                             "differ most, with both job ids")
    parser.add_argument("--json", action="store_true",
                        help="print the comparison, reliability and task list as JSON")
    parser.set_defaults(handler=cmd_compare)
    return parser
