"""A run's seed for a task that takes it from the run (an imported one), under the rule of the
protocol it is played under (its profile's ``accepts_degenerate_seed``): the worldtest protocol
refuses a seed of 0 (mod 2**32), which removes every random choice, and the autumnbench
protocol accepts it with a warning, as the published harness does. (Apart from
``programs``, which the profiles' phases use: the seed rule reads the profiles.)
"""

from __future__ import annotations

from ..seeds import DEGENERATE_SEED_REASON, is_degenerate_seed
from .protocols import protocol as protocol_profile

__all__ = ["seeded", "DEGENERATE_SEED_WARNING"]

DEGENERATE_SEED_WARNING = ("seed {seed} is 0 mod 2**32: every random choice of the world returns "
                           "its first option (the published harness's default; accepted under "
                           "--protocol autumnbench only)")


def seeded(task, seed: int | None, protocol: str = "worldtest") -> tuple[object, str | None]:
    """``(task, warning)``: ``task`` itself when its file fixes the seed, else a copy with the
    run's ``seed`` (module docstring); a refused seed raises ``TaskFileError``."""
    from ..errors import TaskFileError

    if task.seed is not None:
        return task, None
    if seed is None:
        raise TaskFileError(f"task {task.id!r} takes its seed from the run: give --seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise TaskFileError(f"task {task.id!r}: the seed must be a non-negative integer, "
                            f"got {seed!r}")
    warning = None
    if is_degenerate_seed(seed):
        if not protocol_profile(protocol).accepts_degenerate_seed:
            raise TaskFileError(f"task {task.id!r}: seed {seed} is refused: "
                                f"{DEGENERATE_SEED_REASON}; give another seed (or --protocol "
                                "autumnbench, which accepts it as the published harness does)")
        warning = DEGENERATE_SEED_WARNING.format(seed=seed)
    copy = task.model_copy(update={"seed": seed})
    return copy.located(task.root), warning
