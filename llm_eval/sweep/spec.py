"""The sweep spec: what to run, as YAML validated by pydantic, and its expansion into jobs.

A spec names models, worlds, families, budgets (interaction steps, reasoning effort, thinking
budget, max output tokens, history window), prompt variants, renderings, seeds, repeats,
concurrency per provider and a spend cap; optionally a shorter planning ``horizon``, the
phases' ``max_consecutive_invalid`` and a ``model_seed`` sent to the provider (each in a job's
settings only when set, so earlier job ids stay). Every list field also accepts a single
value.
``Sweep.from_yaml(path)`` raises ``SpecError`` naming the file and the field at fault.

``protocol`` (``worldtest``, the default, or ``autumnbench``: the published harness's rules)
and ``ticks_per_action`` are settings of every job (in its settings only when not the default,
so earlier job ids stay). ``tasks`` lists directories or files of task files (e.g. made by
``llm-eval tasks import``) to run instead of the shipped tasks; ``worlds`` then picks among
their worlds (default: all of them). A task that takes its seed from the run (an imported
one) plays its world with the job's seed. Under ``autumnbench`` the tool mode defaults to
``tags`` and the prompt to ``autumnbench`` (``tools`` is refused: the harness's actions are
strings such as ``I found the change!``).
The published harness's settings are spec keys too (``stack_frames``, default true;
``skip_frames``, default false; ``harness_texts``: a checkout of the harness whose own
instruction texts to use, ``worldtest.autumnbench.texts``), autumnbench only and in a job's
settings only when not the default; under autumnbench a model's rendering ``png`` is the
harness's image mode (``worldtest.autumnbench.settings``).

``suite`` names a suite manifest (``llm_eval/suites/<name>.json``, e.g. ``v1``) to run instead
of picking shipped tasks by world: ``worlds`` then picks among the suite's worlds (default all
of them) and only the suite's (world, family) pairs are run. Every selected task's file and
programs must still have the digests the manifest records, or the spec is refused naming the
task and the file (and a job whose files changed since is ``failed`` with that message). A
job of a suite carries ``suite`` (its name) in its settings; jobs without one keep their ids.

``expand()`` is the product models x worlds x families x budgets x prompts x renderings x
seeds x repeats. Settings that only a model reads (prompt, rendering, history, generation
knobs) are dropped for the local agents (``random``, ``oracle``, ``simulator``), so they run
once per world, family, interaction budget, seed and repeat. A job's settings hold everything
that can change its result, including digests of the task file and the prompt templates; its
id is a short hash of
the settings' canonical JSON, so the same settings always give the same id.

``agent_tools`` lists the tool settings to sweep (``none``, ``notes``, ``notes+autumn+python``:
``llm_eval.agent_tools``), a model setting like the prompt; the caps on tool calls are budgets
(``budgets.tool_calls_per_episode``, ``budgets.tool_calls_per_turn``). A job with tools
carries ``agent_tools``, both caps and ``tools_prompt_digest`` (its prompt's ``tools.md``) in
its settings; a job without carries none of them, so earlier job ids stay.

``executor`` (``local``, the default, or ``ray``, with an optional ``ray_address``) says how
the jobs run, like ``concurrency``: it is in no job's settings, so it changes no job id and no
run id (``ray_executor.py``). ``check_first: true`` is ``llm-eval run --check-first`` (a real
call per feature of each model before the first job), in no job's settings either.

A sweep makes at most ``MAX_JOBS`` (1,000,000) jobs: the count (the product of the list
lengths, and ``repeats``) is checked before anything is expanded, and a larger spec is a
``SpecError`` naming the file, the line and the field that multiplies most.

A spec file is read within ``bounded_yaml``'s bounds: at most 1 MiB, 100,000 values with every
YAML alias expanded (an alias bomb anywhere, ``adapter_options`` and ``prices`` included, is
refused as it is read), 32 levels of nesting and 65,536 characters a value. The job count is
counted while the file is read too (``_JobCounter``: a lower bound from the distinct values
read so far), so a spec that lists too many seeds is refused at the seed that takes it over
``MAX_JOBS``, before the rest is read or anything is validated. Errors show the first 20
problems, each cut to a sane length.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..bounded_yaml import BoundedLoader, BoundsError, load_bounded, read_bounded, setting_path
from ..errors import LlmEvalError
from ..seeds import DEGENERATE_SEED_REASON, is_degenerate_seed
from ..tasks.models import FAMILIES
from ..vocabulary import LOCAL_AGENTS, Family
from ..worldtest.protocols import PROTOCOLS, WORLDTEST, ProtocolName
from ..worldtest.protocols import protocol as protocol_profile

if TYPE_CHECKING:
    from ..pricing import PriceBook

SettingPath = tuple[str | int, ...]   # a setting's path in a spec: mapping keys, list indexes

__all__ = ["Sweep", "Budgets", "Job", "SpecError", "job_id", "provider_of", "JOB_SETTINGS_VERSION",
           "LOCAL_AGENTS", "MAX_JOBS", "HUMAN_PREFIX", "is_human", "plays_without_model",
           "MCP_PREFIX", "is_mcp", "plays_from_outside",
           "executor_fields"]

JOB_SETTINGS_VERSION = 1
REPEAT_SEED_STRIDE = 1_000_003   # the random agent's seed for repeat r: seed + r * stride
MAX_JOBS = 1_000_000   # a sweep larger than this is a mistake, not a plan: refused unexpanded
MAX_ERRORS_SHOWN = 20   # a spec with thousands of bad values is told the first ones
#: a person playing in the browser (``llm-eval serve``): ``human/<participant>``
HUMAN_PREFIX = "human/"
_PARTICIPANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def is_human(model: str) -> bool:
    """Whether ``model`` names a person, ``human/<participant>``."""
    return model.startswith(HUMAN_PREFIX)


#: an outside agent playing through ``llm-eval mcp``: ``mcp/<client name>``
MCP_PREFIX = "mcp/"


def is_mcp(model: str) -> bool:
    """Whether ``model`` names an outside agent that played through MCP, ``mcp/<client>``."""
    return model.startswith(MCP_PREFIX)


def plays_from_outside(model: str) -> bool:
    """People and MCP clients: their actions come from outside (a replay plays the
    transcript's actions again)."""
    return is_human(model) or is_mcp(model)


def plays_without_model(model: str) -> bool:
    """The local agents, people and MCP clients: no prompt, rendering or generation settings
    (an MCP client's own model calls are not seen)."""
    return model in LOCAL_AGENTS or model.startswith(_OUTSIDE)   # called per value read


_OUTSIDE = (HUMAN_PREFIX, MCP_PREFIX)


class SpecError(LlmEvalError):
    """A sweep spec that cannot be read or does not validate; names the file and field."""


def _listed(value: Any) -> Any:
    return value if isinstance(value, list) else [value]


def _tools_setting(value: str) -> str:
    """One ``agent_tools`` setting, canonical (pydantic names its index when it is bad)."""
    from ..agent_tools import AgentToolsError, parse_agent_tools, tools_text

    try:
        return tools_text(parse_agent_tools(value))
    except AgentToolsError as exc:   # a ValueError: pydantic names the field and index
        raise ValueError(str(exc).removeprefix("agent_tools: ")) from None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Budgets(_Strict):
    """Compute budgets; each is a list of values to sweep (``None``: the default)."""

    interaction_steps: list[StrictInt | None] = Field(default=[None])
    reasoning_effort: list[Literal["minimal", "low", "medium", "high", "xhigh", "max"] | None] \
        = Field(default=[None])
    thinking_budget: list[StrictInt | None] = Field(default=[None])
    max_output_tokens: list[StrictInt | None] = Field(default=[None])
    history: list[Literal["full", "auto"] | StrictInt] = Field(default=["full"])
    # caps on agent-tool calls (None: the defaults); only jobs with agent_tools read them
    tool_calls_per_episode: list[StrictInt | None] = Field(default=[None])
    tool_calls_per_turn: list[StrictInt | None] = Field(default=[None])

    @field_validator("*", mode="before")
    @classmethod
    def _as_lists(cls, value: Any) -> Any:
        return _listed(value)

    @field_validator("interaction_steps", "thinking_budget", "max_output_tokens", "history",
                     "tool_calls_per_episode", "tool_calls_per_turn")
    @classmethod
    def _positive(cls, values: list[Any]) -> list[Any]:
        for v in values:
            if isinstance(v, int) and not isinstance(v, bool) and v < 1:
                raise ValueError(f"must be at least 1, got {v}")
        return values


class CallSettings(_Strict):
    """How hard model calls are tried (not part of job ids: they change whether a job is an
    infrastructure error, not its score)."""

    max_attempts: int = Field(default=6, ge=1)
    timeout: float = Field(default=300.0, gt=0)


class Sweep(_Strict):
    """A sweep spec (module docstring)."""

    name: str = "sweep"
    models: list[str] = Field(min_length=1)
    protocol: ProtocolName = "worldtest"
    tasks: list[str] = Field(default_factory=list)
    suite: str | None = None
    worlds: list[str] | None = Field(default=None, min_length=1, validate_default=True)
    families: list[Family] = Field(default=list(FAMILIES),
                                                              min_length=1)
    budgets: Budgets = Field(default_factory=Budgets)
    prompts: list[str] = Field(default=["default"], min_length=1)
    renderings: list[str] = Field(default=["compact"], min_length=1)
    # the agent's tools beside the actions (llm_eval.agent_tools): each a setting to sweep
    agent_tools: list[Annotated[str, AfterValidator(_tools_setting)]] = Field(
        default=["none"], min_length=1)
    tool_mode: Literal["tools", "text", "tags"] = "tools"
    ticks_per_action: int | None = Field(default=None, ge=1)
    # the published harness's settings (autumnbench; in job settings only when not default)
    stack_frames: bool = True
    skip_frames: bool = False
    harness_texts: str | None = None
    temperature: float | None = None
    seeds: list[StrictInt] = Field(default=[1], min_length=1)
    repeats: StrictInt = Field(default=1, ge=1)
    concurrency: dict[str, StrictInt] = Field(default_factory=dict)
    default_concurrency: int = Field(default=4, ge=1)
    spend_cap_usd: float | None = Field(default=None, ge=0)
    # a price file (its path, made absolute) or the same data inline: over LiteLLM's map
    # (``llm_eval.pricing``); not in job settings: prices change a cost, not a result
    prices: str | dict[str, Any] | None = None
    calls: CallSettings = Field(default_factory=CallSettings)
    adapter_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    # shorter episodes and a fixed sampling seed (only in job settings when set)
    horizon: int | None = Field(default=None, ge=1)
    max_consecutive_invalid: int | None = Field(default=None, ge=1)
    model_seed: int | None = None
    # history auto's context window for every model (else each model's from LiteLLM's map);
    # in the settings of history auto's jobs only
    context_window: StrictInt | None = Field(default=None, ge=256)
    # prompt caching (adapters.caching): not in job settings, it changes what a call costs,
    # not what the model is sent; recorded in each transcript's header
    cache: Literal["auto", "off"] = "auto"
    # how the jobs run (not in job settings): here, or as Ray tasks on a cluster
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    # ``llm-eval run`` checks every provider model before the first job (``--check-first``,
    # ``check_first.py``); in no job settings
    check_first: bool = False
    _book: Any = PrivateAttr(default=None)   # with_prices's book, else from ``prices``

    @field_validator("models", "worlds", "families", "prompts", "renderings", "seeds",
                     "tasks", "agent_tools", mode="before")
    @classmethod
    def _as_lists(cls, value: Any) -> Any:
        return value if value is None else _listed(value)

    @model_validator(mode="before")
    @classmethod
    def _protocol_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("protocol") in PROTOCOLS:
            profile = protocol_profile(data["protocol"])
            data = dict(data)
            data.setdefault("tool_mode", profile.default_tool_mode)
            data.setdefault("prompts", [profile.default_prompt])
        return data

    @model_validator(mode="after")
    def _protocol_tool_mode(self) -> "Sweep":
        profile = protocol_profile(self.protocol)
        if (why := profile.refusal_of_tool_mode(self.tool_mode)) is not None:
            raise ValueError(f"tool_mode {self.tool_mode} cannot play the {self.protocol} "
                             f"protocol ({why})")
        degenerate = [seed for seed in self.seeds if is_degenerate_seed(seed)]
        if degenerate and self.tasks and not profile.accepts_degenerate_seed:
            raise ValueError(f"seeds: {degenerate[0]} is refused for the tasks without a seed "
                             f"of their own: {DEGENERATE_SEED_REASON}; give another seed "
                             "(protocol autumnbench accepts it, as the published harness does)")
        if not profile.takes_ticks_per_action and self.ticks_per_action is not None:
            raise ValueError("ticks_per_action is a worldtest setting: the autumnbench "
                             "protocol runs the program's FRAME_RATE ticks per action")
        given = [name for name, changed in (("stack_frames", not self.stack_frames),
                                            ("skip_frames", self.skip_frames),
                                            ("harness_texts", self.harness_texts is not None))
                 if changed]
        if given and not profile.takes_autumnbench_settings:
            raise ValueError(f"{', '.join(given)}: the published harness's settings, for "
                             f"protocol autumnbench only")
        if profile.takes_autumnbench_settings:
            from ..worldtest.autumnbench.settings import render_mode_of

            for rendering in self.renderings:
                render_mode_of(rendering)    # text or image, not both
        return self

    @field_validator("ray_address")
    @classmethod
    def _ray_address(cls, address: str | None, info: ValidationInfo) -> str | None:
        if address is not None and info.data.get("executor") != "ray":
            raise ValueError("only with executor: ray (--executor ray)")
        return address

    @field_validator("harness_texts")
    @classmethod
    def _harness_texts(cls, directory: str | None) -> str | None:
        if directory is None:
            return None
        from ..worldtest.autumnbench.texts import HarnessTextsError, load_harness_texts

        try:
            return load_harness_texts(directory).folder
        except HarnessTextsError as exc:   # a ValueError names the field
            raise ValueError(str(exc)) from None

    @field_validator("tasks")
    @classmethod
    def _tasks(cls, paths: list[str]) -> list[str]:
        from ..tasks.store import load_tasks

        for path in paths:
            load_tasks(path)     # TaskFileError (an LlmEvalError) names the file
        return list(dict.fromkeys(paths))

    @field_validator("suite")
    @classmethod
    def _suite(cls, name: str | None, info: ValidationInfo) -> str | None:
        if name is None:
            return None
        from ..suites import SuiteError, load_suite

        if info.data.get("tasks"):
            raise ValueError("a suite is made of shipped tasks: give suite or tasks, not both")
        if "/" in name or "\\" in name or name.endswith(".json"):
            raise ValueError(f"{name!r}: a suite is named by its shipped manifest's name "
                             "(llm_eval/suites/NAME.json, e.g. v1), not by a path")
        try:
            load_suite(name)
        except SuiteError as exc:   # not a ValueError: pydantic would not name the field
            raise ValueError(str(exc)) from None
        return name

    @model_validator(mode="after")
    def _suite_files(self) -> "Sweep":
        """Every selected task of the suite still matches its manifest (a ``SuiteError``,
        which ``from_data`` reports naming the source)."""
        if self.suite is None:
            return self
        from ..suites import SuiteError, load_suite

        suite = load_suite(self.suite)
        worlds = self.chosen_worlds
        chosen = [e for e in suite.tasks if e.world in worlds and e.family in self.families]
        if not chosen:
            raise SuiteError(f"suite {suite.name} has no task of worlds "
                             f"{', '.join(worlds)} and families {', '.join(self.families)}")
        for entry in chosen:
            suite.verify(entry.id)
        return self

    @field_validator("models")
    @classmethod
    def _models(cls, models: list[str]) -> list[str]:
        from llm_eval.adapters import UnknownProviderError, parse_model

        for name in models:
            if name in LOCAL_AGENTS:
                continue
            if is_human(name):
                if not _PARTICIPANT.fullmatch(name.removeprefix(HUMAN_PREFIX)):
                    raise ValueError(f"{name!r}: a participant's name is 1 to 64 letters, "
                                     f"digits, '_', '.' or '-', starting with a letter or digit")
                continue
            if is_mcp(name):
                if not _PARTICIPANT.fullmatch(name.removeprefix(MCP_PREFIX)):
                    raise ValueError(f"{name!r}: an MCP client's name is 1 to 64 letters, "
                                     f"digits, '_', '.' or '-', starting with a letter or digit")
                continue
            if "/" not in name:
                close = difflib.get_close_matches(name, LOCAL_AGENTS, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"unknown agent {name!r}{hint}: expected random, oracle, "
                                 f"simulator or provider/model such as openai/gpt-5")
            try:
                parse_model(name)
            except UnknownProviderError as exc:
                raise ValueError(str(exc)) from None
        return list(dict.fromkeys(models))

    @field_validator("worlds")
    @classmethod
    def _worlds(cls, worlds: list[str] | None, info: ValidationInfo) -> list[str]:
        from ..worlds import world_names

        paths = info.data.get("tasks")
        suite = info.data.get("suite")
        if paths:
            from ..tasks.store import load_tasks

            known = sorted({t.world for p in paths for t in load_tasks(p)})
        elif suite:
            from ..suites import load_suite

            known = load_suite(suite).worlds
        else:
            known = world_names()
        if worlds is None:
            if paths or suite:
                return known
            raise ValueError("worlds: give the worlds to run (or all), or tasks: a directory "
                             "of task files, or suite: a suite's name")
        if worlds == ["all"]:
            return known
        for name in worlds:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                where = f" in suite {suite}" if suite else ""
                raise ValueError(f"unknown world {name!r}{where}{hint}")
        return list(dict.fromkeys(worlds))

    @field_validator("prompts")
    @classmethod
    def _prompts(cls, prompts: list[str]) -> list[str]:
        from ..agents.prompts import PromptError, load_prompts

        for name in prompts:
            try:
                load_prompts(name)
            except PromptError as exc:   # not a ValueError: pydantic would not name the field
                raise ValueError(str(exc)) from None
        return list(dict.fromkeys(prompts))

    @field_validator("renderings")
    @classmethod
    def _renderings(cls, renderings: list[str]) -> list[str]:
        from ..agents.llm import parse_rendering

        return list(dict.fromkeys("+".join(parse_rendering(r)) for r in renderings))

    @field_validator("agent_tools", mode="before")
    @classmethod
    def _agent_tools_before(cls, value: Any) -> Any:
        # a list of names is one setting only inside a list: [[notes, autumn], none]
        if isinstance(value, list):
            return ["+".join(v) if isinstance(v, list) and all(isinstance(n, str) for n in v)
                    else v for v in value]
        return value

    @field_validator("agent_tools")
    @classmethod
    def _agent_tools(cls, settings: list[str]) -> list[str]:
        return list(dict.fromkeys(settings))

    @model_validator(mode="after")
    def _tools_fit(self) -> "Sweep":
        with_tools = [t for t in self.agent_tools if t != "none"]
        if not with_tools:
            return self
        profile = protocol_profile(self.protocol)
        for tool in sorted({tool for t in with_tools for tool in t.split("+")}):
            if (why := profile.refusal_of_agent_tool(tool)) is not None:
                raise ValueError(f"agent_tools: {why}")
        from ..agents.prompts import PromptError, load_prompts

        for name in self.prompts:
            try:
                load_prompts(name).check_tools()
            except PromptError as exc:
                raise ValueError(f"agent_tools: {exc}") from None
        return self

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, seeds: list[int]) -> list[int]:
        return list(dict.fromkeys(seeds))

    @field_validator("concurrency")
    @classmethod
    def _concurrency(cls, limits: dict[str, int], info: ValidationInfo) -> dict[str, int]:
        # a misspelt provider would otherwise be ignored without a word
        used = {provider_of(m) for m in info.data.get("models", ())}
        for provider, limit in limits.items():
            if limit < 1:
                raise ValueError(f"{provider}: must be at least 1, got {limit}")
            if used and provider not in used:
                raise ValueError(f"no model of this sweep goes to provider {provider!r} "
                                 f"(its providers: {', '.join(sorted(used))})")
        return limits

    @field_validator("prices")
    @classmethod
    def _prices(cls, value: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
        from ..pricing import PriceFileError, book_for

        if isinstance(value, str):
            value = str(Path(value).resolve())
        try:
            book_for(value)
        except PriceFileError as exc:   # not a ValueError: pydantic would not name the field
            raise ValueError(str(exc)) from None
        return value

    @property
    def chosen_worlds(self) -> list[str]:
        """``worlds`` once validated: never None (``_worlds`` fills it in or refuses)."""
        worlds = self.worlds
        assert worlds is not None, "a validated sweep names its worlds"
        return worlds

    def price_book(self) -> PriceBook:
        """The prices of this sweep's calls: LiteLLM's map, under ``prices`` if given (or the
        book ``with_prices`` gave)."""
        if self._book is not None:
            given: PriceBook = self._book
            return given
        from ..pricing import book_for

        return book_for(self.prices)

    def with_prices(self, book: PriceBook) -> Sweep:
        """This sweep pricing its calls with ``book`` (a ``PriceBook``): a replay charges a
        job the prices its run charged (``llm_eval.replay``). The book is in no setting: it
        changes no job id and no digest."""
        copy = self.model_copy()
        copy._book = book
        return copy

    @field_validator("adapter_options")
    @classmethod
    def _no_keys(cls, options: dict[str, dict[str, Any]],
                 info: ValidationInfo) -> dict[str, dict[str, Any]]:
        from llm_eval.adapters.classify import scrub

        models = info.data.get("models")
        for model, values in options.items():
            if models and model not in models:   # else silently ignored
                close = difflib.get_close_matches(model, models, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"{model!r} is not one of the sweep's models{hint}")
            # the placeholder local servers take is not a key; anything else scrub would
            # redact (a key, an auth header, a key-shaped string) is
            checked = {k: v for k, v in values.items()
                       if not (k == "api_key" and v == "not-needed")}
            if scrub(checked) != checked:
                raise ValueError(f"{model}: a spec holds no keys (they are written to the run "
                                 f"directory); set the provider's environment variable")
        return options

    # -- reading ---------------------------------------------------------------------------------
    @classmethod
    def from_data(cls, data: Any, source: str = "<spec>",
                  line_of: Callable[[SettingPath], int | None] | None = None) -> Sweep:
        """Validate ``data``; errors name ``source``, the field and, given ``line_of`` (the
        line of a field's path in the source), its line."""
        if not isinstance(data, dict):
            raise SpecError(f"{source}: a sweep spec is a mapping of settings, got "
                            f"{type(data).__name__}")
        try:
            sweep = cls.model_validate(data)
        except ValidationError as exc:
            errors = exc.errors()
            lines = []
            for error in errors[:MAX_ERRORS_SHOWN]:
                where = _cut(".".join(str(p) for p in error["loc"]) or "(spec)")
                message = _cut(error["msg"].removeprefix("Value error, "))
                line = line_of(tuple(error["loc"])) if line_of is not None else None
                lines.append(f"{source}{f':{line}' if line else ''}: {where}: {message}")
            if len(errors) > MAX_ERRORS_SHOWN:
                lines.append(f"{source}: and {len(errors) - MAX_ERRORS_SHOWN:,} more errors")
            raise SpecError("\n".join(lines)) from None
        except LlmEvalError as exc:   # e.g. an unknown prompt variant
            raise SpecError(f"{source}: {_cut(str(exc))}") from None
        sweep.check_size(source, line_of)
        return sweep

    @classmethod
    def from_yaml(cls, path: str | Path) -> Sweep:
        """The spec in the YAML file at ``path``, read within ``bounded_yaml``'s bounds (its
        size, alias expansion, nesting, value lengths) and with the job count checked while
        the file is read (``_SpecLoader``): a ``SpecError`` naming the file, line and setting
        comes before anything large is built."""
        path = Path(path)
        try:
            text = read_bounded(path)
            data, tree = load_bounded(text, _SpecLoader)
        except UnicodeDecodeError as exc:
            raise SpecError(f"{path}: not UTF-8 text (byte {exc.start}: "
                            f"{exc.object[exc.start:exc.start + 1]!r})") from None
        except BoundsError as exc:
            mark = exc.problem_mark
            where = f":{mark.line + 1}" if mark else ""
            raise SpecError(f"{path}{where}: {exc.setting}: {exc.problem}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
            setting = getattr(exc, "path", None)
            where += f": {setting_path(setting)}" if setting else ""
            raise SpecError(f"{path}{where}: not valid YAML: "
                            f"{_cut(str(getattr(exc, 'problem', None) or exc))}") from None
        return cls.from_data(data, str(path), line_of=lambda loc: _yaml_line(tree, loc))

    def canonical(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @property
    def digest(self) -> str:
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def seed_warning(self) -> str | None:
        """The warning a degenerate seed (0 mod 2**32) deserves, when the sweep has one."""
        degenerate = [seed for seed in self.seeds if is_degenerate_seed(seed)]
        if not degenerate or not self.tasks:
            return None
        from ..worldtest.seeding import DEGENERATE_SEED_WARNING

        return (DEGENERATE_SEED_WARNING.format(seed=degenerate[0])
                + "; it applies to the tasks that take their seed from the run")

    def window_of(self, model: str) -> int:
        """History auto's context window for ``model``: ``context_window``, else LiteLLM's
        map's (a ``SpecError`` when neither gives one)."""
        if self.context_window is not None:
            return self.context_window
        from ..agents.llm import context_window_of

        try:
            return context_window_of(model, self.price_book())
        except ValueError as exc:
            raise SpecError(f"budgets.history: {exc}") from None

    def limit_for(self, provider: str) -> int:
        return self.concurrency.get(provider, self.default_concurrency)

    # -- jobs ------------------------------------------------------------------------------------
    def factors(self) -> dict[str, int]:
        """What multiplies the job count: each field's number of values (``repeats``: its
        value); ``model_variants`` is the product of the settings only a model reads."""
        b = self.budgets
        return {"models": len(self.models), "worlds": len(self.chosen_worlds),
                "families": len(self.families),
                "budgets.interaction_steps": len(b.interaction_steps), "seeds": len(self.seeds),
                "repeats": self.repeats, "prompts": len(self.prompts),
                "renderings": len(self.renderings), "budgets.history": len(b.history),
                "budgets.max_output_tokens": len(b.max_output_tokens),
                "budgets.reasoning_effort": len(b.reasoning_effort),
                "budgets.thinking_budget": len(b.thinking_budget),
                "agent_tools": len(self.agent_tools),
                "budgets.tool_calls_per_episode": len(b.tool_calls_per_episode),
                "budgets.tool_calls_per_turn": len(b.tool_calls_per_turn)}

    def job_count(self) -> int:
        """How many jobs ``expand`` makes at most (before duplicates fold), computed without
        expanding: random and oracle run once per world, family, budget, seed and repeat, a
        model once more per prompt, rendering and model budget."""
        f = self.factors()
        per_model = (f["worlds"] * f["families"] * f["budgets.interaction_steps"] * f["seeds"]
                     * f["repeats"])
        variants = math.prod(f[k] for k in _MODEL_FACTORS)
        return per_model * sum(1 if plays_without_model(m) else variants for m in self.models)

    def check_size(self, source: str = "<spec>",
                   line_of: Callable[[SettingPath], int | None] | None = None) -> None:
        """Refuse a sweep of more than ``MAX_JOBS`` jobs before it is expanded (which would
        take minutes and then run out of memory); the error names the largest factor."""
        count = self.job_count()
        if count <= MAX_JOBS:
            return
        f = self.factors()
        if all(plays_without_model(m) for m in self.models):   # only models multiply by these
            f = {k: v for k, v in f.items() if k not in _MODEL_FACTORS}
        shown = {k: v for k, v in f.items() if v > 1}
        field = max(shown, key=lambda k: shown[k])
        line = line_of(tuple(field.split("."))) if line_of is not None else None
        product = " x ".join(f"{k} {v:,}" for k, v in shown.items())
        raise SpecError(f"{source}{f':{line}' if line else ''}: {field}: the sweep would make "
                        f"{count:,} jobs ({product}), more than the limit of {MAX_JOBS:,}; "
                        f"split it into smaller sweeps")

    def expand(self) -> list[Job]:
        """Every job of the sweep, in a stable order, without duplicates (module docstring).
        A sweep over ``MAX_JOBS`` is a ``SpecError``, raised before any job is made."""
        from ..agents.prompts import load_prompts

        self.check_size()
        from ..tasks.store import dump_task, load_task

        tasks: dict[tuple[str, Family], tuple[str, str, str | None]] = {}
        found: dict[tuple[str, str], tuple[Any, str]] = {}
        located: str | None
        suite = None
        if self.suite is not None:
            from ..suites import load_suite

            suite = load_suite(self.suite)
        if self.tasks:
            from ..tasks.store import load_tasks

            for path in self.tasks:
                for task in load_tasks(path):
                    located = str(Path(task.root) / f"{task.id}.json")
                    found.setdefault((task.world, task.family), (task, located))
        for world, family in itertools.product(self.chosen_worlds, self.families):
            if self.tasks:
                if (world, family) not in found:
                    continue        # an imported environment need not have every family
                task, located = found[world, family]
            elif suite is not None and not suite.has(world, family):
                continue
            else:
                task, located = load_task(world, family, self.suite), None
            tasks[world, family] = (task.id, _digest(dump_task(task)), located)
        prompt_digest = {p: load_prompts(p).digest for p in self.prompts}
        tools_digest = {p: load_prompts(p).tools_digest for p in self.prompts}
        b = self.budgets
        from ..worldtest.autumnbench.settings import job_fields

        autumnbench = job_fields(stack_frames=self.stack_frames, skip_frames=self.skip_frames,
                             harness_texts=self.harness_texts)
        jobs: dict[str, Job] = {}
        for model, (world, family), steps, seed, repeat in itertools.product(
                self.models, tasks, b.interaction_steps, self.seeds, range(self.repeats)):
            task_id, task_digest, located = tasks[world, family]
            base = {"v": JOB_SETTINGS_VERSION, "model": model, "world": world,
                    "family": family, "task": task_id, "task_digest": task_digest,
                    "interaction_steps": steps, "seed": seed, "repeat": repeat}
            base |= {k: v for k, v in (("horizon", self.horizon),
                                       ("max_consecutive_invalid", self.max_consecutive_invalid),
                                       ("ticks_per_action", self.ticks_per_action),
                                       ("task_file", located), ("suite", self.suite))
                     if v is not None}
            if self.protocol != WORLDTEST.name:   # the default is not written: old ids stay
                base["protocol"] = self.protocol
            base |= autumnbench
            variants: list[dict[str, Any]]
            if plays_without_model(model):
                variants = [{}]
            else:
                variants = [
                    {"prompt": p, "prompt_digest": prompt_digest[p], "rendering": r,
                     "history": h, "max_output_tokens": m, "reasoning_effort": e,
                     "thinking_budget": t, "temperature": self.temperature,
                     "tool_mode": self.tool_mode}
                    | ({"model_seed": self.model_seed} if self.model_seed is not None else {})
                    | ({"context_window": self.window_of(model)} if h == "auto" else {})
                    | _tools_settings(tools, per_episode, per_turn, tools_digest[p])
                    for p, r, h, m, e, t, tools, per_episode, per_turn in itertools.product(
                        self.prompts, self.renderings, b.history, b.max_output_tokens,
                        b.reasoning_effort, b.thinking_budget, self.agent_tools,
                        b.tool_calls_per_episode, b.tool_calls_per_turn)]
            for extra in variants:
                job = Job.of({**base, **extra})
                jobs.setdefault(job.id, job)
        return list(jobs.values())


_MODEL_FACTORS = ("prompts", "renderings", "budgets.history", "budgets.max_output_tokens",
                  "budgets.reasoning_effort", "budgets.thinking_budget", "agent_tools",
                  "budgets.tool_calls_per_episode", "budgets.tool_calls_per_turn")


def _tools_settings(tools: str, per_episode: int | None, per_turn: int | None,
                    digest: str | None) -> dict[str, Any]:
    """A job's agent-tool settings: none without tools (earlier ids stay), else the tools,
    both caps (defaults filled in) and the digest of the prompt's ``tools.md``."""
    if tools == "none":
        return {}
    from ..agent_tools import DEFAULT_PER_EPISODE, DEFAULT_PER_TURN

    return {"agent_tools": tools,
            "tool_calls_per_episode": per_episode or DEFAULT_PER_EPISODE,
            "tool_calls_per_turn": per_turn or DEFAULT_PER_TURN,
            "tools_prompt_digest": digest}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: settings that say where a job's inputs are, not what they are (the task's digest is in the
#: settings): left out of the id, so moving a task directory keeps the ids
UNHASHED_SETTINGS = ("task_file", "harness_texts_dir")


def job_id(settings: dict[str, Any]) -> str:
    """The short stable hash of ``settings``' canonical JSON (``UNHASHED_SETTINGS`` left
    out)."""
    hashed = {k: v for k, v in settings.items() if k not in UNHASHED_SETTINGS}
    text = json.dumps(hashed, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def executor_fields(executor: str | None, ray_address: str | None) -> dict[str, Any]:
    """The spec fields an executor given apart from the spec changes (``--executor``,
    ``--ray-address``): another executor than ray drops the spec's address."""
    fields: dict[str, Any] = {}
    if executor is not None:
        fields["executor"] = executor
        if executor != "ray":
            fields["ray_address"] = None
    if ray_address is not None:
        fields["ray_address"] = ray_address
    return fields


def provider_of(model: str) -> str:
    """The provider a model's calls go to (``local`` for random and oracle)."""
    if model in LOCAL_AGENTS:
        return "local"
    if is_human(model):
        return "human"
    if is_mcp(model):
        return "mcp"
    from llm_eval.adapters.registry import parse_model

    return parse_model(model).provider


@dataclass(frozen=True, slots=True)
class Job:
    """One episode to run: its id and its settings (module docstring)."""

    id: str
    settings: dict[str, Any]

    @classmethod
    def of(cls, settings: dict[str, Any]) -> Job:
        return cls(job_id(settings), dict(settings))

    @property
    def model(self) -> str:
        model: str = self.settings["model"]
        return model

    @property
    def provider(self) -> str:
        return provider_of(self.model)

    @property
    def agent_seed(self) -> int:
        """The random agent's seed (and a model's sampling seed is left unset)."""
        seed: int = self.settings["seed"] + self.settings["repeat"] * REPEAT_SEED_STRIDE
        return seed


class _SpecLoader(BoundedLoader):
    """``bounded_yaml``'s loader, refusing a mapping that gives a key twice (YAML would keep
    the last one, silently dropping the first) and a spec whose job count, counted while the
    file is read, is already over ``MAX_JOBS`` (``_JobCounter``)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.counter = _JobCounter()

    def on_node(self, path: SettingPath, node: yaml.Node) -> None:
        self.counter.see(path, node, self)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} given twice (first on line {seen[key]})",
                    key_node.start_mark)
            seen.setdefault(key, line)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping


#: the settings that multiply the job count as the loader sees them: a list's distinct values
_COUNTED = {("models",), ("worlds",), ("families",), ("seeds",), ("prompts",),
            *(("budgets", k) for k in ("interaction_steps", "history", "max_output_tokens",
                                       "reasoning_effort", "thinking_budget"))}


class _JobCounter:
    """A lower bound of a spec's job count, kept while the spec is read: each multiplying
    setting's distinct values seen so far (a setting not yet read, or given as one value,
    counts 1; renderings count 1, as two spellings can be one rendering). Once it is over
    ``MAX_JOBS`` the spec is refused at the value that took it over, without reading the
    rest: ``job_count`` can only be larger."""

    def __init__(self) -> None:
        self.values: dict[SettingPath, set[Any]] = {}
        self.repeats = 1

    def see(self, path: SettingPath, node: yaml.Node, loader: BoundedLoader) -> None:
        if not isinstance(node, yaml.ScalarNode):
            return
        field: SettingPath
        if path == ("repeats",):
            if node.tag == "tag:yaml.org,2002:int":
                self.repeats = max(1, int(loader.construct_yaml_int(node)))
            field = path
        elif path in _COUNTED or path[:-1] in _COUNTED and isinstance(path[-1], int):
            field = path if path in _COUNTED else path[:-1]
            value = (loader.construct_yaml_int(node) if node.tag == "tag:yaml.org,2002:int"
                     else node.value)
            self.values.setdefault(field, set()).add(value)
        else:
            return
        count, product = self.bound()
        if count > MAX_JOBS:
            raise BoundsError(field, f"the sweep would make at least {count:,} jobs "
                              f"({product}, read so far), more than the limit of "
                              f"{MAX_JOBS:,}; split it into smaller sweeps", node.start_mark)

    def bound(self) -> tuple[int, str]:
        n = {".".join(map(str, k)): len(v) for k, v in self.values.items()}
        n["repeats"] = self.repeats
        models = self.values.get(("models",), set())
        local = sum(1 for m in models if isinstance(m, str) and plays_without_model(m))
        variants = math.prod(n.get(k, 1) for k in _MODEL_FACTORS)
        per_model = math.prod(n.get(k, 1) for k in ("worlds", "families",
                                                    "budgets.interaction_steps", "seeds",
                                                    "repeats"))
        count = per_model * max(1, local + (len(models) - local) * variants)
        shown = " x ".join(f"{k} {v:,}" for k, v in n.items() if v > 1)
        return count, shown


def _yaml_line(tree: yaml.Node | None, loc: SettingPath) -> int | None:
    """The 1-based line of the deepest node of the composed document ``tree`` on the path
    ``loc`` (mapping keys, sequence indices), or None if it has no such top-level key."""
    node = tree
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = next(((k, v) for k, v in node.value
                          if isinstance(k, yaml.ScalarNode) and k.value == str(part)), None)
            if match is None:
                break
            line, node = match[0].start_mark.line + 1, match[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) \
                and 0 <= part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def _cut(text: str, limit: int = 400) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was (an error quoting a
    megabyte-long value would print the megabyte)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters in all)"
