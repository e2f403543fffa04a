from llm_eval.tasks.specs import WorldTaskSpec, _rep

# the three basins' water (rows 11..14), the three drains (row 15) and the umbrella
_BASINS = tuple((x, y) for y in range(11, 15) for x in (*range(1, 5), *range(6, 10), *range(11, 15)))

SPEC = WorldTaskSpec(
    "rain",
    # the left basin brimful while the middle and right ones are drained empty (both drains
    # open), with the umbrella at x=6 tilted left, shedding the middle basin's rain into the
    # left one
    plan_witness=("click 12 15", "click 7 15", "left", "up", *_rep("noop", 21)),
    plan_mask=(*_BASINS, (2, 15), (7, 15), (12, 15), (5, 5), (6, 5), (7, 5), (6, 6)),
    cd_trigger="> drained 3",
    cd_change="an open drain lets two units of water out per tick instead of one",
    cd_witness=("click 7 15", *_rep("noop", 9)),
    # an open drain's basin holds two units less than it held plus what fell in this tick
    # (the original rule lets one unit out)
    cd_condition=("& changed (any (--> i (& (.. (at basins i) open) (== (.. (at basins i) level) "
                  "(- (min 16 (+ (.. (at (prev basins) i) level) (.. (at basins i) gain))) 2)))) "
                  "(range 0 3))"),
    mfp_deliberate=("click 7 15", "left", "up", "noop", "click 12 15", "right", "right", "down",
                    "noop", "click 7 15", "noop"),
)
