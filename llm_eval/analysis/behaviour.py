"""How an agent explored: the behaviour measures of docs/spec/worldtest.md 7, read from transcripts.

``behaviour_of(path)`` reads one transcript's ``action`` events (as a stream, once per version
of the file):

- ``actions_by_kind``: the interaction phase's actions by kind: ``click``, ``arrow`` (left,
  right, up, down), ``noop``, ``reset``, ``go-to-test`` and ``invalid`` (text that was not a
  valid action, whatever it said);
- ``actions``: the valid interaction actions, resets and ``go-to-test`` included (what the
  phase counts as steps), so ``reset_share = resets / actions`` is the episode result's;
- ``lcs_ratios``: one per reset, comparing the run before it with the run after it (a run is
  the sequence of world actions, as text, between the start of the phase or a reset and the
  next reset or the end of the phase): ``LCS(before, after) / max(len(before),
  len(after))``, where LCS is the length of their longest common subsequence. 1 means the
  agent replayed what it did, 0 that nothing was repeated in order. A reset between two
  empty runs compares nothing and gives no ratio; ``lcs_mean`` is None without any ratio;
- ``coverage``: the share of the program's on-clauses that fired during interaction (from the
  score event; None without one, or for a program without on-clauses);
- ``invalid_rate``: invalid actions over every action the agent sent, in both phases (the
  test phase's invalid answers show the same trouble with the action format).

Tool use (agent tools, ``llm_eval.agent_tools``; zero and None for an agent without them):

- ``tool_calls``: the agent-tool calls of the episode, refused ones included, and
  ``tool_calls_by_tool`` by operation; ``tool_refused``: those refused by a cap;
- ``hypotheses``: the ``autumn_check`` calls that ran, ``hypotheses_matched``: those whose
  program matched everything seen so far, ``hypothesis_match_rate``: their share (None
  without a hypothesis);
- ``tool_model_calls``: the model calls whose reply only called tools (no action), and
  ``tool_cost_usd``: what those calls cost (None when unpriced): the price of thinking with
  tools, beside the episode's total.

``behaviour_table(episodes)`` measures every done episode whose transcript exists;
``summarise(behaviours)`` gives each model's mean of every measure (over the episodes where
the measure is defined) and its episode count.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..actions import ARROWS
from ..pricing import source_of_record
from ..transcripts import TranscriptStream, job_of
from .data import Episode

__all__ = ["Behaviour", "behaviour_of", "behaviour_table", "summarise", "lcs_length",
           "lcs_ratio", "KINDS", "SUMMARY_MEASURES", "TOOL_MEASURES"]

INTERACTION = "interaction"
KINDS = ("click", "arrow", "noop", "reset", "go-to-test", "invalid")
SUMMARY_MEASURES = ("actions", "resets", "reset_share", "lcs_mean", "coverage",
                    "invalid_rate")
TOOL_MEASURES = ("tool_calls", "tool_refused", "hypotheses", "hypotheses_matched",
                 "hypothesis_match_rate", "tool_model_calls", "tool_cost_usd")


@dataclass(frozen=True)
class Behaviour:
    """The behaviour measures of one episode (module docstring); ``model`` is from the
    transcript's header."""

    job_id: str
    actions_by_kind: dict[str, int]
    actions: int
    resets: int
    reset_share: float
    lcs_ratios: list[float]
    lcs_mean: float | None
    coverage: float | None
    invalid_rate: float
    model: str = ""
    runs: list[list[str]] = field(default_factory=list)
    call_input_tokens: list[int] = field(default_factory=list)   # per model call, in order
    prices: str | None = None   # what priced its calls (``pricing.source_of_record``)
    agent_tools: str = "none"
    tool_calls: int = 0
    tool_calls_by_tool: dict[str, int] = field(default_factory=dict)
    tool_refused: int = 0
    hypotheses: int = 0
    hypotheses_matched: int = 0
    hypothesis_match_rate: float | None = None
    tool_model_calls: int = 0
    tool_cost_usd: float | None = None


def lcs_length(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The length of the longest common subsequence of ``a`` and ``b``."""
    if len(a) < len(b):
        a, b = b, a
    row = [0] * (len(b) + 1)
    for item in a:
        diagonal = 0
        for j, other in enumerate(b, start=1):
            above = row[j]
            row[j] = diagonal + 1 if item == other else max(row[j], row[j - 1])
            diagonal = above
    return row[-1]


def lcs_ratio(before: Sequence[Any], after: Sequence[Any]) -> float | None:
    """``lcs_length / max(len)``; None when both sequences are empty."""
    longest = max(len(before), len(after))
    return lcs_length(before, after) / longest if longest else None


def _kind(action: str) -> str:
    keyword = action.split()[0] if action.split() else ""
    return "arrow" if keyword in ARROWS else keyword


def behaviour_of(transcript_path: str | Path) -> Behaviour:
    """The behaviour measures of the episode recorded at ``transcript_path`` (read once per
    version of the file: the report and the knob checks ask for the same transcripts)."""
    path = Path(transcript_path)
    stat = path.stat()
    return _behaviour_cached(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4096)
def _behaviour_cached(path: str, mtime_ns: int, size: int) -> Behaviour:
    return _read_behaviour(path)


def _read_behaviour(transcript_path: str) -> Behaviour:
    """One pass over the transcript as a stream (calls as stored: only their usage counts)."""
    header = None
    counts = dict.fromkeys(KINDS, 0)
    runs: list[list[str]] = [[]]
    sent = invalid = 0
    input_tokens: list[int] = []
    coverage: float | None = None
    first_cost: dict | None = None
    tools: dict[str, int] = {}
    refused = hypotheses = matched = tool_turns = 0
    tool_costs: list[float | None] = []
    for n, event in enumerate(TranscriptStream(transcript_path, expand=False)):
        if n == 0 and event.type == "header":
            header = event
        elif event.type == "model_call":
            input_tokens.append(int(event.usage.get("input_tokens") or 0))
            if not first_cost and event.cost:
                first_cost = event.cost
            if event.action is None and event.invalid_reply is None:   # only called tools
                tool_turns += 1
                tool_costs.append((event.cost or {}).get("usd"))
        elif event.type == "tool_call":
            tools[event.tool] = tools.get(event.tool, 0) + 1
            if event.status == "refused":
                refused += 1
            elif event.tool == "autumn_check":
                hypotheses += 1
                matched += event.detail.get("status") == "matches"
        elif event.type == "score":
            coverage = _coverage(event)
        elif event.type == "action":
            sent += 1
            if not event.valid:
                invalid += 1
            if event.phase != INTERACTION:
                continue
            if not event.valid:
                counts["invalid"] += 1
                continue
            kind = _kind(event.action)
            counts[kind] = counts.get(kind, 0) + 1
            if kind == "reset":
                runs.append([])
            elif kind != "go-to-test":
                runs[-1].append(event.action)
    ratios = [r for r in (lcs_ratio(before, after) for before, after in zip(runs, runs[1:]))
              if r is not None]
    actions = sum(n for kind, n in counts.items() if kind != "invalid")
    resets = counts["reset"]
    return Behaviour(
        job_id=header.job_id if header else job_of(transcript_path),
        actions_by_kind=counts, actions=actions, resets=resets,
        reset_share=resets / actions if actions else 0.0, lcs_ratios=ratios,
        lcs_mean=sum(ratios) / len(ratios) if ratios else None,
        coverage=coverage, invalid_rate=invalid / sent if sent else 0.0,
        model=header.settings.get("model", "") if header else "", runs=runs,
        call_input_tokens=input_tokens,
        prices=source_of_record(header.versions if header else None, first_cost)
        if input_tokens else None,
        agent_tools=header.settings.get("agent_tools", "none") if header else "none",
        tool_calls=sum(tools.values()), tool_calls_by_tool=tools, tool_refused=refused,
        hypotheses=hypotheses, hypotheses_matched=matched,
        hypothesis_match_rate=matched / hypotheses if hypotheses else None,
        tool_model_calls=tool_turns,
        tool_cost_usd=(round(sum(c for c in tool_costs if c is not None), 8) if all(c is not None for c in tool_costs)
                       else None))


def _coverage(score) -> float | None:
    """The share of on-clauses that fired, from the (last) score event."""
    coverage = score.result.get("coverage") or {}
    total = coverage.get("total") or 0
    return coverage.get("covered", 0) / total if total else None


def behaviour_table(episodes: Iterable[Episode]) -> list[Behaviour]:
    """The behaviour of every done episode whose transcript exists, in episode order."""
    return [behaviour_of(e.transcript) for e in episodes
            if e.is_done and e.transcript is not None and e.transcript.is_file()]


def summarise(behaviours: Iterable[Behaviour]) -> dict[str, dict[str, float | None]]:
    """Per model (sorted): ``episodes`` and the mean of each of ``SUMMARY_MEASURES`` over the
    episodes where it is defined (None where it never is)."""
    by_model: dict[str, list[Behaviour]] = defaultdict(list)
    for behaviour in behaviours:
        by_model[behaviour.model].append(behaviour)
    summary = {}
    for model in sorted(by_model):
        members = by_model[model]
        row: dict[str, float | None] = {"episodes": float(len(members))}
        measures = SUMMARY_MEASURES + (TOOL_MEASURES if any(b.agent_tools != "none"
                                                            for b in members) else ())
        for measure in measures:
            values = [getattr(b, measure) for b in members if getattr(b, measure) is not None]
            row[measure] = sum(values) / len(values) if values else None
        summary[model] = row
    return summary
