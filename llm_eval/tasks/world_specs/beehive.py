from llm_eval.tasks.specs import WorldTaskSpec

_LADEN_DIAGONAL = (
    "(any (--> i (& (.. (at (prev bees) i) laden) (& (!= (.. (.. (at (prev bees) i) origin) x) 4) "
    "(& (!= (.. (.. (at (prev bees) i) origin) y) 2) (allowed (Position (.. (.. (at (prev bees) i) "
    "origin) x) (+ (.. (.. (at (prev bees) i) origin) y) (sign (- 2 (.. (.. (at (prev bees) i) "
    "origin) y)))))))))) (range 0 (length bees)))")

SPEC = WorldTaskSpec(
    "beehive",
    # plant four flowers round the doorway, walk the beekeeper onto one to keep it full, wait
    # for the twelfth comb: the hive full (the meadow's own flowers hold only 6 nectar)
    plan_witness=("click 4 1", "click 5 2", "click 4 3", "click 5 1", "left", "left", "left",
                  "up", "up", "up", "up", "up", "up", *("noop",) * 7),
    plan_mask=tuple((x, y) for y in (1, 2, 3) for x in range(4)),
    # the meadow's own two flowers give only 6 deliveries: the trigger needs planting or refilling
    cd_trigger="> delivered 6",
    cd_change="laden bees fly home up or down first instead of sideways first",
    cd_witness=("click 4 1", "click 5 2", "click 4 3", "click 5 1", *("noop",) * 11),
    # a bee that was laden, off the doorway's row and column, with the cell above/below it
    # (toward the doorway) open: sideways-first would have moved it sideways, it went vertically
    cd_condition="& changed " + _LADEN_DIAGONAL,
    mfp_deliberate=("click 6 3", "noop", "left", "up", "click 5 4", "noop", "up", "click 6 3",
                    "noop", "up", "left"),
)
