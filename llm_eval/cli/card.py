"""``llm-eval card RUN_DIR [--arm ARM] [--json] [--spec FILE]``: the reproduction card of each
arm of a run (``report.card``). ``--spec FILE`` writes the chosen arm's rerun spec as YAML
(needs ``--arm`` when the run has several arms). Exit 0 after printing, 2 when the directory
is not a run, the arm is unknown or the spec cannot be written."""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_card_parser", "cmd_card"]

EXIT_USAGE = 2


def cmd_card(args: argparse.Namespace) -> int:
    import yaml

    from ..atomic import write_atomic
    from ..errors import LlmEvalError
    from ..report.card import build_cards, format_card

    try:
        cards = build_cards(args.run_dir, args.arm)
    except LlmEvalError as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.spec:
        if len(cards) != 1:
            print(f"llm-eval: error: --spec {args.spec}: {args.run_dir} has {len(cards)} "
                  f"arms; choose one with --arm ({', '.join(c['arm'] for c in cards)})",
                  file=sys.stderr)
            return EXIT_USAGE
        try:
            write_atomic(args.spec, yaml.safe_dump(cards[0]["rerun"]["spec"],
                                                   sort_keys=True).encode())
        except OSError as exc:
            print(f"llm-eval: error: cannot write {args.spec}: {exc.strerror or exc}",
                  file=sys.stderr)
            return EXIT_USAGE
    if args.json:
        print(json.dumps(cards, indent=2, sort_keys=True))
    else:
        print("\n\n".join(format_card(card) for card in cards))
    return 0


def add_card_parser(commands) -> argparse.ArgumentParser:
    """Add ``card`` to the ``llm-eval`` subcommands."""
    card = commands.add_parser(
        "card", help="print how to reproduce each arm of a run, and its provenance",
        description="For each arm of RUN_DIR: the spec and command that rerun exactly its "
                    "jobs (checked against the job ids), the versions, settings, seeds, the "
                    "model id sent and the snapshot the provider reported, price source, "
                    "dates and counts.")
    card.add_argument("run_dir", metavar="RUN_DIR", help="a run directory")
    card.add_argument("--arm", metavar="ARM", help="only this arm (as the report names it)")
    card.add_argument("--json", action="store_true", help="print the cards as JSON")
    card.add_argument("--spec", metavar="FILE",
                      help="write the arm's rerun spec as YAML to FILE")
    card.set_defaults(handler=cmd_card)
    return card
