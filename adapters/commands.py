"""``llm-eval providers [--json]``: the registered providers, whether each SDK is installed,
and which key variable each needs."""

from __future__ import annotations

import argparse
import json

from .registry import providers

__all__ = ["add_providers_parser"]


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


def add_providers_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "providers", help="list the model providers",
        description="List the model providers: name, whether the SDK is installed, the "
                    "environment variable holding the key, and what it reaches.")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of objects (name, available, sdk, key_env, "
                             "key_set, description)")
    parser.set_defaults(handler=_run)
