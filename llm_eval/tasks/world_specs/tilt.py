"""Task spec of tilt (16x16, deterministic): gravity switched by buttons, one persistent
velocity shared by every ball."""

from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "tilt",
    # green and blue in the left pocket, red at (1,4), gravity pointing left: gravity up,
    # then left while the balls still rise, then down when green has cleared the right ledge
    # (timing with the shared velocity), then left again once they have settled
    plan_witness=("click 8 0", "click 0 8", "noop", "click 8 15", *_rep("noop", 4),
                  "click 0 8"),
    cd_trigger="> switches 2",
    cd_change="gravity pulls twice as hard: it adds 2 to the shared velocity per tick instead of 1",
    cd_witness=("click 8 0", *_rep("noop", 4), "click 0 8", *_rep("noop", 4), "click 8 15",
                *_rep("noop", 5), "click 15 8", "noop", "noop"),
    # without a kick, from no speed towards gravity's wall, a ball moved two cells that way
    # in one tick (the original pull gives one cell in the first tick)
    cd_condition=("& changed (& (== kicks (prev kicks)) (& (== (+ (* (.. (prev vel) x) (.. grav "
                  "x)) (* (.. (prev vel) y) (.. grav y))) 0) (any (--> i (== (+ (* (- (.. (.. "
                  "(at balls i) origin) x) (.. (.. (at (prev balls) i) origin) x)) (.. grav x)) "
                  "(* (- (.. (.. (at balls i) origin) y) (.. (.. (at (prev balls) i) origin) y)) "
                  "(.. grav y))) 2)) (range 0 3))))"),
    mfp_deliberate=("click 15 8", "noop", "noop", "left", "noop", "click 8 0", "noop", "noop",
                    "click 8 15", "right", "noop", "noop", "noop"),
)
