"""The ``llm-eval episode`` command: play one episode of a shipped task and print the score.

``llm-eval episode WORLD --family mfp|cd|planning --agent random|oracle|simulator|PROVIDER/MODEL
[--seed S] [--json] [--interaction-steps N] [--steps]`` loads the shipped task
``<WORLD>-<family>`` (``llm_eval.tasks.store``), plays the agent through the interaction phase
and the test, and prints one line: the score (``max(0, raw)``), the raw reward and the action
counts. ``--seed`` seeds the random agent (the world's seed is the task's). ``--json`` prints
the episode result as JSON instead (``--steps`` adds every step's record).

With a model (``openai/gpt-5``, ``anthropic/...``, ``litellm/...``, ``replay/<file>``) the LLM
agent plays, with ``--rendering``, ``--prompt``, ``--history``, the generation knobs
(``--max-output-tokens``, ``--temperature``, ``--reasoning-effort``, ``--thinking-budget``),
``--tool-mode`` and ``--base-url``; ``--calls FILE`` writes every model call (JSON lines,
scrubbed) and ``--record FILE`` a recording that ``replay/FILE`` answers from. A missing API
key is a usage error naming the variable (exit 2); retries that run out make the episode an
infrastructure error, which is never a score (exit 3). Both output files are written when the
episode ends, so where they go is checked before the first model call (a directory, a missing
or unwritable folder: exit 2, nothing paid); one that still cannot be written at the end is an
error line after the result, which is printed all the same (exit 2).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..argtypes import integer, integer_at_least
from ..atomic import atomic_open
from ..tasks.families import FAMILIES
from ..vocabulary import LOCAL_AGENTS
from ..worldtest.protocols import PROTOCOLS
from ..worldtest.protocols import protocol as protocol_profile

if TYPE_CHECKING:
    from ..agents.base import Agent

__all__ = ["add_episode_parser", "cmd_episode", "format_result"]

AGENTS = LOCAL_AGENTS
EXIT_INFRASTRUCTURE = 3


def format_result(result, agent: str, seed: int) -> str:
    """The one-line summary of an episode."""
    inter, test = result.interaction, result.test
    return (f"{result.task_id}: agent {agent} (seed {seed}): score {result.score:.3f} "
            f"(raw {result.raw_reward:+.3f}); interaction {inter.steps} actions, "
            f"{result.resets} resets, {inter.invalid_actions} invalid, ended {inter.ended}; "
            f"test {test.steps} actions, {test.invalid_actions} invalid, ended {test.ended}")


def _calls_summary(calls: list[dict]) -> dict:
    usage = {"input_tokens": 0, "output_tokens": 0, "reasoning_tokens": 0}
    for record in calls:
        for key in usage:
            usage[key] += record["usage"].get(key, 0)
    costs = [c["cost"]["usd"] for c in calls if c.get("cost")]
    return {"calls": len(calls), "retries": sum(len(c["attempts"]) - 1 for c in calls),
            "invalid_replies": sum(1 for c in calls if c.get("invalid_reply")), **usage,
            "cost_usd": round(sum(costs), 6) if len(costs) == len(calls) else None}


def _llm_settings(args: argparse.Namespace) -> dict:
    from llm_eval.adapters import GenerationConfig
    from llm_eval.adapters.registry import parse_model, providers

    config = GenerationConfig(max_output_tokens=args.max_output_tokens,
                              temperature=args.temperature, seed=args.model_seed,
                              reasoning_effort=args.reasoning_effort,
                              thinking_budget=args.thinking_budget, tool_mode=args.tool_mode)
    options: dict = {"cache": args.cache}
    if args.base_url:
        options["base_url"] = args.base_url
        ref = parse_model(args.agent)
        info = next(p for p in providers() if p.name == ref.provider)
        if info.key_env and not any(os.environ.get(k) for k in info.key_env):
            options["api_key"] = "not-needed"   # a local OpenAI-compatible server
    from ..pricing import load_prices

    tools = {}
    if args.agent_tools:
        from ..agent_tools import ToolCaps

        tools = {"agent_tools": args.agent_tools,
                 "tool_caps": ToolCaps(per_episode=args.tool_calls_per_episode,
                                       per_turn=args.tool_calls_per_turn)}
    return {**tools, "rendering": args.rendering, "prompt_variant": args.prompt,
            "history": args.history, "config": config, "adapter_options": options,
            "context_window": args.context_window,
            "prices": load_prices(args.prices) if args.prices else None}


def episode_task(args: argparse.Namespace):
    """The task WORLD names: a task file's path, a task of ``--tasks DIR``, or a shipped task;
    a task that takes its seed from the run gets ``--seed`` (a warning, if any, on stderr)."""
    from ..errors import TaskFileError
    from ..tasks.store import load_task, load_task_file, load_tasks
    from ..worldtest.seeding import seeded

    if args.world.endswith(".json") or os.path.isfile(args.world):
        task = load_task_file(args.world)
        if args.family and args.family != task.family:
            raise TaskFileError(f"{args.world}: a {task.family} task, not {args.family}")
    else:
        if not args.family:
            raise TaskFileError("--family is required unless WORLD is a task file")
        if args.tasks:
            found = [t for t in load_tasks(args.tasks)
                     if t.world == args.world and t.family == args.family]
            if not found:
                raise TaskFileError(f"{args.tasks}: no {args.family} task of {args.world!r}")
            task = found[0]
        else:
            known_world(args.world)
            task = load_task(args.world, args.family)
    task, warning = seeded(task, args.seed, args.protocol)
    if warning:
        print(f"llm-eval: warning: {warning}", file=sys.stderr)
    from ..tasks.unvalidated import warning_for_task

    if unvalidated := warning_for_task(task):   # imported with --validate later
        print(f"llm-eval: warning: {unvalidated}", file=sys.stderr)
    return task


def _autumnbench_settings(args: argparse.Namespace, is_model: bool):
    """The published harness's settings from ``--harness-texts``, ``--no-stack-frames``,
    ``--skip-frames`` and (a model's) ``--rendering png``: autumnbench only (a usage error
    otherwise), None when none is given under worldtest."""
    from ..worldtest.autumnbench.settings import AutumnBenchSettings, render_mode_of
    from ..worldtest.autumnbench.texts import load_harness_texts
    from .options import UsageError

    given = [flag for flag, on in (("--harness-texts", args.harness_texts is not None),
                                   ("--no-stack-frames", not args.stack_frames),
                                   ("--skip-frames", args.skip_frames)) if on]
    if not protocol_profile(args.protocol).takes_autumnbench_settings:
        if given:
            raise UsageError(f"{', '.join(given)}: the published harness's settings, for "
                             f"--protocol autumnbench only")
        return None
    try:
        mode = render_mode_of(args.rendering) if is_model else "text"
    except ValueError as exc:
        raise UsageError(f"--rendering: {exc}") from None
    texts = None if args.harness_texts is None else load_harness_texts(args.harness_texts)
    return AutumnBenchSettings(render_mode=mode, stack_frames=args.stack_frames,
                           skip_frames=args.skip_frames, texts=texts)


def known_world(name: str) -> None:
    """Refuse an unknown world as a usage error (exit 2, as ``run`` does), with the registry's
    "did you mean"."""
    from ..worlds import UnknownWorldError, world_spec
    from .options import UsageError

    try:
        world_spec(name)
    except UnknownWorldError as exc:
        raise UsageError(str(exc)) from None


def cmd_episode(args: argparse.Namespace) -> int:
    from ..agents import make_agent
    from ..worldtest.episode import StopEpisode, run_episode  # noqa: F401 (script agents raise it)

    profile = protocol_profile(args.protocol)
    if args.tool_mode is None:
        args.tool_mode = profile.default_tool_mode
    if args.prompt is None:
        args.prompt = profile.default_prompt
    task = episode_task(args)
    is_model = args.agent not in AGENTS and not args.agent.startswith("script/")
    play = dict(interaction_steps=args.interaction_steps, protocol=args.protocol,
                ticks_per_action=args.ticks_per_action,
                autumnbench=_autumnbench_settings(args, is_model))
    unsaved = False
    calls: list[dict[str, Any]] = []      # a model's calls (``LLMAgent.calls``)
    if is_model:
        from llm_eval.adapters import ProviderError
        from llm_eval.adapters.registry import create_adapter
        from llm_eval.adapters.replay import RecordingAdapter

        from ..calls import FatalProviderError, InfrastructureError

        if (problem := _output_problem(args)) is not None:
            print(f"llm-eval: error: {problem}", file=sys.stderr)
            return 2
        from ..pricing import PriceFileError

        try:
            settings = _llm_settings(args)
        except PriceFileError as exc:
            print(f"llm-eval: error: --prices: {exc}", file=sys.stderr)
            return 2
        if "agent_tools" in settings:
            settings["tool_seed"] = task.seed   # the autumn tool runs hypotheses with it
        try:
            adapter = create_adapter(args.agent, **settings.pop("adapter_options"))
        except ProviderError as exc:        # e.g. "auth: OPENAI_API_KEY is not set"
            hint = " (or give --base-url for a local server)" if "auth" in str(exc) else ""
            print(f"llm-eval: error: {exc}{hint}", file=sys.stderr)
            return 2
        if args.record:
            adapter = RecordingAdapter(adapter, args.record)
        from ..agents.llm import LLMAgent

        try:
            model_agent = make_agent(args.agent, task, adapter=adapter, **settings)
        except ValueError as exc:   # e.g. --history auto without a window the map knows
            print(f"llm-eval: error: {exc}", file=sys.stderr)
            return 2
        if not isinstance(model_agent, LLMAgent):
            raise TypeError(f"make_agent({args.agent!r}) gave {type(model_agent).__name__}, "
                            "not a model's agent")
        agent: Agent = model_agent
        if play["autumnbench"] is not None and play["autumnbench"].texts is not None:
            from ..worldtest.autumnbench.view import harness_prompts

            model_agent.prompts = harness_prompts(model_agent.prompts, play["autumnbench"].texts)
        try:
            result = run_episode(task, model_agent, **play)
        except InfrastructureError as exc:
            print(f"llm-eval: infrastructure error (the episode is not scored): {exc}",
                  file=sys.stderr)
            return EXIT_INFRASTRUCTURE
        except FatalProviderError as exc:
            print(f"llm-eval: provider refused the call ({exc.reason}; the episode is not "
                  f"scored): {exc}", file=sys.stderr)
            return 1
        finally:
            model_agent.close()
            calls = model_agent.calls
            unsaved = not _save_outputs(args, calls, adapter if args.record else None)
    else:
        agent = make_agent(args.agent, task, seed=args.seed)
        result = run_episode(task, agent, **play)
    if args.json:
        data = result.to_dict(steps=args.steps)
        data["agent"] = args.agent
        data["agent_seed"] = args.seed
        if is_model:
            data["model_calls"] = _calls_summary(calls)
        print(json.dumps(data, indent=1))
    else:
        line = format_result(result, args.agent, args.seed)
        if is_model:
            s = _calls_summary(calls)
            from ..pricing import describe_cost, litellm_name

            cost = f", {describe_cost(s['cost_usd'])}" \
                if litellm_name(args.agent) is not None else ""   # a replay costs nothing
            line += (f"; {s['calls']} model calls ({s['retries']} retries, "
                     f"{s['invalid_replies']} unusable replies), {s['input_tokens']} tokens in, "
                     f"{s['output_tokens']} out{cost}")
        print(line)
    return 2 if unsaved else 0


def _output_problem(args: argparse.Namespace) -> str | None:
    """Why ``--calls`` or ``--record`` could not be written, or None. Checked before the first
    model call: both are written when the episode ends, after its calls are paid for."""
    outputs = [(flag, path) for flag, path in (("--calls", args.calls), ("--record", args.record))
               if path]
    if len(outputs) == 2 and os.path.abspath(args.calls) == os.path.abspath(args.record):
        return f"--calls and --record name the same file ({args.calls})"
    for flag, path in outputs:
        target = Path(path)
        if target.is_dir():
            return f"{flag} {path}: is a directory; give a file name"
        if target.exists() and not target.is_file():   # a device such as /dev/stdout
            if not os.access(target, os.W_OK):
                return f"{flag} {path}: cannot write to it"
            continue
        folder = target.parent
        if not folder.is_dir():
            what = "does not exist" if not folder.exists() else "is not a directory"
            return f"{flag} {path}: the folder {folder} {what}"
        try:   # what the atomic write will do: create a file beside the target
            with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{target.name}.",
                                             suffix=".tmp"):
                pass
        except OSError as exc:
            return f"{flag} {path}: cannot write in {folder}: {exc.strerror or exc}"
    return None


def _save_outputs(args: argparse.Namespace, calls: list[dict], recorder) -> bool:
    """Write ``--calls`` and ``--record``; a file that cannot be written is one error line,
    not a traceback that hides the episode's result. True if everything asked was written."""
    ok = True
    for flag, path, write in (("--calls", args.calls, lambda: _write_calls(args, calls)),
                              ("--record", args.record, recorder and recorder.save)):
        if not path:
            continue
        try:
            write()
        except OSError as exc:
            print(f"llm-eval: error: cannot write {flag} {path}: {exc.strerror or exc}",
                  file=sys.stderr)
            ok = False
    return ok


def _write_calls(args: argparse.Namespace, calls: list[dict]) -> None:
    if args.calls:
        with atomic_open(args.calls) as out:
            for record in calls:
                out.write(json.dumps(record) + "\n")


def _agent_name(text: str) -> str:
    """random, oracle, script/FILE, or a registered provider/model (with the registry's "did
    you mean")."""
    if text in AGENTS:
        return text
    if text.startswith("script/"):
        from ..agents.script import ScriptError, read_script

        try:
            read_script(text.removeprefix("script/"))
        except ScriptError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text
    from llm_eval.adapters import UnknownProviderError, parse_model

    if "/" not in text:
        close = difflib.get_close_matches(text, AGENTS, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise argparse.ArgumentTypeError(
            f"unknown agent {text!r}; {hint}expected random, oracle, simulator or "
            f"provider/model, e.g. "
            f"openai/gpt-5")
    try:
        parse_model(text)
    except UnknownProviderError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _history(text: str) -> str | int:
    return text if text in ("full", "auto") else _positive(text)


def _agent_tools(text: str) -> tuple[str, ...]:
    """``--agent-tools``: tool names joined by ``+`` (or none), each checked by name."""
    from ..agent_tools import AgentToolsError, parse_agent_tools

    try:
        return parse_agent_tools(text)
    except AgentToolsError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("agent_tools: ")) from None


def _rendering(text: str) -> str:
    from ..agents.llm import parse_rendering
    from ..render import RenderError

    try:
        return "+".join(parse_rendering(text))
    except (RenderError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _prompt(text: str) -> str:
    from ..agents.prompts import PromptError, load_prompts

    try:
        load_prompts(text)
    except PromptError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _temperature(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


_positive = integer_at_least(1)


def add_episode_parser(commands) -> argparse.ArgumentParser:
    """Add ``episode`` to the ``llm-eval`` subcommands."""
    episode = commands.add_parser(
        "episode", help="play one episode of a task with an agent or a model",
        description="Play AGENT through the interaction phase and the test of the task "
                    "WORLD x FAMILY (a shipped task, one of --tasks DIR, or a task file), then "
                    "print the score (max(0, raw reward)), the raw reward and the action "
                    "counts.")
    episode.add_argument("world", metavar="WORLD|TASK_FILE",
                         help="a bundled world's name, a world of --tasks DIR, or a task file")
    episode.add_argument("--family", default=None, choices=FAMILIES,
                         help="the test family: mfp, cd or planning (not needed with a task "
                              "file)")
    episode.add_argument("--tasks", default=None, metavar="DIR",
                         help="a directory of task files (e.g. made by 'llm-eval tasks import')")
    episode.add_argument("--harness-texts", metavar="DIR",
                         help="autumnbench: read the published harness's own instruction "
                              "texts from its checkout DIR (recorded with their sha256)")
    episode.add_argument("--no-stack-frames", dest="stack_frames", action="store_false",
                         help="autumnbench: the harness's stack_frames false (one tick per "
                              "action, the grid alone)")
    episode.add_argument("--skip-frames", action="store_true",
                         help="autumnbench: the harness's skip_frames (only the last of the "
                              "stacked frames is shown)")
    episode.add_argument("--protocol", choices=tuple(PROTOCOLS),
                         default="worldtest",
                         help="the rules: worldtest (ours, default) or autumnbench (the "
                              "published harness's, step for step)")
    episode.add_argument("--ticks-per-action", type=_positive, default=None, metavar="K",
                         help="worldtest: ticks per interaction action, every frame shown "
                              "(default: the task's, 1)")
    episode.add_argument("--agent", required=True, type=_agent_name,
                         metavar="random|oracle|simulator|script/FILE|PROVIDER/MODEL",
                         help="random (chance baseline), oracle (knows the program), "
                              "simulator (knows the program, looks 6 actions ahead), "
                              "script/FILE (plays FILE's action lines, then stops) or a "
                              "model, e.g. openai/gpt-5, anthropic/claude-sonnet-4-5, "
                              "litellm/gemini/gemini-2.5-pro, replay/FILE")
    episode.add_argument("--seed", type=integer, default=1,
                         help="seed of the random agent, and of the world for a task that "
                              "takes its seed from the run (an imported one); default 1")
    episode.add_argument("--interaction-steps", type=_positive, default=None, metavar="N",
                         help="interaction budget (default: the task's, 200)")
    episode.add_argument("--json", action="store_true",
                         help="print the episode result as JSON")
    episode.add_argument("--steps", action="store_true",
                         help="with --json: include the record of every step")
    model = episode.add_argument_group("model agents (--agent PROVIDER/MODEL)")
    model.add_argument("--rendering", type=_rendering, default="compact",
                       help="how frames are shown: compact, json, diff, png or a combination "
                            "such as compact+png (default compact)")
    model.add_argument("--prompt", type=_prompt, default=None, metavar="VARIANT",
                       help="prompt variant from prompts/ (default, reflective, autumnbench; "
                            "default: autumnbench under --protocol autumnbench, else default)")
    model.add_argument("--agent-tools", type=_agent_tools, default=(), metavar="TOOLS",
                       help="tools beside the actions: notes, autumn, python or a combination "
                            "such as notes+autumn (default none; docs/agent-tools.md)")
    model.add_argument("--tool-calls-per-episode", type=_positive, default=40, metavar="N",
                       help="cap on tool calls in the episode (default 40)")
    model.add_argument("--tool-calls-per-turn", type=_positive, default=4, metavar="N",
                       help="cap on tool calls between two actions (default 4)")
    model.add_argument("--history", type=_history, default="full", metavar="full|auto|K",
                       help="turns kept in each request: full, as many recent ones as fit half "
                            "the context window (auto), or the last K with a summary")
    model.add_argument("--context-window", type=integer_at_least(256), default=None,
                       metavar="TOKENS", help="the window history auto fits (default: the "
                                              "model's in LiteLLM's map)")
    model.add_argument("--cache", choices=("auto", "off"), default="auto",
                       help="prompt caching (default auto)")
    model.add_argument("--max-output-tokens", type=_positive, default=None, metavar="N")
    model.add_argument("--temperature", type=_temperature, default=None)
    model.add_argument("--model-seed", type=integer, default=None, metavar="S",
                       help="the provider's sampling seed, where supported")
    model.add_argument("--reasoning-effort", default=None,
                       choices=("minimal", "low", "medium", "high", "xhigh", "max"))
    model.add_argument("--thinking-budget", type=_positive, default=None, metavar="TOKENS")
    model.add_argument("--tool-mode", choices=("tools", "text", "tags"), default=None,
                       help="act by tool calls, a final 'ACTION: ...' line, or an "
                            "<action>...</action> tag, the last one winning (default: tags "
                            "under --protocol autumnbench, else tools)")
    model.add_argument("--base-url", default=None, metavar="URL",
                       help="an OpenAI-compatible server (openai-chat/..., litellm/openai/...)")
    model.add_argument("--prices", default=None, metavar="FILE",
                       help="model prices over LiteLLM's price map, in dollars per million "
                            "tokens (models: {NAME: {input: ..., output: ...}})")
    model.add_argument("--calls", default=None, metavar="FILE",
                       help="write every model call (scrubbed) as JSON lines")
    model.add_argument("--record", default=None, metavar="FILE",
                       help="write a recording that --agent replay/FILE replays offline")
    episode.set_defaults(handler=cmd_episode)
    return episode
