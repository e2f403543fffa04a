from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "magnets",
    plan_witness=("down", "right", "right", "right", "right", "noop", "noop", "up", "up",
                  "noop", "up", "noop"),
    cd_trigger="> flips 0",
    cd_change="iron is repelled by the magnet instead of attracted",
    cd_witness=("left", "left", "click 3 5", "left", "noop", "noop"),
    # an iron puck slid (it is not where it stood, or was pushed to by the magnet, before
    # the pucks moved): iron only slides away from the magnet now
    cd_condition=("& changed (any (--> i (& (== (.. (at pucks i) pole) 0) (!= (.. (at pucks "
                  "i) origin) (if (== (.. (at (prev pucks) i) origin) (.. magnet origin)) "
                  "then (Position (+ (.. (.. magnet origin) x) (- (.. (.. magnet origin) x) "
                  "(.. (.. (prev magnet) origin) x))) (+ (.. (.. magnet origin) y) (- (.. (.. "
                  "magnet origin) y) (.. (.. (prev magnet) origin) y)))) else (.. (at (prev "
                  "pucks) i) origin))))) (range 0 (length pucks)))"),
    mfp_deliberate=("left", "left", "click 3 5", "up", "noop", "right", "down", "down",
                    "noop", "right"),
)
