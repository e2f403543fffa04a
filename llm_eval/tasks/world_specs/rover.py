from llm_eval.tasks.specs import WorldTaskSpec, _rep

_FETCH = ("click 7 13", *_rep("up", 4), *_rep("right", 3), "up", "down", *_rep("left", 8),
          *_rep("down", 4))

SPEC = WorldTaskSpec(
    "rover",
    # switch to strafe mode, slide to the sample at (10,8), carry it to the pad at (2,13);
    # judged on the delivered pip, the strafe lamp and the rover (body and nose) on the pad
    plan_witness=_FETCH,
    plan_mask=((0, 0), (15, 0), (2, 13), (2, 12)),
    cd_trigger="> delivered 0",
    cd_change="in drive mode left and right turn the rover the opposite way",
    # deliver a sample, switch back to drive mode, turn left
    cd_witness=(*_FETCH, "click 2 13", "left", "right"),
    # a drive-mode turn this tick left the rover facing the other way from the key's turn
    cd_condition=("& changed (& (!= spin 0) (== (.. rover facing) (% (+ (.. (prev rover) "
                  "facing) (- 4 spin)) 4)))"),
    mfp_deliberate=("up", "up", "left", "up", "right", "right", "click 6 11", "up", "left",
                    "left", "down", "click 5 10", "right"),
)
