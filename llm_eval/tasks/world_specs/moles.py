from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "moles",
    # six whacks by clicks while the mallet walks (off the holes) to (9,1)
    plan_witness=("up", "up", "up", "up", "right", "click 8 2", "right", "click 8 5",
                  "click 8 8", "right", "click 2 2", *_rep("right", 6), "noop", "click 5 8",
                  "click 2 5"),
    plan_mask=(*((x, 0) for x in range(10)), (0, 5), (9, 1)),
    cd_trigger="> score 2",
    cd_change="moles duck back two ticks earlier (they stay up 1 to 3 ticks instead of 3 to 5)",
    # three whacks, then watch the next mole go down early
    cd_witness=(*_rep("noop", 5), "click 8 2", "noop", "click 8 5", "click 8 8",
                *_rep("noop", 6)),
    # a mole that had more than one tick left in the last frame is gone from its hole, and
    # no star shows there (it was not whacked): the original keeps it up one more tick
    cd_condition=("& changed (any (--> m (& (> (.. m left) 1) (& (! (moleAt moles (.. m "
                  "origin))) (! (moleAt stars (.. m origin)))))) (prev moles))"),
    mfp_deliberate=("noop", "click 5 5", "down", "right", "right", "click 2 2", "noop",
                    "click 8 5", "up", "click 5 8", "noop"),
)
