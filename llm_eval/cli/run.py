"""``llm-eval run``: run a sweep from a YAML spec or from flags, or resume one.

``llm-eval run SPEC.yaml -o RUN_DIR``, ``llm-eval run --model M [--model M2] --worlds W...
--families F... [--seeds S...] [--repeats N] ... -o RUN_DIR`` (the spec's fields as flags), or
``llm-eval run --resume RUN_DIR [--spend-cap USD]`` (the runs' own specs; a new cap, e.g.
after the old one stopped the run). Prints one line per job (id, model, task, status, score)
and where the store and the transcripts are. Exit 0 when every job is done; 3 when some are
not (infrastructure errors, failures, fatal refusals, a spend cap): the run can be resumed; 130
when Ctrl-C stopped it (cleanly: running episodes end before their next model call and go back
to the queue; a second Ctrl-C aborts at once, and resume still works). While it runs, progress
(done, running, failed, spend, ETA) goes to standard error: a live panel on a terminal, one
line per finished job otherwise; ``--no-progress`` turns it off. ``--processes N`` sets how
many worker processes run the local agents' episodes (default: one per core).
``--check-first`` checks every provider model with the sweep's settings before the first job
(``check_first.py``): a refusal stops the run there (exit 1, the check's report printed).
A job the provider refused for a reason only the user can fix (no credit or a spend limit, a
refused key, no permission, an unknown model) ends ``fatal``, with what to fix; a resume (or
the same spec run again) leaves it, not paying to meet the refusal again, unless given
``--retry-fatal``.
``--executor ray [--ray-address ADDRESS]`` runs each job as a Ray task on a cluster (with
``--resume`` too: how the runs finish; docs/ray.md).
A run directory another ``llm-eval`` is writing to is refused (exit 2, naming the holder).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..argtypes import integer_at_least
from ..errors import LlmEvalError
from ..worldtest.protocols import PROTOCOLS

if TYPE_CHECKING:
    from ..sweep.spec import Sweep

__all__ = ["add_run_parser", "cmd_run", "format_report"]

EXIT_NOT_DONE = 3
DEFAULT_REPLY_TOKENS = 40    # adapters.standin's default, without importing the adapters
EXIT_STOPPED = 130     # Ctrl-C: stopped cleanly, resumable


def format_report(report) -> str:
    from ..analysis.stats import arm_labels

    rows = report.rows
    header = ("job", "model", "task", "status", "score")   # model: the arm, when several
    arms = arm_labels([r.settings for r in rows])
    table = [header] + [(r.id, arm, r.settings["task"], r.status,
                         f"{r.score:.3f}" if r.score is not None else "-")
                        for r, arm in zip(rows, arms)]
    widths = [max(len(str(line[i])) for line in table) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip()
             for line in table]
    counts = report.counts()
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    adopted = len(getattr(report, "adopted", ()))
    lines.append(f"{len(rows)} jobs ({summary}); ran {len(report.executed)}, "
                 f"{len(report.skipped)} already done"
                 + (f" ({adopted} by another run in this directory)" if adopted else "")
                 + ("; stopped by the spend cap" if report.stopped_by_spend_cap else "")
                 + ("; stopped by Ctrl-C" if report.stopped_by_user else ""))
    lines.append(f"store: {report.store_path}")
    lines.append(f"transcripts: {report.transcripts_dir}/")
    return "\n".join(lines)


def _spec_from_flags(args: argparse.Namespace) -> Sweep:
    from ..sweep.spec import SpecError, Sweep

    data: dict = {"models": args.model}
    if args.worlds:
        data["worlds"] = args.worlds
    if args.tasks:
        data["tasks"] = args.tasks
    if args.suite:
        data["suite"] = args.suite
    if args.protocol:
        data["protocol"] = args.protocol
    if args.ticks_per_action is not None:
        data["ticks_per_action"] = args.ticks_per_action
    if args.no_stack_frames:
        data["stack_frames"] = False
    if args.skip_frames:
        data["skip_frames"] = True
    if args.harness_texts is not None:
        data["harness_texts"] = args.harness_texts
    for name in ("families", "seeds", "prompts", "renderings", "agent_tools"):
        if getattr(args, name):
            data[name] = getattr(args, name)
    budgets = {}
    for name in ("interaction_steps", "reasoning_effort", "thinking_budget",
                 "max_output_tokens", "history", "tool_calls_per_episode",
                 "tool_calls_per_turn"):
        value = getattr(args, name)
        if value:
            budgets[name] = [int(v) if name == "history" and v != "full" and v.isdigit()
                             else v for v in value]
    if budgets:
        data["budgets"] = budgets
    if args.repeats is not None:
        data["repeats"] = args.repeats
    if args.spend_cap is not None:
        data["spend_cap_usd"] = args.spend_cap
    if args.tool_mode:
        data["tool_mode"] = args.tool_mode
    if args.temperature is not None:
        data["temperature"] = args.temperature
    if args.model_seed is not None:
        data["model_seed"] = args.model_seed
    if args.context_window is not None:
        data["context_window"] = args.context_window
    if args.cache is not None:
        data["cache"] = args.cache
    if args.concurrency:
        limits = {}
        for item in args.concurrency:
            provider, _, n = item.partition("=")
            if not provider or not n.isdigit():
                raise SpecError(f"--concurrency: expected PROVIDER=N, got {item!r}")
            limits[provider] = int(n)
        data["concurrency"] = limits
    if args.base_url:
        data["adapter_options"] = {m: _local_server(m, args.base_url) for m in args.model
                                   if "/" in m}
    return Sweep.from_data(data, "command line")


# the spec's flags (``dest`` names); ``--resume`` takes only ``spend_cap`` of them
SPEC_FLAGS = ("model", "worlds", "tasks", "suite", "protocol", "ticks_per_action",
              "no_stack_frames", "skip_frames", "harness_texts", "families", "seeds",
              "repeats", "prompts", "renderings", "agent_tools", "tool_calls_per_episode",
              "tool_calls_per_turn",
              "interaction_steps", "reasoning_effort", "thinking_budget", "max_output_tokens",
              "history", "tool_mode", "temperature", "model_seed", "concurrency", "base_url",
              "context_window", "cache")


def _not_for_resume(args: argparse.Namespace) -> list[str]:
    """The arguments given with ``--resume`` that it would ignore, as flags."""
    given = ["SPEC.yaml"] if args.spec else []
    given += ["-o"] if args.output is not None else []
    return given + [f"--{name.replace('_', '-')}" for name in SPEC_FLAGS
                    if getattr(args, name) not in (None, [], False)]


def _local_server(model: str, base_url: str) -> dict:
    """Options for a model served at ``base_url``; a local server needs no real key."""
    import os

    from llm_eval.adapters.registry import parse_model, providers

    options = {"base_url": base_url}
    ref = parse_model(model)
    info = next((p for p in providers() if p.name == ref.provider), None)
    if info is not None and info.key_env and not any(os.environ.get(k) for k in info.key_env):
        options["api_key"] = "not-needed"
    return options


def _executor(args: argparse.Namespace) -> dict:
    """The spec fields ``--executor`` and ``--ray-address`` change (``executor_fields``)."""
    from ..sweep.spec import executor_fields

    return executor_fields(args.executor, args.ray_address)


def cmd_run(args: argparse.Namespace) -> int:
    from ..runstore import RunStoreError
    from ..sweep.progress import make_progress
    from ..sweep.scheduler import resume, run_sweep
    from ..sweep.spec import SpecError, Sweep

    options = {"handle_sigint": True, "progress": make_progress(enabled=not args.no_progress),
               "check": True, "processes": args.processes,
               "retry_fatal": args.retry_fatal}
    try:
        if args.resume and args.estimate:
            print("llm-eval: error: --estimate prices a sweep before it runs; give the "
                  "sweep (SPEC.yaml or flags), not --resume", file=sys.stderr)
            return 2
        if args.resume and args.check_first:
            print("llm-eval: error: --check-first checks a sweep before it runs; give the "
                  "sweep (SPEC.yaml or flags), not --resume (or check a model with "
                  "llm-eval providers check MODEL)", file=sys.stderr)
            return 2
        if args.resume:
            ignored = _not_for_resume(args)
            if ignored:
                print(f"llm-eval: error: --resume finishes the runs as they were specified; "
                      f"it takes no {', '.join(ignored)} (only --spend-cap, to change the cap)",
                      file=sys.stderr)
                return 2
            reports = resume(args.resume, spend_cap=args.spend_cap, prices=args.prices,
                             executor=args.executor, ray_address=args.ray_address,
                             **options)
            if not reports:
                print(f"every job in {args.resume} is done; nothing to resume")
                return 0
        else:
            if args.output is None and not args.estimate:
                print("llm-eval: error: -o RUN_DIR is required (or --resume RUN_DIR)",
                      file=sys.stderr)
                return 2
            if args.spec:
                if args.model or args.worlds:
                    print("llm-eval: error: give a SPEC.yaml or --model/--worlds, not both",
                          file=sys.stderr)
                    return 2
                spec = Sweep.from_yaml(args.spec)
            else:
                if not args.model or not (args.worlds or args.tasks or args.suite):
                    print("llm-eval: error: give a SPEC.yaml, or --model and --worlds (or "
                          "--tasks, or --suite)", file=sys.stderr)
                    return 2
                spec = _spec_from_flags(args)
            if args.prices is not None:
                spec = Sweep.from_data({**spec.canonical(), "prices": args.prices},
                                       "command line")
            if executor := _executor(args):
                spec = Sweep.from_data({**spec.canonical(), **executor}, "command line")
            if spec.seed_warning:
                print(f"llm-eval: warning: {spec.seed_warning}", file=sys.stderr)
            from ..tasks.unvalidated import warnings_for_paths

            for line in warnings_for_paths(spec.tasks or ()):   # imported --validate later
                print(f"llm-eval: warning: {line}", file=sys.stderr)
            if args.estimate:
                return _estimate(spec, args)
            if args.check_first or spec.check_first:   # a refusal: no job starts
                from ..sweep.check_first import check_before_run

                if check_before_run(spec):
                    return 1
            reports = [run_sweep(spec, args.output, **options)]
    except (SpecError, RunStoreError) as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return 2
    except LlmEvalError as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return 1
    print("\n".join(format_report(report) for report in reports))
    last = reports[-1]
    rows = [r for report in reports for r in report.rows]
    fatal = [r for r in rows if r.status == "fatal"]
    not_done = [r for r in rows if r.status not in ("done", "fatal")]
    if fatal:
        print(_fatal_advice(fatal, Path(last.run_dir)), file=sys.stderr)
    if not_done:
        # at the cap, resuming with the same cap would stop again at once
        cap = " --spend-cap USD (a higher cap)" if last.stopped_by_spend_cap else ""
        print(f"{len(not_done)} jobs not done; finish them with: llm-eval run --resume "
              f"{Path(last.run_dir)}{cap}", file=sys.stderr)
        return EXIT_STOPPED if last.stopped_by_user else EXIT_NOT_DONE
    return EXIT_NOT_DONE if fatal else 0


def _fatal_advice(rows, run_dir: Path) -> str:
    """What the ``fatal`` jobs need (each distinct reason once, with what to fix) and how to
    run them again."""
    errors = dict.fromkeys((r.error or "").split("; not retried")[0] for r in rows)
    lines = [f"{len(rows)} jobs ended fatal: the provider refused them for a reason retrying "
             f"cannot fix, so --resume leaves them:"]
    lines += [f"  {error[:400]}" for error in list(errors)[:5]]
    lines.append(f"fix that, then run them again with: llm-eval run --resume {run_dir} "
                 f"--retry-fatal")
    return "\n".join(lines)


def _estimate(spec: Sweep, args: argparse.Namespace) -> int:
    """``--estimate``: the sweep's calls, tokens and cost per arm (``estimate.py``)."""
    from ..sweep.estimate import estimate_sweep, format_estimate

    arms, local = estimate_sweep(spec, reply_tokens=args.estimate_reply_tokens,
                                 processes=args.processes)   # 0: here, one by one
    print(format_estimate(arms, local, args.estimate_reply_tokens))
    return 0


def add_run_parser(commands) -> argparse.ArgumentParser:
    """Add ``run`` to the ``llm-eval`` subcommands."""
    run = commands.add_parser(
        "run", help="run a sweep (a YAML spec, or models x worlds x families as flags)",
        description="Run every job of a sweep concurrently, writing one transcript per job "
                    "and a SQLite run store in RUN_DIR; jobs already done are skipped.")
    run.add_argument("spec", nargs="?", metavar="SPEC.yaml", help="a sweep spec")
    run.add_argument("-o", "--output", metavar="RUN_DIR", help="the run directory")
    run.add_argument("--resume", metavar="RUN_DIR",
                     help="finish every run in RUN_DIR (skips done jobs, reruns the rest) "
                          "with the spec it was run with; --spend-cap sets a new cap")
    flags = run.add_argument_group("the spec as flags (instead of SPEC.yaml)")
    flags.add_argument("--model", action="append", metavar="M",
                       help="random, oracle, simulator or provider/model (repeatable)")
    flags.add_argument("--worlds", nargs="+", metavar="W", help="world names, or all")
    flags.add_argument("--tasks", nargs="+", metavar="DIR",
                       help="directories (or files) of task files to run instead of the "
                            "shipped tasks, e.g. made by 'llm-eval tasks import'; --worlds "
                            "then picks among their worlds (default all)")
    flags.add_argument("--suite", metavar="NAME",
                       help="run a suite's tasks (e.g. v1; 'llm-eval suites list'), each "
                            "checked against the suite's manifest; --worlds then picks among "
                            "its worlds (default all)")
    flags.add_argument("--protocol", choices=tuple(PROTOCOLS),
                       help="the rules: worldtest (default) or autumnbench (the published "
                            "harness's; defaults --tool-mode tags and --prompts autumnbench)")
    flags.add_argument("--ticks-per-action", type=int, metavar="K",
                       help="worldtest: ticks per interaction action, every frame shown")
    flags.add_argument("--harness-texts", metavar="DIR",
                       help="autumnbench: the published harness's own instruction texts, read "
                            "from its checkout DIR (recorded with their sha256)")
    flags.add_argument("--no-stack-frames", action="store_true",
                       help="autumnbench: the harness's stack_frames false")
    flags.add_argument("--skip-frames", action="store_true",
                       help="autumnbench: the harness's skip_frames true")
    flags.add_argument("--families", nargs="+", metavar="F", help="mfp cd planning")
    flags.add_argument("--seeds", nargs="+", type=int, metavar="S",
                       help="episode seeds: the random agent's, and for a model one more "
                            "episode per seed (like --repeats; the world keeps its task's "
                            "seed, except a task without one, e.g. an imported task, which "
                            "runs with this seed; --model-seed sets the provider's sampling "
                            "seed)")
    flags.add_argument("--repeats", type=int, metavar="N")
    flags.add_argument("--prompts", nargs="+", metavar="VARIANT")
    flags.add_argument("--renderings", nargs="+", metavar="R", help="e.g. compact compact+png")
    flags.add_argument("--agent-tools", nargs="+", metavar="TOOLS",
                       help="the agent's tools beside the actions, each a setting to sweep: "
                            "none, notes, autumn, python or a combination such as "
                            "notes+autumn (docs/agent-tools.md)")
    flags.add_argument("--tool-calls-per-episode", nargs="+", type=int, metavar="N",
                       help="cap on agent-tool calls in an episode (default 40)")
    flags.add_argument("--tool-calls-per-turn", nargs="+", type=int, metavar="N",
                       help="cap on agent-tool calls between two actions (default 4)")
    flags.add_argument("--interaction-steps", nargs="+", type=int, metavar="N")
    flags.add_argument("--reasoning-effort", nargs="+", metavar="E")
    flags.add_argument("--thinking-budget", nargs="+", type=int, metavar="TOKENS")
    flags.add_argument("--max-output-tokens", nargs="+", type=int, metavar="N")
    flags.add_argument("--history", nargs="+", metavar="full|auto|K",
                       help="what each request keeps: every turn (full), as many recent turns "
                            "as fit half the context window (auto), or the last K turns")
    flags.add_argument("--context-window", type=integer_at_least(256), metavar="TOKENS",
                       help="the context window history auto fits (default: each model's "
                            "from LiteLLM's map; needed for a local server)")
    flags.add_argument("--cache", choices=("auto", "off"),
                       help="prompt caching: auto (default: cache markers on Anthropic routes, "
                            "a prompt_cache_key on OpenAI's) or off")
    flags.add_argument("--tool-mode", choices=("tools", "text", "tags"))
    flags.add_argument("--temperature", type=float)
    flags.add_argument("--model-seed", type=int, metavar="N",
                       help="sampling seed sent to providers that take one")
    flags.add_argument("--concurrency", nargs="+", metavar="PROVIDER=N")
    flags.add_argument("--spend-cap", type=float, metavar="USD")
    flags.add_argument("--base-url", metavar="URL",
                       help="an OpenAI-compatible server for the models given")
    run.add_argument("--prices", metavar="FILE",
                     help="model prices over LiteLLM's price map (dollars per million tokens; "
                          "with a SPEC.yaml, or with --resume to price a model a spend cap "
                          "refused)")
    run.add_argument("--processes", type=integer_at_least(0), metavar="N",
                     help="worker processes for the local agents' episodes (random, "
                          "oracle, simulator; default: one per core; 0: in threads, like "
                          "model jobs); with --estimate, for every job (0 or 1: in this "
                          "process)")
    run.add_argument("--executor", choices=("local", "ray"),
                     help="where the jobs run: here (local, the default) or as Ray tasks on "
                          "a cluster (ray; needs llm-eval[ray]; see docs/ray.md); changes no "
                          "job id or result")
    run.add_argument("--ray-address", metavar="ADDRESS",
                     help="with --executor ray: the cluster's head (HOST:PORT, ray://HOST:PORT "
                          "or auto; default: RAY_ADDRESS, else a cluster on this machine)")
    run.add_argument("--estimate", action="store_true",
                     help="do not run: play every job against an offline stand-in model and "
                          "print per arm the calls, tokens and cost with and without prompt "
                          "caching (-o not needed)")
    run.add_argument("--estimate-reply-tokens", type=integer_at_least(0), metavar="N",
                     default=DEFAULT_REPLY_TOKENS,
                     help=f"with --estimate: tokens the stand-in writes per reply besides its "
                          f"action (default {DEFAULT_REPLY_TOKENS})")
    run.add_argument("--check-first", action="store_true",
                     help="before the first job, one minimal real call per feature each "
                          "model's jobs use (as llm-eval providers check MODEL); a refusal "
                          "or an unreachable endpoint stops the run (exit 1) with the report")
    run.add_argument("--retry-fatal", action="store_true",
                     help="run again the jobs that ended fatal (the provider refused them for "
                          "a reason only you can fix: no credit or a spend limit, a refused "
                          "key, no permission, an unknown model); without it a resume, or the "
                          "same spec run again, leaves them, not paying to be refused again")
    run.add_argument("--no-progress", action="store_true",
                     help="do not show progress on standard error")
    run.set_defaults(handler=cmd_run)
    return run
