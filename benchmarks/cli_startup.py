"""How long ``llm-eval`` takes to answer the commands that do no work: ``--help``,
``providers`` and every subcommand's ``--help``. Each is run as a fresh process (the
``llm-eval`` script beside this Python, else ``python -m llm_eval``); the best of ``--repeat``
wall times is shown, against the target of 0.3 s (issue 22).

    python benchmarks/cli_startup.py                 # this checkout
    python benchmarks/cli_startup.py --root OTHER    # another checkout (PYTHONPATH=OTHER)
    python benchmarks/cli_startup.py --json

Also shown: a bare ``python -c pass``, the floor every command pays (interpreter start and
the site packages' ``.pth`` files). Exit status 1 if a command fails or misses the target.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

TARGET_S = 0.3
ROOT = Path(__file__).resolve().parents[1]


def _subcommands(env: dict[str, str], cwd: Path) -> list[list[str]]:
    """Every subcommand path of the parser (``["autumn", "trace"]``, ``["run"]``...)."""
    code = ("import argparse, json\n"
            "from llm_eval.cli import build_parser\n"
            "def walk(parser, prefix):\n"
            "    for action in parser._actions:\n"
            "        if isinstance(action, argparse._SubParsersAction):\n"
            "            for name, sub in action.choices.items():\n"
            "                yield prefix + [name]\n"
            "                yield from walk(sub, prefix + [name])\n"
            "print(json.dumps(list(walk(build_parser(), []))))\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, cwd=cwd).stdout
    return json.loads(out)


def _time(argv: list[str], env: dict[str, str], repeat: int,
          cwd: Path) -> tuple[float, int]:
    best, code = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, cwd=cwd)
        best = min(best, time.perf_counter() - start)
        code = code or done.returncode
    return best, code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=None,
                        help="run the llm_eval of this checkout (PYTHONPATH), not the installed")
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (best counts)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    env = dict(os.environ)
    # ``python -m`` puts the working directory first on the path: run from the checkout timed
    cwd = (args.root or ROOT).resolve()
    script = Path(sys.executable).with_name("llm-eval")
    if args.root is not None:
        env["PYTHONPATH"] = str(args.root.resolve())
        command = [sys.executable, "-m", "llm_eval"]
    elif script.exists():
        command = [str(script)]
    else:
        command = [sys.executable, "-m", "llm_eval"]
    cases = [["--help"], ["providers"]] + [[*path, "--help"] for path in _subcommands(env, cwd)]
    rows = [{"command": "(python -c pass)", "seconds": _time([sys.executable, "-c", "pass"],
                                                             env, args.repeat, cwd)[0],
             "exit": 0}]
    for case in cases:
        seconds, code = _time(command + case, env, args.repeat, cwd)
        rows.append({"command": "llm-eval " + " ".join(case), "seconds": seconds, "exit": code})
    failed = [r for r in rows[1:] if r["exit"] != 0 or r["seconds"] >= TARGET_S]
    if args.json:
        print(json.dumps({"target_s": TARGET_S, "runner": " ".join(command), "rows": rows},
                         indent=1))
    else:
        width = max(len(r["command"]) for r in rows)
        print(f"best of {args.repeat}, wall time; runner: {' '.join(command)}"
              + (f" (PYTHONPATH={env['PYTHONPATH']})" if args.root else ""))
        for r in rows:
            mark = "" if r["command"].startswith("(") else \
                ("  FAIL" if r in failed else "  ok")
            print(f"{r['command']:<{width}}  {r['seconds']:6.3f} s{mark}")
        slowest = max(rows[1:], key=lambda r: r["seconds"])
        print(f"slowest: {slowest['command']} {slowest['seconds']:.3f} s; target < {TARGET_S} s:"
              f" {'FAIL' if failed else 'PASS'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
