from llm_eval.tasks.specs import WorldTaskSpec, _rep

_ROW8 = _rep("up", 6) + ("click 4 8", "click 4 13")      # the beam reaches (9,13) at tick 8

SPEC = WorldTaskSpec(
    "mirrors",
    # laser to row 8, flip four mirrors so the beam crosses all three targets, hold it there;
    # judged on the targets and the four flipped mirrors
    plan_witness=_ROW8 + ("click 13 13", "click 13 2", "noop", "noop"),
    plan_mask=((9, 13), (13, 7), (6, 2), (4, 8), (4, 13), (13, 13), (13, 2)),
    cd_trigger="> charged 0",
    cd_change="a target is charged as soon as the beam reaches it (1 tick instead of 3)",
    cd_witness=_ROW8 + ("noop", "noop", "click 13 13", "noop"),
    # a target became charged on this tick although it has been in the beam for fewer than 3
    # ticks in a row (the original charges a target exactly when its count reaches 3)
    cd_condition=("& changed (any (--> i (& (.. (at targets i) full) (& (! (.. (at (prev targets) i) "
                  "full)) (< (.. (at targets i) lit) 3)))) (range 0 (length targets)))"),
    mfp_deliberate=("up", "click 4 8", "noop", "up", "click 4 13", "left", "noop", "right",
                    "down", "click 9 5"),
)
