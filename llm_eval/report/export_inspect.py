"""Open our runs in inspect_ai: each arm of a run directory as one inspect_ai eval log.

``export_inspect(run_dir, log_dir)`` writes ``<log_dir>/<arm>.eval`` per arm (``by_arm``)
through inspect_ai's own log API (``EvalLog`` ... ``write_eval_log``; the ``inspect`` extra),
so ``inspect view --log-dir LOGDIR`` and inspect_ai's analysis functions read them. What maps:

- one sample per episode: ``id`` the job id, ``epoch`` the repeat + 1, ``input`` the task and
  seed, ``target`` empty (the hidden half of a task is not exported);
- ``messages``: the system prompt of the first model call, then per call the last user
  message of its request (images as ``[image]``), the reply's text with its tool calls
  (``ToolCall``: id, function, arguments), and the action it became as the tool's answer
  (or a user line ``action: ...`` without tool calls); a local agent (random, oracle) has
  no model calls: each observation and action is a user and an assistant line;
- ``scores["worldtest"]``: the score, with ``raw_reward``, family and ``ended`` in its
  metadata; an episode that was not done has no score and its error as the sample's
  ``error``;
- ``model_usage``: the job's token totals and cost; ``metadata``: the job's settings,
  status and transcript file;
- the log: ``eval.model`` the arm's model, ``eval.metadata`` the arm and run, the results
  (mean score over done episodes, samples scored), the dates from the run store.

What does not map: frames (inspect has no grid type: the frame is in the user message when
the rendering sent text, else ``[image]``), retries and latencies of calls, thinking text
(not stored in messages), the interval and reliability figures (``report``/``compare``),
inspect's event timeline (``events`` is left empty).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import LlmEvalError

__all__ = ["export_inspect", "InspectMissing", "episode_messages"]

SCORER = "worldtest"


class InspectMissing(LlmEvalError):
    """inspect_ai is not installed (the optional extra)."""


def _require():
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise InspectMissing("export inspect needs inspect_ai: pip install "
                             "'llm-eval[inspect]' (or pip install inspect-ai)") from None


def _text_of(message: dict[str, Any]) -> str:
    parts = []
    for part in message.get("parts") or []:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append(str(part.get("text", "")))
        elif isinstance(part, dict):
            parts.append(f"[{part.get('type', 'part')}]")
    return "\n".join(parts)


def episode_messages(path: Path) -> tuple[list[Any], dict[str, Any]]:
    """The transcript's conversation as inspect_ai chat messages (module docstring), and its
    score event's ``raw_reward`` and ``result`` (empty when it has none)."""
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
    )
    from inspect_ai.tool import ToolCall

    from ..transcripts import TranscriptStream

    messages: list[Any] = []
    local: list[Any] = []     # a local agent's lines: used when no model call is found
    scored: dict[str, Any] = {}
    open_calls: list[ToolCall] = []
    saw_call = False
    for event in TranscriptStream(path):
        if event.type == "score":
            scored = {"raw_reward": event.raw_reward, "result": event.result}
        elif event.type == "model_call":
            request = event.request or {}
            turns = [m for m in request.get("messages") or [] if isinstance(m, dict)]
            if not saw_call:
                for m in turns:
                    if m.get("role") == "system":
                        messages.append(ChatMessageSystem(content=_text_of(m)))
                        break
            saw_call = True
            user = next((m for m in reversed(turns) if m.get("role") == "user"), None)
            if user is not None:
                messages.append(ChatMessageUser(content=_text_of(user)))
            response = event.response
            open_calls = [ToolCall(id=str(c.get("id") or f"call-{event.index}-{i}"),
                                   function=str(c.get("name")),
                                   arguments=c.get("arguments")
                                   if isinstance(c.get("arguments"), dict) else {})
                          for i, c in enumerate(response.get("tool_calls") or [])]
            messages.append(ChatMessageAssistant(content=str(response.get("text") or ""),
                                                 tool_calls=open_calls or None,
                                                 model=response.get("model")))
        elif event.type == "observation" and not saw_call:
            obs = event.observation
            local.append(ChatMessageUser(content=f"{event.phase} step {obs.get('step')}"))
        elif event.type == "action":
            answer = event.action + ("" if event.valid else " (invalid"
                                     + (f": {event.message}" if event.message else "") + ")")
            if open_calls:
                for call in open_calls:
                    messages.append(ChatMessageTool(content=f"action: {answer}",
                                                    tool_call_id=call.id,
                                                    function=call.function))
                open_calls = []
            elif saw_call:
                messages.append(ChatMessageUser(content=f"action: {answer}"))
            else:
                local.append(ChatMessageAssistant(content=answer))
    return (messages if saw_call else local), scored


def _usage(episode) -> dict[str, Any]:
    from inspect_ai.model import ModelUsage

    usage = episode.usage
    if not usage or not usage.get("calls"):
        return {}
    inp, out = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return {episode.model: ModelUsage(
        input_tokens=inp, output_tokens=out, total_tokens=inp + out,
        reasoning_tokens=usage.get("reasoning_tokens"),
        input_tokens_cache_read=usage.get("cache_read_tokens"),
        input_tokens_cache_write=usage.get("cache_write_tokens"),
        total_cost=episode.cost_usd)}


def _sample(episode):
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.scorer import Score

    messages, scored = (episode_messages(episode.transcript)
                        if episode.transcript is not None and episode.transcript.is_file()
                        else ([], {}))
    scores = None
    error = None
    if episode.is_done:
        scores = {SCORER: Score(value=episode.score, metadata={
            "family": episode.family, "ended": episode.ended,
            "raw_reward": scored.get("raw_reward"), "result": scored.get("result")})}
    else:
        error = EvalError(message=f"job {episode.status}: not scored", traceback="",
                          traceback_ansi="")
    return EvalSample(
        id=episode.job_id, epoch=int(episode.repeat or 0) + 1,
        input=f"{episode.task} seed {episode.seed}", target="", messages=messages,
        scores=scores, error=error, model_usage=_usage(episode),
        metadata={"settings": episode.settings, "status": episode.status,
                  "transcript": str(episode.transcript) if episode.transcript else None,
                  "cost_usd": episode.cost_usd})


def _protocol(episodes) -> str:
    return "+".join(sorted({str(e.settings.get("protocol", "worldtest")) for e in episodes}))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:80] or "arm"


def export_inspect(run_dir: str | Path, log_dir: str | Path) -> list[Path]:
    """Write one inspect_ai log per arm of ``run_dir`` into ``log_dir``; returns the paths."""
    _require()
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )

    from ..analysis.data import AnalysisError, load_episodes
    from .card import cards_of, group_arms

    episodes = load_episodes([run_dir])
    if not episodes:
        raise AnalysisError(f"{run_dir}: the run holds no job to export")
    arms = group_arms(episodes)
    cards = {card["arm"]: card for card in cards_of(arms, str(run_dir))}
    log_dir = Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for label, chosen in arms.items():
        card = cards[label]
        first = card["dates"]["first_start"] or datetime.now(timezone.utc).isoformat()
        done = [e for e in chosen if e.is_done]
        samples = [_sample(e) for e in chosen]
        metrics = ({"mean": EvalMetric(name="mean", value=sum(e.score for e in done)
                                       / len(done))} if done else {})
        log = EvalLog(
            status="success" if len(done) == len(chosen) else "error",
            eval=EvalSpec(created=first, task=f"llm_eval/{_protocol(chosen)}",
                          task_id=card["anchor"], model=chosen[0].model,
                          dataset=EvalDataset(name="llm-eval tasks", samples=len(samples),
                                              sample_ids=[e.job_id for e in chosen]),
                          config=EvalConfig(),
                          metadata={"arm": label, "run_dir": str(Path(run_dir).resolve()),
                                    "runs": card["runs"], "counts": card["counts"],
                                    "model_snapshot": card["model"]["reported_snapshot"]}),
            results=EvalResults(total_samples=len(samples), completed_samples=len(done),
                                scores=[EvalScore(name=SCORER, scorer=SCORER,
                                                  scored_samples=len(done),
                                                  unscored_samples=len(samples) - len(done),
                                                  metrics=metrics)]),
            stats=EvalStats(started_at=first,
                            completed_at=card["dates"]["last_finish"] or first),
            samples=samples)
        if log.status == "error":
            from inspect_ai.log import EvalError

            log.error = EvalError(message=f"{len(chosen) - len(done)} of {len(chosen)} jobs "
                                          f"not done: {card['counts']}", traceback="",
                                  traceback_ansi="")
        path = log_dir / f"{_slug(label)}.eval"
        write_eval_log(log, str(path))
        written.append(path)
    return written
