"""Reproduction cards: for each arm of a run directory, the recipe and provenance of its number.

``build_cards(run_dir, arm=None)`` returns one card (a plain dict, JSON-ready) per arm
(``analysis.stats.by_arm``: a model plus the arm settings that vary among its episodes). A
card holds:

- ``rerun``: a sweep spec (the run's own stored spec narrowed to this arm's model, worlds,
  families, seeds, repeats, prompts, renderings and budgets) and the command that runs it
  (``llm-eval run SPEC -o NEW_DIR``). The spec is expanded here and its job ids compared with
  the arm's: ``rerun.exact`` is true only when they are the same set; otherwise ``extra`` and
  ``missing`` list the ids that differ (a task file or prompt changed since, or the arm is
  not a product of settings) so nobody is told a recipe is exact when it is not;
- ``versions``: what the transcripts' headers recorded (``recorded``: llm-eval, Python,
  transcript schema; ``sdks``: each of openai, anthropic, litellm -> the distinct versions
  the arm's jobs ran with, None meaning not installed), ``sdks_unrecorded`` of ``headers``
  transcripts whose header has no SDK versions (runs from before they were recorded), and
  ``installed``: llm-eval and its git commit from a checkout where the card was made (the
  run does not record a commit), plus the SDKs installed here only when some job did not
  record its own: the fallback is labelled, never passed off as the run's;
- the settings: protocol, suite and digest, prompt variant and digest, rendering, tool mode,
  history, budgets and compute knobs, temperature, model seed, seeds and repeats (each as the
  distinct values the arm's jobs have);
- ``model``: the model id as sent (``model_requested`` of the recorded replies) and the
  snapshot the provider reported (``model`` of the recorded replies), with call counts;
- ``prices``: the price sources the headers recorded; ``dates``: first start, last finish;
- ``counts``: jobs, done, ended on context, infrastructure errors, fatal, failed, unfinished.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

__all__ = ["build_cards", "cards_of", "group_arms", "format_card", "arm_spec", "card_anchor",
           "CardError"]

from ..errors import LlmEvalError
from ..sdk_versions import SDKS, sdk_versions

# settings a card lists as the arm's distinct values (budgets and compute knobs included)
CARD_SETTINGS = ("protocol", "suite", "prompt", "prompt_digest", "rendering", "tool_mode",
                 "history", "interaction_steps", "horizon", "max_consecutive_invalid",
                 "ticks_per_action", "reasoning_effort", "thinking_budget", "max_output_tokens",
                 "temperature", "model_seed", "context_window", "task_file", "task_digest",
                 "agent_tools", "tool_calls_per_episode", "tool_calls_per_turn")
# spec list fields narrowed to the arm's values, from the job setting that feeds each
_LISTS = {"worlds": "world", "families": "family", "seeds": "seed", "prompts": "prompt",
          "renderings": "rendering"}
_BUDGETS = ("interaction_steps", "reasoning_effort", "thinking_budget", "max_output_tokens",
            "history", "tool_calls_per_episode", "tool_calls_per_turn")


class CardError(LlmEvalError):
    """A card that cannot be made: an arm that the run does not have (named, with its arms)."""


def card_anchor(arm: str) -> str:
    """The HTML id of an arm's card in the report (stable, ASCII)."""
    import hashlib

    return "card-" + hashlib.sha256(arm.encode()).hexdigest()[:10]


def _distinct(values) -> list[Any]:
    seen: list[Any] = []
    for value in values:
        if value not in seen:
            seen.append(value)
    try:
        return sorted(seen, key=lambda v: (v is None, str(type(v)), v))
    except TypeError:
        return seen


def arm_spec(stored: dict[str, Any], settings: list[dict[str, Any]],
             name: str) -> dict[str, Any]:
    """The run's stored spec narrowed to the jobs whose ``settings`` are given (one model)."""
    spec = json.loads(json.dumps(stored))
    spec["name"] = name
    spec["models"] = _distinct(s["model"] for s in settings)
    for field, key in _LISTS.items():
        values = [s[key] for s in settings if key in s]
        if values:
            spec[field] = _distinct(values)
    if "agent_tools" in spec:   # a job without tools leaves the setting out
        spec["agent_tools"] = _distinct(s.get("agent_tools", "none") for s in settings)
    spec["repeats"] = max(s.get("repeat", 0) for s in settings) + 1
    budgets = dict(spec.get("budgets") or {})
    for key in _BUDGETS:
        values = [s[key] for s in settings if key in s]
        if values:
            budgets[key] = _distinct(values)
    spec["budgets"] = budgets
    return spec


def _spec_check(spec: dict[str, Any], ids: set[str]) -> dict[str, Any]:
    from ..sweep.spec import Sweep

    try:
        expanded = {job.id for job in Sweep.from_data(spec, "the card's spec").expand()}
    except LlmEvalError as exc:
        return {"exact": False, "error": str(exc), "extra": [], "missing": sorted(ids)}
    return {"exact": expanded == ids, "jobs": len(expanded),
            "extra": sorted(expanded - ids), "missing": sorted(ids - expanded)}


def _git_commit() -> str | None:
    """The commit of the checkout llm_eval is imported from, or None (not a checkout)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _installed() -> dict[str, Any]:
    """llm-eval and its checkout's commit where the card is made."""
    from .. import __version__

    return {"llm_eval": __version__, "git_commit": _git_commit()}


def _from_transcripts(paths: list[Path]) -> dict[str, Any]:
    """What the arm's transcripts recorded: header versions, suites, price sources, and the
    model ids sent and reported in every model call's reply."""
    from ..transcripts import TranscriptError, TranscriptStream

    versions: dict[str, Counter] = defaultdict(Counter)
    sdks: dict[str, Counter] = {name: Counter() for name in SDKS}
    headers = sdks_unrecorded = 0
    suites: Counter = Counter()
    prices: Counter = Counter()
    sent: Counter = Counter()
    reported: Counter = Counter()
    unreadable: list[str] = []
    for path in paths:
        try:
            for event in TranscriptStream(path):
                if event.type == "header":
                    headers += 1
                    recorded_sdks = event.versions.get("sdks")
                    if isinstance(recorded_sdks, dict):
                        for name in SDKS:
                            sdks[name][json.dumps(recorded_sdks.get(name))] += 1
                    else:
                        sdks_unrecorded += 1
                    for key, value in event.versions.items():
                        if key == "sdks":
                            continue
                        if key == "prices":
                            prices[json.dumps(value, sort_keys=True)] += 1
                        elif key != "prompt":
                            versions[key][json.dumps(value, sort_keys=True)] += 1
                    if event.suite:
                        suites[json.dumps(event.suite, sort_keys=True)] += 1
                elif event.type == "model_call":
                    response = event.response
                    sent[str(response.get("model_requested"))] += 1
                    reported[str(response.get("model"))] += 1
        except (TranscriptError, OSError) as exc:
            unreadable.append(f"{path}: {exc}")
    return {
        "recorded_versions": {k: [json.loads(v) for v in c] for k, c in versions.items()},
        "sdks": {name: _distinct(json.loads(v) for v in c) for name, c in sdks.items() if c},
        "headers": headers, "sdks_unrecorded": sdks_unrecorded,
        "suites": [json.loads(s) for s in suites],
        "prices": [json.loads(p) for p in prices],
        "model_sent": dict(sent), "model_reported": dict(reported),
        "unreadable_transcripts": unreadable}


def build_cards(run_dir: str | Path, arm: str | None = None) -> list[dict[str, Any]]:
    """One card per arm of ``run_dir`` (module docstring), or only ``arm``'s."""
    from ..analysis.data import load_episodes
    from ..analysis.stats import arm_key

    run_dir = Path(run_dir)
    arms = group_arms(load_episodes([run_dir]))
    if arm is not None and arm not in arms:
        raise CardError(f"--arm {arm}: no such arm in {run_dir} (arms: "
                        f"{', '.join(sorted(arms, key=arm_key))})")
    return cards_of({arm: arms[arm]} if arm is not None else arms, str(run_dir))


def group_arms(episodes: list) -> dict[str, list]:
    """``episodes`` grouped by arm label (``by_arm``), each list holding the episodes as
    loaded (their ``model`` setting unchanged)."""
    from ..analysis.stats import by_arm

    arms: dict[str, list] = defaultdict(list)
    for original, named in zip(episodes, by_arm(episodes)):
        arms[named.model].append(original)
    return dict(arms)


def cards_of(arms: dict[str, list], where: str, *,
             installed: bool = True) -> list[dict[str, Any]]:
    """The card of each arm (label -> its episodes), in arm order; ``where`` names the run
    directories in the rerun command. ``installed`` False leaves out what is installed here
    (the report: the same runs give the same bytes whatever commit the checkout is at)."""
    from ..analysis.stats import arm_key
    from ..runstore import STORE_FILE, RunStore

    runs: dict[str, dict] = {}
    rows: dict[tuple[str, str], Any] = {}
    for run_dir in _distinct(e.run_dir for chosen in arms.values() for e in chosen):
        with RunStore(Path(run_dir) / STORE_FILE, readonly=True) as store:
            for run in store.runs():
                runs[run["id"]] = run
                rows.update({(row.run_id, row.id): row for row in store.jobs(run["id"])})
    here = _installed() if installed else None
    cards = []
    for label in sorted(arms, key=arm_key):
        chosen = arms[label]
        settings = [e.settings for e in chosen]
        run_ids = _distinct(e.run_id for e in chosen)
        stored = runs.get(run_ids[-1], {}).get("spec", {})
        spec = arm_spec(stored, settings, f"card-{stored.get('name', 'run')}")
        ids = {e.job_id for e in chosen}
        job_rows = [rows[(e.run_id, e.job_id)] for e in chosen
                    if (e.run_id, e.job_id) in rows]
        starts = [r.started_at for r in job_rows if r.started_at]
        ends = [r.finished_at for r in job_rows if r.finished_at]
        recorded = _from_transcripts([e.transcript for e in chosen
                                      if e.transcript is not None and e.transcript.is_file()])
        cards.append({
            "arm": label, "anchor": card_anchor(label),
            "run_dirs": [str(d) for d in _distinct(e.run_dir for e in chosen)],
            "runs": run_ids,
            "rerun": {"command": "llm-eval run SPEC.yaml -o NEW_RUN_DIR "
                                 f"(SPEC.yaml: this spec; llm-eval card {where} --arm "
                                 f"'{label}' --spec SPEC.yaml writes it)",
                      "spec": spec, **_spec_check(spec, ids)},
            "versions": {"recorded": recorded["recorded_versions"], "sdks": recorded["sdks"],
                         "headers": recorded["headers"],
                         "sdks_unrecorded": recorded["sdks_unrecorded"],
                         "installed": None if here is None else
                         {**here, **(sdk_versions() if recorded["sdks_unrecorded"] else {})}},
            "settings": {key: _distinct(s[key] for s in settings if key in s)
                         for key in CARD_SETTINGS if any(key in s for s in settings)},
            "model": {"as_sent": recorded["model_sent"],
                      "reported_snapshot": recorded["model_reported"],
                      "setting": _distinct(s["model"] for s in settings)},
            "suites": recorded["suites"], "prices": recorded["prices"],
            "seeds": _distinct(s.get("seed") for s in settings),
            "repeats": max(s.get("repeat", 0) for s in settings) + 1,
            "dates": {"first_start": min(starts) if starts else None,
                      "last_finish": max(ends) if ends else None},
            "counts": {"jobs": len(chosen), "done": sum(e.is_done for e in chosen),
                       "ended_on_context": sum(e.ended_on_context for e in chosen),
                       "infra_error": sum(e.is_infra_error for e in chosen),
                       "fatal": sum(e.is_fatal for e in chosen),
                       "failed": sum(e.status == "failed" for e in chosen),
                       "unfinished": sum(e.status in ("queued", "running") for e in chosen)},
            "unreadable_transcripts": recorded["unreadable_transcripts"]})
    return cards


def _line(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_line(v) for v in value) or "-"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_line(v)}" for k, v in value.items()) or "-"
    return "-" if value is None else str(value)


def _sdk_value(values: list[Any]) -> str:
    shown = ["not installed" if v is None else str(v) for v in values]
    if len(shown) > 1:
        return " and ".join(shown) + " (differs across jobs)"
    return shown[0]


def _sdk_lines(versions: dict[str, Any]) -> list[str]:
    """The SDK versions the run recorded, and where some jobs did not record them, that
    fact and (``llm-eval card`` only) what is installed here, labelled as such."""
    lines = []
    if versions["sdks"]:
        lines.append("SDK versions recorded by the run: " + ", ".join(
            f"{name}: {_sdk_value(values)}" for name, values in versions["sdks"].items()))
    installed = versions["installed"]
    if versions["sdks_unrecorded"]:
        lines.append(f"SDK versions NOT recorded by {versions['sdks_unrecorded']} of "
                     f"{versions['headers']} job(s) (run before llm-eval recorded them)")
        if installed is not None:
            lines.append("  installed where this card was made, NOT necessarily what ran: "
                         + ", ".join(f"{name}: {_line(installed.get(name))}" for name in SDKS))
        else:
            lines.append("  (llm-eval card shows the versions installed where it is made)")
    if installed is not None:
        lines.append("llm-eval where this card was made: " + _line(
            {k: installed[k] for k in ("llm_eval", "git_commit")}))
    return lines


def format_card(card: dict[str, Any]) -> str:
    """A card as text: the recipe, then provenance, settings and counts."""
    import yaml

    rerun = card["rerun"]
    lines = [f"# arm: {card['arm']}", f"run directory: {_line(card['run_dirs'])} "
             f"(runs {_line(card['runs'])})", "", "rerun:", f"  {rerun['command']}"]
    if rerun["exact"]:
        lines.append(f"  the spec makes exactly this arm's {rerun['jobs']} job id(s)")
    else:
        lines.append("  NOT exact: " + (rerun.get("error") or
                     f"{len(rerun['extra'])} extra and {len(rerun['missing'])} missing "
                     "job id(s)"))
    lines.append("  spec:")
    lines += ["    " + line for line in
              yaml.safe_dump(rerun["spec"], sort_keys=True).splitlines()]
    lines += ["", "versions recorded by the run: " + _line(card["versions"]["recorded"]),
              *_sdk_lines(card["versions"]),
              "", "model setting: " + _line(card["model"]["setting"]),
              "model id as sent (calls): " + _line(card["model"]["as_sent"]),
              "snapshot the provider reported (calls): "
              + _line(card["model"]["reported_snapshot"]),
              "price source: " + _line(card["prices"]),
              "suite: " + _line(card["suites"]), ""]
    lines += [f"{key}: {_line(values)}" for key, values in card["settings"].items()]
    lines += [f"seeds: {_line(card['seeds'])}; repeats: {card['repeats']}",
              f"dates: {card['dates']['first_start']} .. {card['dates']['last_finish']}",
              "counts: " + _line(card["counts"])]
    if card["unreadable_transcripts"]:
        lines.append("unreadable transcripts: " + _line(card["unreadable_transcripts"]))
    return "\n".join(lines)
