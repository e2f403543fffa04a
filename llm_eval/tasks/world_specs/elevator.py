from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "elevator",
    # deliver blue to floor 2 (by call), green from floor 3 to floor 1 (by arrows), purple from
    # floor 1 to floor 3 (by call): three gold marks, the fourth mark cell still dark
    plan_witness=("left", "click 5 3", "noop", "noop", "noop", "right", "up", "up", "left",
                  "down", "down", "down", "down", "right", "left", "click 5 1", "noop", "noop",
                  "noop", "right"),
    plan_mask=((0, 0), (1, 0), (2, 0), (3, 0)),
    cd_trigger="> delivered 0",
    cd_change="a called car travels two rows per tick while the call is two or more rows away",
    cd_witness=("left", "click 5 3", "noop", "noop", "noop", "right", "click 5 1"),
    # the car moved two rows in one tick (the original moves it at most one)
    cd_condition="& changed (== (abs (- (.. (.. car origin) y) (.. (.. (prev car) origin) y))) 2)",
    mfp_deliberate=("left", "up", "up", "click 5 1", "noop", "right", "down", "left",
                    "click 5 7", "noop"),
)
