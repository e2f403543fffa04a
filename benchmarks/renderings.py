"""Size of each rendering of a typical 16x16 frame: characters and tokens of the text forms,
bytes of the PNG forms.

The frame comes from a bundled world after seeded random play (``--world``, default: the first
16x16 world; ``--steps`` random actions, default 50). Tokens are counted with litellm's
``token_counter`` for ``gpt-4o`` (the o200k tokenizer), which works offline: the environment
variable LITELLM_LOCAL_MODEL_COST_MAP=True is set before litellm is imported, so it does not
fetch its price list. The diff is taken between the last two frames. A second table gives the
same figures for every 16x16 bundled world.

    python benchmarks/renderings.py
    python benchmarks/renderings.py --world sparks --steps 100 --seed 3
    python benchmarks/renderings.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

TOKEN_MODEL = "gpt-4o"


def token_counter():
    """litellm's token counter, imported offline (no price-list download)."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    import litellm

    return lambda text: litellm.token_counter(model=TOKEN_MODEL, text=text)


@dataclass
class Measure:
    rendering: str
    chars: int | None
    tokens: int | None
    bytes: int


def play(name: str, steps: int, seed: int) -> list:
    """Every frame of ``steps`` seeded random actions in world ``name`` (f0 first)."""
    from llm_eval.worlds import make_world

    world = make_world(name, seed=seed)
    frame, _ = world.reset()
    frames = [frame]
    rng = random.Random(seed)
    space = world.action_space
    for _ in range(steps):
        frames.append(world.step(space.sample(rng))[0])
    return frames


def measure(frames: list, count) -> list[Measure]:
    from llm_eval.render import render_compact, render_diff, render_json, render_png

    previous, frame = frames[-2], frames[-1]
    texts = {
        "json (published)": render_json(frame),
        "compact": render_compact(frame),
        "diff (last action)": render_diff(frame, previous),
    }
    out = [Measure(k, len(v), count(v), len(v.encode("utf-8"))) for k, v in texts.items()]
    diffs = [render_diff(b, a) for a, b in zip(frames, frames[1:])]
    out.append(Measure(f"diff (mean of all {len(diffs)} actions)",
                       round(statistics.mean(len(d) for d in diffs)),
                       round(statistics.mean(count(d) for d in diffs)),
                       round(statistics.mean(len(d.encode("utf-8")) for d in diffs))))
    images = {
        "png 24px, grid lines": render_png(frame, metadata=False),
        "png 24px, grid lines + parse-back metadata": render_png(frame),
        "png 24px, grid lines, coordinates": render_png(frame, coordinates=True, metadata=False),
        "png 8px, no grid lines": render_png(frame, cell_size=8, grid_lines=False,
                                             metadata=False),
    }
    out += [Measure(k, None, None, len(v)) for k, v in images.items()]
    return out


def main(argv: list[str] | None = None) -> int:
    from llm_eval.worlds import default_registry

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", help="bundled world to play (default: the first 16x16 one)")
    parser.add_argument("--steps", type=int, default=50, help="random actions before measuring")
    parser.add_argument("--seed", type=int, default=1, help="world seed and action seed")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    args = parser.parse_args(argv)

    registry = default_registry()
    sixteen = [s.name for s in registry.specs() if s.size == 16]
    name = args.world or (sixteen[0] if sixteen else None)
    if name is None:
        parser.error("no 16x16 bundled world; pass --world")
    registry.get(name)  # an unknown name gets its "did you mean" here
    count = token_counter()
    played = play(name, args.steps, args.seed)
    frame = played[-1]
    main_rows = measure(played, count)
    per_world = {other: measure(play(other, args.steps, args.seed), count) for other in sixteen}

    if args.json:
        print(json.dumps({"world": name, "steps": args.steps, "seed": args.seed,
                          "token_model": TOKEN_MODEL,
                          "frame": [asdict(m) for m in main_rows],
                          "per_world": {w: [asdict(m) for m in rows]
                                        for w, rows in per_world.items()}}, indent=2))
        return 0

    size = frame.size
    colours = len(frame.colours())
    print(f"{name}: {size}x{size} frame after {args.steps} random actions (seed {args.seed}), "
          f"{colours} colours; tokens: litellm.token_counter(model={TOKEN_MODEL!r})")
    print()
    print(f"{'rendering':<44} {'chars':>7} {'tokens':>7} {'bytes':>7}")
    for m in main_rows:
        chars = "" if m.chars is None else f"{m.chars:>7}"
        tokens = "" if m.tokens is None else f"{m.tokens:>7}"
        print(f"{m.rendering:<44} {chars:>7} {tokens:>7} {m.bytes:>7}")
    json_tokens, compact_tokens = main_rows[0].tokens, main_rows[1].tokens
    print(f"\njson / compact tokens: {json_tokens / compact_tokens:.1f}x")
    if per_world:
        print("\nEvery 16x16 world after the same play (tokens; png bytes without metadata):")
        print(f"{'world':<12} {'json':>6} {'compact':>8} {'diff':>6} {'ratio':>6} {'png':>6}"
              "   (diff: mean over the actions)")
        ratios = []
        for world, rows in per_world.items():
            ratio = rows[0].tokens / rows[1].tokens
            ratios.append(ratio)
            print(f"{world:<12} {rows[0].tokens:>6} {rows[1].tokens:>8} {rows[3].tokens:>6} "
                  f"{ratio:>5.1f}x {rows[4].bytes:>6}")
        print(f"{'median':<12} {'':>6} {'':>8} {'':>6} {statistics.median(ratios):>5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
