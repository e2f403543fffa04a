from llm_eval.tasks.specs import WorldTaskSpec, _rep

_FIRST = ("noop", "noop", "noop", "down") + _rep("noop", 6)          # eats at (7,15)
_SECOND = ("left", "up", "noop", "noop", "left")                       # eats at (5,12)
_THIRD = ("down", "left") + _rep("noop", 6)                            # eats at (14,13)

SPEC = WorldTaskSpec(
    "snake",
    # eat three foods (each appears at random once the last is eaten): three gold pips
    plan_witness=_FIRST + _SECOND + _THIRD,
    plan_mask=((0, 0), (1, 0), (2, 0)),
    cd_trigger="> score 0",
    cd_change="each food makes the snake grow by two segments instead of one",
    cd_witness=_FIRST + _SECOND + ("noop", "noop"),
    # the snake grew on a tick on which it ate nothing: the tail stayed where the original
    # program would have moved it (only the doubled growth leaves grow > 0 after a tick)
    cd_condition=("& changed (& (> (prev grow) 0) (& (== score (prev score)) (== (length snake) "
                  "(+ (length (prev snake)) 1))))"),
    mfp_deliberate=("down", "noop", "click 5 5", "left", "noop", "up", "click 6 9", "right",
                    "noop", "down"),
)
