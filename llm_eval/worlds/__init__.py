"""Worlds: Autumn programs as Gymnasium-style environments and the registry of bundled worlds
(budgets belong to the WorldTest phases, ``worldtest.phase``: a world never truncates).

``make_world("gravity", seed=7)`` gives a ``World``; ``reset()`` then ``step(action)`` returns
``(frame, reward, terminated, truncated, info)``. See ``world`` for the contract.
"""

from .errors import UnknownWorldError, WorldError, WorldMetadataError, WorldStateError
from .registry import (
    WorldMetadata,
    WorldRegistry,
    WorldSpec,
    default_registry,
    make_world,
    world_names,
    world_spec,
)
from .spaces import ActionSpace
from .world import DEFAULT_SEED, RENDER_MODES, RuleCoverage, World

__all__ = [
    "World", "RuleCoverage", "ActionSpace", "RENDER_MODES", "DEFAULT_SEED",
    "WorldSpec", "WorldMetadata", "WorldRegistry", "default_registry", "make_world",
    "world_names", "world_spec",
    "WorldError", "UnknownWorldError", "WorldMetadataError", "WorldStateError",
]
