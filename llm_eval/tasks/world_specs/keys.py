from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "keys",
    # fetch the red key, carry it down through gate B to the shrine (it turns blue), come
    # back, click the lever (gate A opens, gate B shuts), walk through gate A, open the blue
    # door and walk onto the treasure
    plan_witness=("right", "right", "down", "down", "left", *_rep("down", 6), "right",
                  "left", *_rep("up", 5), "click 1 4", "up", "up", *_rep("right", 6),
                  *_rep("down", 8), "right"),
    cd_trigger="traded",
    cd_change="the shrine turns a key the other way round (red to yellow, yellow to blue, blue to red)",
    # red key to the shrine (red -> blue), step off and back on (blue -> red instead of yellow)
    cd_witness=("right", "right", "down", "down", "left", *_rep("down", 6), "right",
                "left", "right"),
    # the player has just stepped onto the shrine with a key and it turned backwards
    cd_condition=("& changed (& (== (.. player origin) shrinePos) (& (!= (prev held) \"none\") "
                  "(== held (turnBack (prev held)))))"),
    mfp_deliberate=("right", "right", "down", "down", "click 1 4", "left", "up", "up",
                    "right", "right", "right", "right", "right", "right", "right"),
)
