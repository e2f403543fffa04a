"""Masked-frame prediction tasks: a seeded trajectory that mixes random actions with the
deliberate experiments of the world's notes, a rectangle hidden on the last frames whose
content depends on the dynamics, and six candidate patches: the truth and five distractors
made from the world itself (one step earlier, one step later, another action at the last
step, the content shifted by a cell, a cell of the previous patch missing or recoloured with
a colour of the world), taking the kinds in turn.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter

from .models import MFPHidden, MFPPublic, MFPTask, Rect
from .specs import WorldTaskSpec
from .trajectory import Grid, make, patch, patch_inside, play, random_actions

__all__ = ["build_mfp", "choose_rect", "distractors", "TRAJECTORY_LENGTH", "MASKED_FRAMES"]

TRAJECTORY_LENGTH = 30
MASKED_FRAMES = 2
RECT_SIZES = ((3, 3), (4, 3), (3, 4), (2, 3), (3, 2), (2, 2))
ALTERNATIVES = ("noop", "left", "right", "up", "down")
KINDS = ("earlier", "later", "action", "shift", "recolour")


def _trajectory(spec: WorldTaskSpec) -> list[str]:
    """Deliberate actions in order, with seeded random actions between them."""
    rng = random.Random(spec.mfp_seed * 7919 + 11)
    size = make(spec.world, spec.mfp_seed).size
    deliberate = list(spec.mfp_deliberate)
    actions: list[str] = []
    while len(actions) < TRAJECTORY_LENGTH:
        if deliberate and rng.random() < 0.6:
            actions.append(deliberate.pop(0))
        else:
            actions.extend(random_actions(rng, size, 1))
    return actions


def _score(grids: list[Grid], rect: Rect, masked_from: int) -> int:
    """How much the rectangle depends on the dynamics: 0 unless its final content differs
    from the last shown frame; else the number of distinct patches along the trajectory."""
    final = patch(grids[-1], rect)
    if final == patch(grids[masked_from - 1], rect):
        return 0
    return len({str(patch(g, rect)) for g in grids})


def choose_rect(grids: list[Grid], masked_from: int) -> Rect:
    """The rectangle whose content changes most along the trajectory (first best in scan
    order, so the choice is deterministic)."""
    n = len(grids[0])
    best, best_score = None, 0
    for w, h in RECT_SIZES:
        for y in range(n - h + 1):
            for x in range(n - w + 1):
                rect = Rect(x=x, y=y, width=w, height=h)
                score = _score(grids, rect, masked_from)
                if score > best_score:
                    best, best_score = rect, score
    if best is None:
        raise ValueError("no rectangle changes between the last shown frame and the final one")
    return best


def distractors(spec: WorldTaskSpec, actions: list[str], grids: list[Grid],
                rect: Rect) -> dict[str, list[tuple[Grid, str]]]:
    """Candidate wrong patches by kind (in order of preference), each with how it was made."""
    out: dict[str, list[tuple[Grid, str]]] = {k: [] for k in KINDS}
    out["earlier"].append((patch_inside(grids[-2], rect), "one step earlier"))
    later = make(spec.world, spec.mfp_seed)
    play(later, actions + ["noop"])
    out["later"].append((patch_inside(later.frame.to_rows(), rect), "one step later (noop)"))
    for alt in (*ALTERNATIVES, *(f"click {x} {y}" for x, y in rect.cells())):
        if alt == actions[-1]:
            continue
        g = play(make(spec.world, spec.mfp_seed), actions[:-1] + [alt])[-1]
        out["action"].append((patch_inside(g, rect),
                              f"last action {alt} instead of {actions[-1]}"))
    for dx, dy, name in ((1, 0, "left"), (-1, 0, "right"), (0, 1, "up"), (0, -1, "down")):
        shifted = patch(grids[-1], rect, dx, dy)
        if shifted is not None:
            out["shift"].append((shifted, f"content shifted {name} by one cell"))
    # a cell missing or recoloured (with a world colour, the commonest first), made from the
    # previous frame's patch: made from the truth, it would make the truth the option closest
    # to all others, a give-away
    base = patch_inside(grids[-2], rect)
    counts = Counter(c for g in grids for row in g for c in row)
    background = counts.most_common(1)[0][0]
    colours = sorted(counts, key=lambda c: (-counts[c], c))
    cells = sorted(rect.cells(), key=lambda q: base[q[1] - rect.y][q[0] - rect.x] == background)
    for (cx, cy) in cells:
        here = base[cy - rect.y][cx - rect.x]
        for colour in colours:
            if colour != here:
                recoloured = [list(r) for r in base]
                recoloured[cy - rect.y][cx - rect.x] = colour
                out["recolour"].append(
                    (recoloured, f"cell ({cx},{cy}) of the previous patch recoloured {colour}"))
    for k in range(3, len(grids)):
        out["earlier"].append((patch_inside(grids[-k], rect), f"{k - 1} steps earlier"))
    return out


def _pick(truth: Grid, candidates: dict[str, list[tuple[Grid, str]]]) -> list[tuple[Grid, str]]:
    """Truth plus five distinct distractors, taking the kinds in turn so that every kind
    that has a distinct candidate is represented."""
    chosen: list[tuple[Grid, str]] = [(truth, "truth")]
    queues = {k: list(v) for k, v in candidates.items()}
    while len(chosen) < 6 and any(queues.values()):
        for kind in KINDS:
            queue = queues[kind]
            while queue:
                candidate, source = queue.pop(0)
                if all(candidate != c for c, _ in chosen):
                    chosen.append((candidate, source))
                    break
            if len(chosen) == 6:
                break
    return chosen


def build_mfp(spec: WorldTaskSpec) -> MFPTask:
    """The MFP task of a world from its spec (deterministic)."""
    actions = _trajectory(spec)
    grids = play(make(spec.world, spec.mfp_seed), actions)
    masked_from = len(grids) - MASKED_FRAMES
    rect = choose_rect(grids, masked_from)
    truth = patch_inside(grids[-1], rect)
    chosen = _pick(truth, distractors(spec, actions, grids, rect))
    if len(chosen) < 6:
        raise ValueError(f"{spec.world}: only {len(chosen) - 1} distinct distractors")
    # the truth's position comes from the world's name (so the worlds spread it over all six
    # positions), the distractors are shuffled with a seeded generator
    key = zlib.crc32(spec.world.encode())
    wrong = chosen[1:]
    random.Random(key + spec.mfp_seed).shuffle(wrong)
    at = key % 6
    ordered = wrong[:at] + [chosen[0]] + wrong[at:]
    options = [o for o, _ in ordered]
    sources = [s for _, s in ordered]
    shown = []
    for t, g in enumerate(grids):
        rows: list[list[str | None]] = [list(r) for r in g]
        if t >= masked_from:
            for x, y in rect.cells():
                rows[y][x] = None
        shown.append(rows)
    public = MFPPublic(actions=actions, frames=shown, mask=rect, masked_from=masked_from,
                       options=options)
    return MFPTask(id=f"{spec.world}-mfp", world=spec.world, seed=spec.mfp_seed, public=public,
                   hidden=MFPHidden(answer=sources.index("truth"), option_sources=sources))
