from llm_eval.tasks.specs import WorldTaskSpec

# pick up the pebbles at (3,12) and (4,13) (the second turns up at tick 4 under seed 1)
_GATHER = ("left", "left", "left", "left", "up", "right", "down")

SPEC = WorldTaskSpec(
    "slingshot",
    # (the second pebble is not there before tick 4: the path must not reach it early)
    plan_witness=_GATHER,
    cd_trigger="> gathered 1",
    cd_change="shots fly two cells a tick instead of one",
    cd_witness=(*_GATHER, "click 4 0", *("noop",) * 6),
    # a shot of the last frame had its next cell inside the field, off the slinger and
    # away from every bird (so the original rule shows it there)
    cd_condition=("& changed (any (--> s (& (inField (shiftBy (.. s origin) (.. s vx) (.. s "
                  "vy))) (& (!= (shiftBy (.. s origin) (.. s vx) (.. s vy)) (.. slinger "
                  "origin)) (! (any (--> b (<= (+ (abs (- (.. (.. b origin) x) (+ (.. (.. s "
                  "origin) x) (.. s vx)))) (abs (- (.. (.. b origin) y) (+ (.. (.. s origin) "
                  "y) (.. s vy))))) 1)) (prev birds)))))) (prev shots))"),
    mfp_deliberate=("left", "left", "left", "left", "up", "click 3 2", "noop", "right",
                    "down", "click 12 13", "noop", "noop", "up", "noop"),
)
