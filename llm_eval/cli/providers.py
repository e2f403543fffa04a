"""``llm-eval providers [--json]``: the registered providers, whether each SDK is installed,
and which key variable each needs.

``llm-eval providers check MODEL [--base-url URL] [--rendering R] [--tool-mode M]
[--thinking-budget N] [--reasoning-effort E] [--cache auto|off] [--json]``: one minimal real
call per feature a run with those settings would use (``llm_eval.probe``), and what the
provider did with each. Exit 0 when the run would get through (features may still be
ignored), 1 when a feature was refused, failed or the endpoint could not be reached, 2 for a
usage error (a bad option, a missing key or SDK).
"""

from __future__ import annotations

import argparse
import json
import sys

from llm_eval.argtypes import integer_at_least

from ..adapters.registry import providers
from ..vocabulary import FAMILIES

__all__ = ["add_providers_parser"]

EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")   # GenerationConfig's


def _run(args: argparse.Namespace) -> int:
    rows = [p.to_dict() for p in providers()]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        sdk = "built in" if row["sdk"] is None else (
            f"{row['sdk']} installed" if row["available"] else f"{row['sdk']} NOT installed")
        keys = ", ".join(row["key_env"]) or "-"
        print(f"{row['name']:<12} {sdk:<22} key: {keys:<18} {row['description']}")
    return 0


def _usage(message: str) -> int:
    print(f"llm-eval: error: {message}", file=sys.stderr)
    return 2


def _check(args: argparse.Namespace) -> int:
    from llm_eval.agents.llm import parse_rendering
    from llm_eval.calls import CallPolicy
    from llm_eval.cli.run import _local_server
    from llm_eval.errors import LlmEvalError
    from llm_eval.pricing import PriceFileError, load_prices
    from llm_eval.probe import (
        CheckSettings,
        CheckSetupError,
        check_model_sync,
        default_tasks,
        format_report,
    )

    from ..adapters.registry import UnknownProviderError, parse_model

    try:
        rendering = parse_rendering(args.rendering)
    except ValueError as exc:
        return _usage(f"--rendering: {exc}")
    try:
        if parse_model(args.model).provider == "replay":   # an unknown provider: here too
            return _usage(f"{args.model} answers from a recording: there is no provider to "
                          f"check")
        options = _local_server(args.model, args.base_url) if args.base_url else {}
        book = load_prices(args.prices)
        settings = CheckSettings(
            model=args.model, adapter_options=options, image="png" in rendering,
            tool_mode=args.tool_mode,
            knobs=((args.thinking_budget, args.reasoning_effort),)
            if args.thinking_budget is not None or args.reasoning_effort is not None else (),
            cache=args.cache, tasks=default_tasks(args.world, args.families))
        report = check_model_sync(settings, prices=book,
                                  policy=CallPolicy(max_attempts=args.max_attempts,
                                                    concurrency=None))
    except (UnknownProviderError, CheckSetupError, PriceFileError) as exc:
        return _usage(str(exc))
    except LlmEvalError as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return 1
    if args.check_json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(format_report(report))
    return 0 if report.ok else 1


def add_providers_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "providers", help="list the model providers; check a model before a run",
        description="List the model providers: name, whether the SDK is installed, the "
                    "environment variable holding the key, and what it reaches. "
                    "'providers check MODEL' tries what a run would send the model.")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of objects (name, available, sdk, key_env, "
                             "key_set, description)")
    parser.set_defaults(handler=_run)
    sub = parser.add_subparsers(dest="providers_command", metavar="check")
    check = sub.add_parser(
        "check", help="one minimal real call per feature a run would use",
        description="Before a paid sweep: one minimal real call per feature a run with these "
                    "settings would use (the phases' action tools in the tool mode, thinking "
                    "or reasoning effort, an image if the rendering has png, prompt caching), "
                    "each with a tiny reply cap; reports per feature accepted, refused (with "
                    "the provider's message) or ignored, the price source and what the check "
                    "cost. Exit 0: a run would get through; 1: something was refused or the "
                    "endpoint could not be reached; 2: a usage error.")
    check.add_argument("model", metavar="MODEL", help="provider/model, e.g. openai/gpt-5")
    check.add_argument("--base-url", metavar="URL",
                       help="an OpenAI-compatible (or the provider's) server to check instead")
    check.add_argument("--rendering", default="compact", metavar="R",
                       help="the run's rendering, e.g. compact or compact+png (png: an image "
                            "is checked)")
    check.add_argument("--tool-mode", choices=("tools", "text", "tags"), default="tools")
    check.add_argument("--thinking-budget", type=integer_at_least(1), metavar="TOKENS")
    check.add_argument("--reasoning-effort", choices=EFFORTS, metavar="E",
                       help=f"one of {', '.join(EFFORTS)}")
    check.add_argument("--cache", choices=("auto", "off"), default="auto",
                       help="the run's prompt caching (auto checks a cache read)")
    check.add_argument("--world", default="hunters", metavar="W",
                       help="the world whose phases' action tools are sent (default hunters; "
                            "tool ranges follow its grid)")
    check.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES),
                       metavar="F", help="the test phases whose tools are sent (default all)")
    check.add_argument("--prices", metavar="FILE",
                       help="model prices over LiteLLM's map, as for llm-eval run")
    check.add_argument("--max-attempts", type=integer_at_least(1), default=6, metavar="N",
                       help="attempts per call, as a run's calls.max_attempts (default 6; "
                            "rate limits and transient failures are retried, with waits)")
    check.add_argument("--json", action="store_true", dest="check_json",
                       help="print the report as JSON")
    check.set_defaults(handler=_check)
