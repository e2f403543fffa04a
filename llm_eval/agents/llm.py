"""The LLM agent: plays every WorldTest phase through a model adapter.

Each ``act(observation)`` is one model call. The request holds the system prompt (the
variant's ``system.md``), the history kept so far and a user turn built from the observation:
the phase's instructions when a phase starts (``interaction.md``, then the family's
``mfp.md`` / ``cd.md`` / ``planning.md``; the interaction phase never names the test that
follows), the frame in the chosen rendering (masked cells shown as such), the phase payload
(the MFP recording and options, the CD run, the planning goal), the valid action forms as
tools (or, in text mode, the strict ``ACTION:`` line) and what was wrong with the last action.

The reply becomes one action (``adapters.read_reply``). An unusable reply (no tool call,
unknown tool, bad arguments, text without an action line) becomes ``InvalidReply``: not text,
so the phase counts it as an invalid action without a tick, and the adapter's message goes back
to the model on the next turn (as the error result of its tool calls). Retries happen in one
place, ``llm_eval.calls``; when they run out ``InfrastructureError`` propagates: the episode is
an infrastructure error, never a score. A provider that answers with its context-length error
(the request no longer fits the model's window) ends the episode where it stands:
``ContextExhausted``, scored as it is, with ``agent.refusal`` describing the refused call for
the transcript.

Under the ``autumnbench`` protocol (observations carry the harness's ``text``) a turn is that
text and the variant's ``turn.md`` filled with the offered action strings (the harness's
per-turn message, A3); the reply is read in the tag or text format verbatim, and a reply with
no action becomes ``noop`` with no message back, as in the harness (A5). Each reply's
``<scratchpad_add>`` / ``<scratchpad_del>`` tags keep the harness's scratchpad (A6,
``worldtest.autumnbench.scratchpad``; the ``notes`` tool's store when that tool is on); with
history k it is one user message after the system prompt instead of the one-line summary (A4).

History: ``"full"`` keeps every turn; an integer k keeps the last k turns, preceded by a
one-line summary of the earlier ones (and the current phase's instructions, if their turn was
dropped). ``"auto"`` keeps every turn while the request fits half the model's context window
(``context_window``: given, else LiteLLM's map; by ``adapters.tokens``' estimate, the one the
adapters and ``--estimate`` use); when the next request would not, the oldest turns are
dropped, summarised as k does, until it fits a quarter, and the kept turns then stay put until
the next cut. Images are sent for the current turn only, after its text; earlier turns keep
their text.

Prompt caching wants each request to begin with the previous one byte for byte
(``adapters.caching``): under ``"full"`` it does, except where a phase starts (its tools
change) and for the previous turn's images (replaced by a line saying they are not repeated,
after the text a cache marker ends on); under ``"auto"`` the same holds between cuts; under k
the kept window slides every turn, so only the system prompt and tools stay a cached prefix
(``prefix_stability``). Every request carries the episode's ``cache_key`` in its metadata
(OpenAI's ``prompt_cache_key``): the job's id, or a digest of the episode's first request.

``agent.calls`` is the record of every call of the episode (request with images as content
hashes, response with the provider's raw request and response, usage, cost, latency,
attempts, the action read), all scrubbed of secrets, for transcripts; each request and raw
request is stored as a patch on the previous call's (``llm_eval.transcripts.callstore``;
``expand_calls`` gives them whole; with ``record_calls=False`` a record is only the
call's usage, cost and attempts, all ``--estimate`` needs). ``agent.on_call``, if
set, is called as ``on_call(record, request)`` after each call (the record just appended and
the ``Request`` as sent, images included), so a transcript can be written as the episode runs.

Agent tools (``agent_tools``: ``notes``, ``autumn``, ``python``; ``llm_eval.agent_tools``) are
offered beside the actions: as provider tools in the tools format, as tags in the text and tag
formats, and described in the system prompt (the variant's ``tools.md``; a prompt without tools
is unchanged). A reply that calls tools and takes no action is answered with the tools' results
and the model is asked again within the same turn (the world does not move); a reply that
calls tools and also takes an action gets the results at the start of the next turn. A call
past a cap (``ToolCaps``) is refused: the reply is an invalid action whose message is the
refusal. ``agent.on_tool_call``, if set, sees each tool call's record after the model call
that made it (``on_call``), and ``agent.toolbox.records`` keeps them all.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from llm_eval.adapters import (
    ChosenAction,
    GenerationConfig,
    ImagePart,
    InvalidAction,
    Message,
    Request,
    TextPart,
    ToolResultPart,
    action_tools,
    create_adapter,
    next_turn_parts,
    read_reply,
    tag_format_instructions,
    text_format_instructions,
)
from llm_eval.adapters.base import Adapter
from llm_eval.adapters.classify import scrub
from llm_eval.adapters.replay import recording_key
from llm_eval.adapters.tokens import estimate_request

from ..agent_tools import AgentToolbox, ToolCaps, text_calls
from ..agent_tools.notes import Notes
from ..agent_tools.toolbox import strip_text_calls
from ..autumn import Frame
from ..calls import CONTEXT_OVERFLOW, CallPolicy, FatalProviderError, call
from ..pricing import PriceBook, default_prices
from ..render import check_format, render_compact, render_json, render_png
from ..render.diff import render_diff
from ..transcripts.callstore import CallEncoder
from ..vocabulary import PhaseName
from ..worldtest.episode import ContextExhausted
from ..worldtest.observation import EpisodeStart, Observation
from ..worldtest.protocols import protocol as protocol_profile
from .prompts import PromptSet, cells_text, load_prompts, observation_header

__all__ = ["LLMAgent", "InvalidReply", "parse_rendering", "RENDERINGS", "context_window_of",
           "prefix_stability"]

RENDERINGS = ("compact", "json", "diff", "png")
_SUMMARY_ACTIONS = 60   # at most this many earlier actions are listed in the summary line
AUTO_SHARE = 0.5        # history auto: a request stays under this share of the context window
AUTO_CUT = 0.25         # and a cut drops the oldest turns until it is under this share


def parse_rendering(text: str | tuple[str, ...]) -> tuple[str, ...]:
    """``"compact"``, ``"compact+png"`` (or a tuple) -> the formats, each checked by name."""
    names = text if isinstance(text, tuple) else tuple(text.replace(",", "+").split("+"))
    formats = tuple(dict.fromkeys(check_format(n.strip()) for n in names if n.strip()))
    if not formats:
        raise ValueError("a rendering needs at least one format (compact, json, diff, png)")
    return formats


@dataclass(frozen=True, slots=True)
class InvalidReply:
    """What ``act`` returns for an unusable model reply: not text, so the phase counts it as
    an invalid action; the model is told ``message`` on its next turn."""

    message: str

    def __repr__(self) -> str:
        return f"<invalid reply: {self.message}>"


@dataclass(slots=True)
class _Turn:
    """One observation and the reply to it."""

    phase: PhaseName
    text: str                       # the user text as sent (instructions, header, frame)
    standalone: str                 # the same, readable without the turn before it
    action: str = ""
    reply: ChosenAction | InvalidAction | None = None
    assistant: Message | None = None
    images: tuple[ImagePart, ...] = field(default_factory=tuple)
    message: Message | None = None  # as sent once past, when not the first turn kept
    # agent tools: (assistant message, user message of the results) for each reply that only
    # called tools, in order; ``results``: the results of the tools called by the final reply,
    # which start the next turn's message
    exchanges: list[tuple[Message, Message]] = field(default_factory=list)
    results: tuple = ()
    after: str = ""                 # text sent after the images (autumnbench image mode, A7)
    keep_images: bool = False       # sent again in later requests, as the harness's history does


class LLMAgent:
    """An agent that asks a model for every action (see the module docstring)."""

    refusal: dict[str, Any] | None   # the call refused for its length

    def __init__(self, model: str, *, rendering: str | tuple[str, ...] = "compact",
                 prompt_variant: str = "default",
                 history: Literal["full", "auto"] | int = "full",
                 config: GenerationConfig | None = None, policy: CallPolicy | None = None,
                 tool_mode: Literal["tools", "text", "tags"] | None = None,
                 adapter: Adapter | None = None, adapter_options: dict[str, Any] | None = None,
                 prices: PriceBook | None = None, context_window: int | None = None,
                 cache_key: str | None = None, record_calls: bool = True,
                 agent_tools: str | tuple[str, ...] = (), tool_caps: ToolCaps | None = None,
                 tool_seed: int = 1, tool_runner: Any = None,
                 python_runner: Callable[..., Any] | None = None) -> None:
        self.model = model
        self.rendering = parse_rendering(rendering)
        self.prompts: PromptSet = load_prompts(prompt_variant)
        if history not in ("full", "auto") and (isinstance(history, bool)
                                                or not isinstance(history, int) or history < 1):
            raise ValueError(f"history must be 'full', 'auto' or a positive number of turns, "
                             f"got {history!r}")
        self.history = history
        self.context_window = context_window
        if history == "auto" and context_window is None:
            self.context_window = context_window_of(model, prices)
        self.cache_key = cache_key
        self.record_calls = record_calls
        config = config or GenerationConfig()
        if tool_mode is not None and tool_mode != config.tool_mode:
            config = config.model_copy(update={"tool_mode": tool_mode})
        self.config = config
        self.policy = policy or CallPolicy()
        self.prices = prices   # None: LiteLLM's price map
        self.adapter = adapter if adapter is not None else create_adapter(
            model, **(adapter_options or {}))
        self.name = model
        self.calls: list[dict[str, Any]] = []
        self.on_call: Callable[[dict[str, Any], Request], None] | None = None
        self.on_tool_call: Callable[[dict[str, Any]], None] | None = None
        toolbox = AgentToolbox(agent_tools, tool_caps, seed=tool_seed, runner=tool_runner,
                               python=python_runner)
        self.toolbox: AgentToolbox | None = toolbox if toolbox.tools else None
        if self.toolbox is not None:
            self.prompts.check_tools()   # the variant's tools.md, or a PromptError naming it
        self._tool_schemas = self.toolbox.schemas() if self.toolbox is not None else ()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._start_episode(None)

    # -- the Agent interface ---------------------------------------------------------------------
    def reset(self, start: EpisodeStart) -> None:
        self._start_episode(start)

    def act(self, observation: Observation) -> str | InvalidReply:
        turn = self._turn(observation)
        self._turns.append(turn)
        if self.toolbox is not None:
            self.toolbox.observe(observation)
        while True:   # one model call, and one more after each reply that only called tools
            request = self._request(observation)
            try:
                result = self._run(call(self.adapter, request, policy=self.policy,
                                        prices=self.prices, priced_as=self.model))
            except FatalProviderError as exc:
                if exc.reason != CONTEXT_OVERFLOW:
                    raise
                self._turns.pop()   # never answered
                self.refusal = {"index": len(self.calls), "phase": observation.phase,
                                "step": observation.step, "request_hash": recording_key(request),
                                "message": scrub(str(exc)), "provider": exc.provider,
                                "attempts": scrub([a.to_dict() for a in exc.attempts])}
                raise ContextExhausted(str(exc)) from exc
            response = result.response
            used = len(self.toolbox.records) if self.toolbox is not None else 0
            reply = self._read(observation, response, turn)
            if self._autumnbench:   # the harness's scratchpad tags (A6)
                self._keep_scratchpad(response.text, used)
            if reply is None:   # the reply only called tools: their results go back
                self.calls.append(self._record(observation, request, result, None))
                self._emit(request, used)
                continue
            if isinstance(reply, InvalidAction) and self._autumnbench:
                reply = ChosenAction("noop")   # the harness's fallback, no message back (A5)
            turn.reply = reply
            turn.assistant = _assistant_message(response)
            turn.action = reply.action if isinstance(reply, ChosenAction) else "(invalid)"
            self.calls.append(self._record(observation, request, result, reply))
            self._emit(request, used)
            if isinstance(reply, ChosenAction):
                if self.toolbox is not None:
                    self.toolbox.acted(reply.action)
                return reply.action
            return InvalidReply(reply.message)

    def _emit(self, request: Request, used: int) -> None:
        """Hand the last model call's record, then its tool calls' (from ``used`` on), to the
        hooks."""
        if self.on_call is not None:
            self.on_call(self.calls[-1], request)
        if self.toolbox is not None and self.on_tool_call is not None:
            for record in self.toolbox.records[used:]:
                self.on_tool_call(record.to_dict())

    def _read(self, obs: Observation, response, turn: _Turn) -> ChosenAction | InvalidAction | None:
        """The reply's action (``read_reply``), after running the agent tools it calls; None
        when it only called tools (their results are then the turn's latest exchange)."""
        mode = self.config.tool_mode
        if self.toolbox is None:
            return read_reply(response, obs.actions, mode)
        ops = self.toolbox.operations
        if mode == "tools":
            calls = [(c.id, c.name, c.arguments) for c in response.tool_calls if c.name in ops]
            rest = response.model_copy(update={"tool_calls": tuple(
                c for c in response.tool_calls if c.name not in ops)})
        else:
            calls = [(None, name, args) for name, args in text_calls(response.text, ops)]
            rest = response.model_copy(update={"text": strip_text_calls(response.text)})
        if not calls:
            return read_reply(response, obs.actions, mode)
        results, refused = [], []
        for call_id, name, arguments in calls:
            record = self.toolbox.call(name, arguments, phase=obs.phase, step=obs.step,
                                       call_index=len(self.calls))
            if record.status == "refused":
                refused.append((call_id, record.result))
            else:
                results.append((call_id, name, record))
        parts = _result_parts(results, mode)
        others = tuple(c.id for c in rest.tool_calls)
        if refused:   # over a cap: the turn ends with an invalid action saying so
            turn.results = parts
            return InvalidAction(refused[0][1], tuple(i for i, _ in refused if i) + others)
        if mode == "tools" and not others:
            action = None
        else:
            action = read_reply(rest, obs.actions, mode)
            if isinstance(action, InvalidAction) and mode != "tools":
                action = None   # text and tags: no action line besides the tool tags
        if action is None:
            turn.exchanges.append((_assistant_message(response), Message.user(*parts)))
            return None
        turn.results = parts
        return action

    def _scratchpad(self) -> Notes:
        """The harness's scratchpad under the autumnbench profile: the ``notes`` tool's store
        when that tool is on (one text for both), else the agent's own."""
        if self.toolbox is not None and "notes" in self.toolbox.tools:
            return self.toolbox.notes
        return self._own_scratchpad

    def _keep_scratchpad(self, reply: str, used: int) -> None:
        """Apply a reply's ``<scratchpad_add>`` / ``<scratchpad_del>`` (after its tool calls)."""
        from ..worldtest.autumnbench.scratchpad import update

        store = self._scratchpad()
        if self.toolbox is not None:
            # a replay answers notes_write from the transcript without running it: its effect
            # on the shared text is applied here, so the scratchpad shown replays exactly
            for record in self.toolbox.records[used:]:
                if record.tool == "notes_write" and record.status == "ok":
                    store.text = record.arguments["text"]
        store.text = update(store.text, reply)

    def close(self) -> None:
        """Release the adapter's connections and the agent's event loop."""
        if self._loop is not None:
            loop, self._loop = self._loop, None
            try:
                _cancel_pending(loop)   # a call a Ctrl-C interrupted ends here, not after
                loop.run_until_complete(self.adapter.aclose())
            finally:
                _close_loop(loop)

    # -- state -----------------------------------------------------------------------------------
    def _start_episode(self, start: EpisodeStart | None) -> None:
        self.calls = []
        # the protocol's profile says how turns read: the autumnbench protocol's observations
        # carry the harness's text, shown as it is
        self._autumnbench = (start is not None
                             and protocol_profile(start.protocol).shows_harness_text)
        toolbox = getattr(self, "toolbox", None)   # None while __init__ has not set it
        if toolbox is not None:
            toolbox.start_episode(self._autumnbench)
        self.refusal = None
        self._turns: list[_Turn] = []
        self._phase: PhaseName | None = None
        self._own_scratchpad = Notes()   # its scratchpad when the notes tool is off (A6)
        self._instructions: dict[str, str] = {}
        self._seen: Frame | None = None
        self._grid_size: int | None = None
        self._first = 0                  # history auto: the first turn kept
        self._system_message: Message | None = None
        self._first_message: dict[int, Message] = {}   # the first kept turn's, by its index
        # (first kept turn, answered turns covered, their messages after the system prompt's):
        # the last request's prefix, extended by the next one rather than rebuilt
        self._prefix: tuple[int, int, list[Message]] | None = None
        self._forms: tuple[tuple, tuple, tuple] | None = None   # (forms, tools, their dicts)
        self._episode_key = self.cache_key

    @property
    def prefix_stability(self) -> str:
        return prefix_stability(self.history)

    def _run(self, coroutine):
        # one loop per agent (the SDK clients keep their connections), run directly: in the
        # main thread asyncio.Runner swaps the SIGINT handler twice a call, and each swap
        # formats the running task's repr (a tenth of a stand-in call's time)
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(coroutine)

    # -- building a turn -------------------------------------------------------------------------
    def _turn(self, obs: Observation) -> _Turn:
        if isinstance(obs.text, str) != self._autumnbench:   # a check, not how it is told
            raise ValueError(f"a {'autumnbench' if self._autumnbench else 'worldtest'} "
                             f"observation expected in an episode of the "
                             f"{'autumnbench' if self._autumnbench else 'worldtest'} protocol "
                             "(reset the agent with the episode's EpisodeStart first)")
        if self._autumnbench:           # the autumnbench protocol: the harness's text
            from ..worldtest.autumnbench.view import JPEG, model_view

            self._phase = obs.phase
            shown, jpegs = model_view(obs)   # image mode: a line and the images (A7)
            body = self.prompts.render("turn", header=",\n".join(obs.offered), frame=shown)
            after = ""
            if jpegs and body.startswith(shown):   # the line, the images, the instructions
                body, after = shown, body[len(shown):].lstrip("\n")
            return _Turn(phase=obs.phase, text=body, standalone=body, after=after,
                         images=tuple(ImagePart.from_bytes(j, JPEG) for j in jpegs),
                         keep_images=bool(jpegs))
        previous = self._turns[-1] if self._turns else None
        notes: list[str] = []
        instructions = ""
        phase_start = obs.phase != self._phase
        if phase_start:
            self._phase = obs.phase
            self._seen = None
            instructions = self._phase_instructions(obs)
            self._instructions[obs.phase] = instructions
        if obs.invalid and not (previous and isinstance(previous.reply, InvalidAction)):
            notes.append(f"Your last action was invalid: {obs.invalid}")
        if obs.message:
            notes.append(obs.message)
        header = "\n".join([*notes, observation_header(obs)])
        frame_text, full_text, images = self._frame(obs)
        if len(obs.frames) > 1:      # ticks_per_action > 1: every intermediate frame is shown
            ticks = self._ticks(obs)
            frame_text, full_text = f"{ticks}\n\n{frame_text}", f"{ticks}\n\n{full_text}"
        body = self.prompts.render("turn", header=header, frame=frame_text)
        standalone = self.prompts.render("turn", header=header, frame=full_text)
        if self.config.tool_mode in ("text", "tags"):
            answer = (text_format_instructions if self.config.tool_mode == "text"
                      else tag_format_instructions)(obs.actions)
            body, standalone = f"{body}\n\n{answer}", f"{standalone}\n\n{answer}"
        if instructions:
            body, standalone = f"{instructions}\n\n{body}", f"{instructions}\n\n{standalone}"
        if phase_start and obs.planning is not None and "png" in self.rendering:
            goal = render_png(obs.planning.goal, coordinates=True,
                              goal=obs.planning.goal_cells)
            images = (ImagePart.from_bytes(goal), *images)
        return _Turn(phase=obs.phase, text=body, standalone=standalone, images=images)

    def _ticks(self, obs: Observation) -> str:
        """The frames of the last action's ticks before the last one (which is the frame)."""
        render = render_json if self.rendering == ("json",) else render_compact
        count = len(obs.frames)
        return "\n\n".join(f"After tick {i + 1} of {count} of your last action:\n{render(f)}"
                             for i, f in enumerate(obs.frames[:-1])) + \
            f"\n\nAfter tick {count} of {count}:"

    def _phase_instructions(self, obs: Observation) -> str:
        actions = "\n".join(f"- `{f.text()}`: {f.help}" if f.help else f"- `{f.text()}`"
                            for f in obs.actions)
        size = obs.frame.size
        match obs.phase:
            case "interaction":
                return self.prompts.render("interaction", budget=obs.budget_left,
                                           actions=actions, grid_size=size)
            case "mfp":
                mfp = obs.mfp_view
                x, y, w, h = mfp.mask
                mask = (f"x={x}, y={y}, width {w}, height {h} (columns {x}-{x + w - 1}, "
                        f"rows {y}-{y + h - 1})")
                return self.prompts.render(
                    "mfp", budget=obs.budget_left, actions=actions, mask=mask,
                    masked_from=mfp.masked_from, last_frame=len(mfp.frames) - 1,
                    option_count=len(mfp.options), recording=self._recording(obs),
                    options=_options_text(mfp.options))
            case "cd":
                return self.prompts.render("cd", budget=obs.budget_left, actions=actions,
                                           declare_after=obs.cd_view.declare_after)
            case "planning":
                view = obs.planning_view
                by_colour: dict[str, list[tuple[int, int]]] = {}
                for x, y in view.goal_cells:
                    by_colour.setdefault(view.goal.grid[y][x], []).append((x, y))
                goal = "\n".join(f"- {colour}: {cells_text(cells)}"
                                 for colour, cells in sorted(by_colour.items()))
                return self.prompts.render("planning", horizon=view.horizon, actions=actions,
                                           goal=goal, goal_count=len(view.goal_cells))
        raise ValueError(f"unknown phase {obs.phase!r}")

    def _recording(self, obs: Observation) -> str:
        """The MFP recording: frame 0 in full, then each step's action and changes."""
        view = obs.mfp_view
        full = "json" if self.rendering == ("json",) else "compact"
        lines = [f"Recording: frame 0 of {len(view.frames) - 1}:",
                 render_json(view.frames[0]) if full == "json" else render_compact(view.frames[0])]
        for i, action in enumerate(view.actions):
            before, after = view.frames[i], view.frames[i + 1]
            lines.append(f"step {i}: action `{action}` -> frame {i + 1}: "
                         f"{render_diff(after, before)}")
        return "\n".join(lines)

    def _frame(self, obs: Observation) -> tuple[str, str, tuple[ImagePart, ...]]:
        """(the frame as sent, the same without a diff, images)."""
        frame = obs.frame
        browsing = obs.mfp is not None or (obs.cd is not None and obs.cd.declared)
        texts, full, images = [], [], []
        for fmt in self.rendering:
            match fmt:
                case "json":
                    texts.append(render_json(frame))
                    full.append(texts[-1])
                case "compact":
                    texts.append(render_compact(frame))
                    full.append(texts[-1])
                case "diff":
                    if self._seen is None or browsing:
                        texts.append(render_compact(frame))
                    else:
                        texts.append("Changes since the last frame: "
                                     + render_diff(frame, self._seen))
                    if not any(f in self.rendering for f in ("json", "compact")):
                        full.append(render_compact(frame))
                case "png":
                    images.append(ImagePart.from_bytes(
                        render_png(frame, coordinates=True, masked=obs.masked)))
        self._seen = frame
        if images and not texts:
            texts.append("The frame is the image attached.")
            full.append("(the frame was shown as an image)")
        return "\n\n".join(texts), "\n\n".join(full) or "\n\n".join(texts), tuple(images)

    # -- the request -----------------------------------------------------------------------------
    def _system(self) -> str:
        formats = {"json": "a JSON list of rows, each a list of colour names",
                   "compact": "a character grid: a legend maps characters to colours, column "
                              "numbers run along the top and row numbers down the left",
                   "diff": "the cells that changed since the previous frame, as "
                           "`before -> after: (x,y) ...` (a full grid when a phase starts)",
                   "png": "an image with grid lines and coordinates; hidden cells are hatched"}
        rendering = "Frames are shown as " + "; and as ".join(formats[f] for f in self.rendering)
        rendering += ". A cell named `transparent` is hidden from you."
        if self.config.tool_mode == "text":
            answer = ("You have no tools: think as you like, then end every reply with exactly "
                      "one line `ACTION: <action>` naming one valid action.")
        elif self.config.tool_mode == "tags":
            answer = ("You have no tools: think as you like, then give the action you choose "
                      "inside <action>...</action>; if you write several, the last counts.")
        elif self.toolbox is not None:
            answer = ("Act by calling exactly one of the action tools offered, once per reply. "
                      "The action tools change with the phase and always list the actions "
                      "valid now; the helper tools described below are always offered and "
                      "take no action.")
        else:
            answer = ("Act by calling exactly one of the tools offered, once per reply. The "
                      "tools change with the phase and always list the actions valid now.")
        system = self.prompts.render("system", grid_size=self._grid_size or "N",
                                     rendering=rendering, answer_format=answer)
        if self.toolbox is None:
            return system
        return system + "\n\n" + self.prompts.render_tools(self.toolbox, self.config.tool_mode)

    def _kept(self) -> int:
        """Index of the first turn kept in the request (the current turn is the last)."""
        if not isinstance(self.history, int):   # "full" ("auto" requests are cut by _request)
            return 0
        return max(0, len(self._turns) - 1 - self.history)

    def _request(self, obs: Observation) -> Request:
        if self._grid_size is None:
            self._grid_size = obs.frame.size
        if self.history != "auto":
            return self._build(obs, self._kept())
        window = self.context_window
        assert window is not None   # __init__ sets it under "auto"
        request = self._build(obs, self._first)
        if estimate_request(request) <= window * AUTO_SHARE:
            return request
        # a cut: the fewest oldest turns dropped that bring the request under AUTO_CUT
        low, high = self._first + 1, len(self._turns) - 1
        while low < high:
            middle = (low + high) // 2
            if estimate_request(self._build(obs, middle)) <= window * AUTO_CUT:
                high = middle
            else:
                low = middle + 1
        # never past the current turn: a turn that alone outgrows the share is still sent (the
        # provider says whether it fits: a context-length error ends the episode, scored)
        self._first = min(max(self._first, low), len(self._turns) - 1)
        return self._build(obs, self._first)

    def _build(self, obs: Observation, first: int) -> Request:
        """The request keeping the turns from ``first`` on."""
        if self._system_message is None:
            self._system_message = Message.system(self._system())
        last = len(self._turns) - 1
        if self._prefix is not None and self._prefix[0] == first and self._prefix[1] <= last:
            _, start, done = self._prefix   # the answered turns' messages, built before
        else:
            start, done = first, [self._system_message]
        messages = done
        for i in range(start, len(self._turns)):
            turn = self._turns[i]
            current = i == last
            if current:
                self._prefix = (first, last, done)
                messages = list(done)
            # a past turn's message is built once and then sent as the same object (the
            # first kept one once per cut): each request repeats the last one's messages
            known = turn.message if i > first else self._first_message.get(first)
            if known is not None and not current:
                messages.append(known)
                for exchange in turn.exchanges:
                    messages += exchange
                messages.append(turn.assistant)
                continue
            keep = current or turn.keep_images
            images = turn.images if keep else ()
            if i == first:
                parts = [TextPart(text=self._opening(first) + turn.standalone)]
            else:
                before = self._turns[i - 1]
                parts = [*before.results, *next_turn_parts(before.reply, turn.text)]
            if turn.images and not keep:
                parts.append(TextPart(text=f"({len(turn.images)} image(s) of this turn not "
                                           f"repeated)"))
            message = Message.user(*parts, *images,
                                   *((TextPart(text=turn.after),) if turn.after else ()))
            messages.append(message)
            for exchange in turn.exchanges:   # replies that only called tools, and results
                messages += exchange
            if not current:
                if i > first:
                    turn.message = message
                else:
                    self._first_message = {first: message}
                messages.append(turn.assistant)
        if self._autumnbench and isinstance(self.history, int):
            # the harness's cut history (A4): its scratchpad right after the system prompt,
            # where other protocols get the one-line summary (``_opening``)
            from ..worldtest.autumnbench.scratchpad import message_text

            messages.insert(1, Message.user(TextPart(text=message_text(
                self._scratchpad().text))))
        forms = tuple(obs.actions)
        if self._forms is None or self._forms[0] != forms:   # a phase's forms: built once
            self._forms = (forms, action_tools(forms), tuple(f.to_dict() for f in forms))
        tools = () if self.config.tool_mode != "tools" else self._forms[1] + self._tool_schemas
        request = Request(messages=tuple(messages), tools=tools, config=self.config)
        if self._episode_key is None:    # no job id: a digest of the episode's first request
            self._episode_key = "llm-eval-" + request.canonical_hash()[:16]
        # volatile: not part of the request's hash; read by the adapters (cache_key) and the
        # stand-in model of --estimate (the valid actions)
        return request.model_copy(update={"metadata": {
            "phase": obs.phase, "step": obs.step, "turn": len(self._turns) - 1,
            "cache_key": self._episode_key, "actions": self._forms[2],
            "offered": list(obs.offered)}})

    def _opening(self, first: int) -> str:
        """What the first kept turn needs when earlier ones are dropped: a one-line summary,
        the phase's instructions, the last reply's error. None under the autumnbench profile,
        whose cut history shows the scratchpad instead (``_build``)."""
        if first == 0 or self._autumnbench:
            return ""
        dropped = self._turns[:first]
        actions = [t.action for t in dropped]
        listed = actions[-_SUMMARY_ACTIONS:]
        more = f"... ({len(actions) - len(listed)} more), " if len(actions) > len(listed) else ""
        invalid = sum(1 for t in dropped if isinstance(t.reply, InvalidAction))
        text = (f"[{first} earlier turns not shown; your actions in them, oldest first: "
                f"{more}{', '.join(listed)}; {invalid} invalid]\n\n")
        phase = self._turns[first].phase
        if any(t.phase == phase for t in dropped):   # the phase's first turn was dropped
            text += self._instructions[phase] + "\n\n"
        before = self._turns[first - 1].reply
        if isinstance(before, InvalidAction):
            text += f"invalid action: {before.message}\n\n"
        return text

    # -- the record ------------------------------------------------------------------------------
    def _record(self, obs: Observation, request: Request, result, reply) -> dict[str, Any]:
        """The call as a transcript stores it: its request (images as hashes) and the raw
        request as patches on the previous call's, long strings capped (``callstore``)."""
        response = result.response
        if not self.record_calls:   # usage and cost only (an estimate)
            return {"index": len(self.calls), "phase": obs.phase, "step": obs.step,
                    "usage": response.usage.model_dump(mode="json"),
                    "cost": result.cost.to_dict() if result.cost is not None else None,
                    "attempts": [a.to_dict() for a in result.attempts]}
        if not self.calls:   # the episode's first call: a new chain of requests
            self._call_store = CallEncoder()
        sent = request.canonical()
        for message in sent["messages"]:
            for part in message["parts"]:
                if part.get("type") == "image":
                    data = ImagePart.model_validate(part)
                    part["data"] = f"<image sha256={data.sha256()}>"
        stored = self._call_store.encode(
            sent, response.model_dump(mode="json", exclude={"raw_request"}),
            response.raw_request)
        rest = scrub({
            "usage": response.usage.model_dump(mode="json"),
            "cost": result.cost.to_dict() if result.cost is not None else None,
            "latency_s": response.latency_s,
            "attempts": [a.to_dict() for a in result.attempts],
            "action": reply.action if isinstance(reply, ChosenAction) else None,
            "invalid_reply": reply.message if isinstance(reply, InvalidAction) else None,
        })
        return {"index": len(self.calls), "phase": obs.phase, "step": obs.step,
                "request_hash": recording_key(request), **stored, **rest}


def prefix_stability(history: str | int) -> str:
    """How far each request repeats the previous one under ``history`` (module docstring):
    ``"whole"``, ``"between cuts"`` (auto) or ``"system and tools"`` (k turns)."""
    if history == "full":
        return "whole"
    return "between cuts" if history == "auto" else "system and tools"


def context_window_of(model: str, prices: PriceBook | None = None) -> int:
    """The context window of ``model`` in LiteLLM's map, for history ``auto``; a model the map
    does not know needs it given (``ValueError`` saying how)."""
    window = (prices or default_prices()).context_window(model)
    if window is None:
        raise ValueError(f"history auto needs the context window of {model}, which LiteLLM's "
                         f"map does not give: set it (--context-window N, or context_window: "
                         f"in the sweep spec)")
    return window


def _assistant_message(response) -> Message:
    message = Message.from_response(response)
    if not message.parts:   # providers refuse an empty assistant turn
        message = message.model_copy(update={"parts": (TextPart(text="(empty reply)"),)})
    return message


def _result_parts(results, mode: str) -> tuple:
    """The tools' results as the model gets them: one tool result per call in the tools
    format (an error result when the tool said what was wrong), else one text part."""
    if mode == "tools":
        return tuple(ToolResultPart(call_id=call_id, text=record.result,
                                    is_error=record.status != "ok")
                     for call_id, _, record in results)
    if not results:
        return ()
    return (TextPart(text="\n\n".join(f"Result of {name}:\n{record.result}"
                                      for _, name, record in results)),)


def _options_text(options) -> str:
    lines = ["Options (rows top to bottom, colour names):"]
    for k, option in enumerate(options):
        lines.append(f"option {k}: {json.dumps([list(row) for row in option])}")
    return "\n".join(lines)


def _cancel_pending(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left on an agent's loop (a call a Ctrl-C interrupted) and let it end."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Close an agent's event loop as ``asyncio.Runner.close`` would: cancel what is left,
    finish async generators and the default executor."""
    try:
        _cancel_pending(loop)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()
