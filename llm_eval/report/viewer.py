"""The transcript viewer: each episode as nested ``<details>`` (no script), step by step.

Per episode: job, model, task, status, score, settings, and any error; per phase its steps;
an animated player (an APNG of every frame with its phase, step and action, up to
``PLAYER_MAX_BYTES``; ``export_gif.py``, no script); per step the observation frame as a PNG (rendered from the observation the agent got, masked
cells hatched), the model calls (the last user message of the request, the response text,
thinking and tool calls, the invalid reply if any, usage and cost, the images sent, read from
``images/<sha256>.png`` beside the transcript), and the action with its validity and message.

Sizes are capped (``ViewerLimits``): the steps shown per phase (the first and the last ones),
the characters of a message, the bytes of embedded images; every cut is stated in the page, as
is a string the transcript stored cut (``transcripts.cap``). A transcript is read as a stream
(requests rebuilt whole from their patches) holding only the steps the page shows.
All text goes through ``markup.tag``, which escapes it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .frames import frame_img, goal_figure, mfp_options
from .markup import Markup, join, png_uri, tag

__all__ = ["ViewerLimits", "Step", "PhaseView", "read_phases", "select_episodes",
           "has_transcript", "render_viewer", "render_episode"]

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass
class ViewerLimits:
    """How much of the transcripts the page holds (and a tally of what it left out)."""

    max_transcripts: int = 20
    max_steps_per_phase: int = 40
    max_text_chars: int = 4000
    max_image_bytes: int = 8_000_000
    image_bytes: int = 0
    images_left_out: int = 0

    def take_image(self, size: int) -> bool:
        """Whether an image of ``size`` bytes still fits the budget (and count it if so)."""
        if self.image_bytes + size > self.max_image_bytes:
            self.images_left_out += 1
            return False
        self.image_bytes += size
        return True


@dataclass
class Step:
    """One step of a phase: what the agent saw, the model calls it made, what it did;
    ``number`` is its place in the phase (from 0)."""

    phase: str
    observation: dict[str, Any] | None = None
    calls: list[Any] = field(default_factory=list)
    action: Any = None
    number: int = 0
    tools: list[Any] = field(default_factory=list)   # agent-tool calls (tool_call events)


@dataclass
class PhaseView:
    """A phase's steps: all of them, or with ``keep`` only the first and the last ones
    (``count`` says how many there were); ``first_observation`` is the phase's first."""

    name: str
    head: list[Step] = field(default_factory=list)
    tail: deque = field(default_factory=deque)
    count: int = 0
    end: Any = None
    first_observation: dict[str, Any] | None = None

    @property
    def steps(self) -> list[Step]:
        """The steps kept, in order."""
        return [*self.head, *self.tail]

    def add(self, step: Step, keep: tuple[int, int] | None) -> None:
        step.number = self.count
        self.count += 1
        if keep is None or len(self.head) < keep[0]:
            self.head.append(step)
        elif keep[1] > 0:
            if self.tail.maxlen != keep[1]:
                self.tail = deque(self.tail, maxlen=keep[1])
            self.tail.append(step)


def read_phases(events: Iterable[Any], keep: tuple[int, int] | None = None) -> list[PhaseView]:
    """Group a transcript's events into phases of steps (observation, model calls, action);
    ``keep=(first, last)``: keep only that many steps at each end of a phase, so a stream of
    events is read holding no more than the steps shown."""
    phases: list[PhaseView] = []
    step: Step | None = None

    def current_phase(name: str) -> PhaseView:
        if not phases or phases[-1].name != name or phases[-1].end is not None:
            phases.append(PhaseView(name))
        return phases[-1]

    def new_step(phase: str, observation: Any = None) -> Step:
        view = current_phase(phase)
        if view.first_observation is None and isinstance(observation, dict):
            view.first_observation = observation
        made = Step(phase, observation=observation)
        view.add(made, keep)
        return made

    for event in events:
        kind = event.type
        if kind == "phase_start":
            phases.append(PhaseView(event.phase))
            step = None
        elif kind == "observation":
            step = new_step(event.phase, event.observation)
        elif kind == "model_call":
            if step is None or step.action is not None:
                step = new_step(event.phase)
            step.calls.append(event)
        elif kind == "tool_call":
            if step is None or step.action is not None:
                step = new_step(event.phase)
            step.tools.append(event)
        elif kind == "action":
            if step is None or step.action is not None:
                step = new_step(event.phase)
            step.action = event
        elif kind == "phase_end":
            current_phase(event.phase).end = event
            step = None
    return phases


def has_transcript(episode: Any) -> bool:
    """Whether the episode's transcript file exists (a failed job may name one never written)."""
    return episode.transcript is not None and Path(episode.transcript).is_file()


def _sortable(value: Any) -> tuple:
    """Numbers in order, then anything else by its text (a store may hold odd settings)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))


def select_episodes(episodes: Sequence[Any], limit: int) -> list[Any]:
    """Up to ``limit`` episodes with a transcript: models take turns, and within a model every
    task is shown once before any task is shown twice. Ordered by model, task, seed."""
    def order(e: Any) -> tuple:
        return (str(e.task), _sortable(e.seed), _sortable(e.repeat), str(e.job_id))

    by_model: dict[str, list[Any]] = {}
    for episode in sorted(episodes, key=order):
        if has_transcript(episode):
            by_model.setdefault(str(episode.model), []).append(episode)
    queues = []
    for _, members in sorted(by_model.items()):
        seen: dict[str, int] = {}
        ranked = []
        for episode in members:   # the k-th episode of its task goes in round k
            rank = seen.get(str(episode.task), 0)
            seen[str(episode.task)] = rank + 1
            ranked.append((rank, order(episode), episode))
        queues.append([e for _, _, e in sorted(ranked, key=lambda r: (r[0], r[1]))])
    chosen: list[Any] = []
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return sorted(chosen, key=lambda e: (str(e.model), *order(e)))


# -- text ------------------------------------------------------------------------------------

def _clip(text: Any, limits: ViewerLimits) -> str:
    text = "" if text is None else str(text)
    if len(text) <= limits.max_text_chars:
        return text
    left = len(text) - limits.max_text_chars
    return text[:limits.max_text_chars] + f"\n... ({left} more characters not shown)"


def _last_user_text(request: dict[str, Any]) -> str:
    messages = request.get("messages") if isinstance(request, dict) else None
    for message in reversed(messages or []):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        texts = []
        for part in message.get("parts") or []:
            if isinstance(part, dict) and part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            elif isinstance(part, dict) and part.get("type") == "image":
                texts.append("[image]")
        return "\n".join(texts)
    return ""


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _usage_line(calls: Sequence[Any]) -> str:
    totals = {"input_tokens": 0.0, "output_tokens": 0.0, "reasoning_tokens": 0.0}
    cost, priced = 0.0, False
    for call in calls:
        usage = call.usage if isinstance(call.usage, dict) else {}
        for key in totals:
            totals[key] += _number(usage.get(key)) or 0.0
        usd = _number((call.cost or {}).get("usd")) if isinstance(call.cost, dict) else None
        if usd is not None:
            cost += usd
            priced = True
    text = (f"tokens in {totals['input_tokens']:.0f}, out {totals['output_tokens']:.0f}, "
            f"reasoning {totals['reasoning_tokens']:.0f}")
    return text + (f"; cost ${cost:.6f}" if priced else "; unpriced")


def _call_images(call: Any, images_dir: Path, limits: ViewerLimits) -> Markup:
    parts = []
    for digest in call.images or []:
        if not isinstance(digest, str) or not _SHA256.match(digest):
            parts.append(tag("span", f"(image with a malformed hash {digest!r} not shown)"))
            continue
        path = images_dir / f"{digest}.png"
        try:
            data = path.read_bytes()
            uri = png_uri(data)
        except (OSError, ValueError):
            parts.append(tag("span", f"(image {digest[:12]} not found or not PNG)"))
            continue
        if not limits.take_image(len(data)):
            parts.append(tag("span", f"(image {digest[:12]} left out: image budget used)"))
            continue
        parts.append(tag("img", src=uri, alt=f"image sent, sha256 {digest[:12]}",
                         class_="sent"))
    if not parts:
        return Markup("")
    return tag("details", tag("summary", f"{len(parts)} image(s) sent to the model"), *parts)


def _model_call(call: Any, images_dir: Path, limits: ViewerLimits) -> Markup:
    response = call.response if isinstance(call.response, dict) else {}
    pieces = [tag("div", f"model call {call.index}: {_usage_line([call])}"
                         + (f", {call.latency_s:.2f} s" if _number(call.latency_s) is not None
                            else "")
                         + (f", {len(call.attempts)} attempts" if len(call.attempts or []) > 1
                            else ""), class_="meta")]
    prompt = _last_user_text(call.request)
    if prompt:
        pieces.append(tag("details", tag("summary", "prompt (last user message)"),
                          tag("pre", _clip(prompt, limits))))
    thinking = response.get("thinking_text")
    if thinking:
        pieces.append(tag("details", tag("summary", "thinking"),
                          tag("pre", _clip(thinking, limits))))
    text = response.get("text")
    if text:
        pieces.append(tag("div", tag("span", "response text", class_="label"),
                          tag("pre", _clip(text, limits))))
    for tool_call in response.get("tool_calls") or []:
        if isinstance(tool_call, dict):
            arguments = tool_call.get("raw_arguments") or tool_call.get("arguments")
            pieces.append(tag("div", tag("span", "tool call", class_="label"), " ",
                              tag("code", _clip(f"{tool_call.get('name')}({arguments})",
                                                limits))))
    for cut in getattr(call, "truncated", None) or []:
        if isinstance(cut, dict):
            pieces.append(tag("div", _clip(f"stored cut to the cap: {cut.get('path')} (had "
                                           f"{cut.get('length')} characters, sha256 "
                                           f"{cut.get('sha256')})", limits), class_="meta"))
    if call.invalid_reply:
        pieces.append(tag("div", "invalid reply: ", tag("code", _clip(call.invalid_reply,
                                                                       limits)),
                          class_="bad"))
    pieces.append(_call_images(call, images_dir, limits))
    return tag("div", *pieces, class_="call")


def _action(action: Any, limits: ViewerLimits) -> Markup:
    if action is None:
        return tag("div", "no action recorded", class_="meta")
    verdict = tag("span", "valid", class_="ok") if action.valid else tag("span", "invalid",
                                                                        class_="bad")
    parts = [tag("span", "action", class_="label"), " ", tag("code", _clip(action.action,
                                                                           limits)),
             " ", verdict]
    if action.reward:
        parts.append(f", reward {action.reward:.3f}")
    if action.message:
        parts.append(tag("div", _clip(action.message, limits), class_="message"))
    return tag("div", *parts, class_="action")


def _step(number: int, step: Step, images_dir: Path, limits: ViewerLimits) -> Markup:
    observation = step.observation if isinstance(step.observation, dict) else None
    image = (frame_img(observation, f"frame at step {number}") if observation
             else tag("div", "(no observation)", class_="noframe"))
    body = []
    if observation is not None:
        facts = (f"#{number}: step {observation.get('step')}, budget left "
                 f"{observation.get('budget_left')}")
        if observation.get("invalid"):
            facts += f"; told: {observation.get('invalid')}"
        body.append(tag("div", _clip(facts, limits), class_="meta"))
    if step.calls:
        body.append(tag("div", _usage_line(step.calls), class_="meta"))
    body.extend(_model_call(call, images_dir, limits) for call in step.calls)
    body.extend(tag("div", tag("span", f"{t.tool} {t.status}", class_="label"),
                    tag("pre", _clip(t.result, limits)),
                    class_="bad" if t.status != "ok" else "call") for t in step.tools)
    body.append(_action(step.action, limits))
    return tag("li", tag("div", image, tag("div", *body, class_="stepbody"), class_="step"))


def _keep(limits: ViewerLimits) -> tuple[int, int]:
    """The steps a phase shows: the first ``cap - cap // 4`` and the last ``cap // 4``."""
    cap = max(1, limits.max_steps_per_phase)
    return cap - cap // 4, cap // 4


def _phase(phase: PhaseView, images_dir: Path, limits: ViewerLimits) -> Markup:
    head, tail = _keep(limits)
    items = [_step(step.number, step, images_dir, limits) for step in phase.head]
    if phase.count > len(phase.head) + len(phase.tail):
        left = phase.count - len(phase.head) - len(phase.tail)
        items.append(tag("li", f"... {left} steps not shown (the page keeps the first "
                               f"{head} and the last {tail} of each phase)", class_="gap"))
    items.extend(_step(step.number, step, images_dir, limits) for step in phase.tail)
    end = phase.end
    summary = f"{phase.name}: {phase.count} steps"
    if end is not None:
        summary += f", {end.invalid_actions} invalid, ended {end.ended}"
        if end.reward:
            summary += f", reward {end.reward:.3f}"
    goal = Markup("")
    first = phase.first_observation
    if phase.name == "planning" and first is not None:
        goal = goal_figure(first)
    elif phase.name == "mfp" and first is not None:
        goal = mfp_options(first)
    return tag("details", tag("summary", summary), goal,
               tag("ul", *items, class_="steps"), class_="phase")


def _score_text(score: Any) -> str:
    return f"{score:.3f}" if _number(score) is not None else "-"


PLAYER_MAX_BYTES = 400_000   # an episode's animation embedded in the page, at most


def _player(path: Path) -> Markup:
    """The episode as an animated PNG (``export_gif``: every frame with its phase, step and
    action), played by the browser with no script; a note instead when it would be larger
    than ``PLAYER_MAX_BYTES`` or there is no frame to draw."""
    from .export_gif import ExportError, animate, episode_frames

    try:
        data = animate(episode_frames(path), "png")
    except ExportError:
        return tag("div", "(no frames to animate)", class_="meta")
    if len(data) > PLAYER_MAX_BYTES:
        return tag("div", f"animation left out ({len(data) / 1e3:.0f} kB): llm-eval export "
                          f"gif {path.name} -o episode.gif", class_="meta")
    return tag("details", tag("summary", "watch the episode"),
               tag("img", src=png_uri(data), alt=f"animation of {path.name}",
                   class_="player"), class_="player")


def render_episode(episode: Any, limits: ViewerLimits) -> Markup:
    """One episode's ``<details>``: summary line, settings, errors, then its phases."""
    from ..transcripts import TranscriptError, TranscriptStream

    summary = tag("summary", tag("code", episode.job_id), " ", tag("b", episode.model), " ",
                  episode.task, " ", tag("span", episode.status, class_="status"),
                  f" score {_score_text(episode.score)}")
    settings = episode.settings if isinstance(episode.settings, dict) else {}
    rows = [tag("tr", tag("th", key), tag("td", "-" if value is None else _clip(value, limits)))
            for key, value in sorted(settings.items(), key=lambda kv: str(kv[0]))]
    body: list[object] = [tag("details", tag("summary", "settings"),
                              tag("table", *rows, class_="settings"))]
    error = getattr(episode, "error", None)
    if error:
        body.append(tag("div", "error: ", tag("code", _clip(error, limits)), class_="bad"))
    path = Path(episode.transcript)
    body.append(tag("div", f"transcript {path.name}", class_="meta"))
    stream = TranscriptStream(path)
    errors: list[Markup] = []

    def noted(events):   # the errors are shown above the phases
        for event in events:
            if event.type == "infrastructure_error":
                errors.append(tag("div", f"infrastructure error ({event.error_class}): ",
                                  tag("code", _clip(event.message, limits)), class_="bad"))
            elif event.type == "context_exhausted":
                errors.append(tag("div", f"ended on the model's context (model call "
                                         f"{event.index}, {event.phase} step {event.step}; "
                                         f"scored as it stood): ",
                                  tag("code", _clip(event.message, limits)), class_="bad"))
            elif event.type == "end" and event.error:
                errors.append(tag("div", f"ended {event.status}: ",
                                  tag("code", _clip(event.error, limits)), class_="bad"))
            yield event

    try:
        phases = read_phases(noted(stream), keep=_keep(limits))
    except (OSError, TranscriptError, UnicodeDecodeError) as exc:
        body.append(tag("div", f"transcript {path.name} could not be read: {exc}",
                        class_="bad"))
        return tag("details", summary, *body, class_="episode")
    if stream.torn is not None:
        body.append(tag("div", f"the transcript's last line ({stream.torn}) is torn",
                        class_="meta"))
    body.extend(errors)
    body.append(_player(path))
    images_dir = path.parent / "images"
    body.extend(_phase(phase, images_dir, limits) for phase in phases)
    return tag("details", summary, *body, class_="episode")


def render_viewer(episodes: Sequence[Any], limits: ViewerLimits) -> Markup:
    """The viewer section: the chosen episodes and a note of what was left out."""
    limits.image_bytes = limits.images_left_out = 0   # the image budget is per page
    chosen = select_episodes(episodes, limits.max_transcripts)
    with_transcript = sum(1 for e in episodes if has_transcript(e))
    notes = [f"{len(chosen)} of {len(episodes)} episodes shown"]
    if with_transcript > len(chosen):
        notes.append(f"{with_transcript - len(chosen)} transcripts left out "
                     f"(--max-transcripts {limits.max_transcripts}; models taken in turn)")
    if with_transcript < len(episodes):
        notes.append(f"{len(episodes) - with_transcript} episodes have no transcript")
    notes.append(f"at most {limits.max_steps_per_phase} steps per phase and "
                 f"{limits.max_text_chars} characters per message are shown")
    parts = [render_episode(e, limits) for e in chosen]
    if limits.images_left_out:
        notes.append(f"{limits.images_left_out} model-call images left out (image budget "
                     f"{limits.max_image_bytes} bytes)")
    return join([tag("p", "; ".join(notes) + ".", class_="note"), *parts])
