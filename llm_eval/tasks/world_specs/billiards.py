from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "billiards",
    # the orange ball sunk in the right side pocket (15,8): nudge the cue ball up two cells
    # onto orange's row, then aim right and shoot hard (the cue stops at orange and hands it
    # the rest of its run)
    plan_witness=("left", "left", "down", "noop", "right", "right", "up", *_rep("noop", 10)),
    plan_mask=((15, 8), (11, 8)),
    cd_trigger="> hits 1",
    cd_change="a ball that meets a cushion stops dead instead of bouncing off it",
    cd_witness=("up", *_rep("noop", 19), "right", "up", *_rep("noop", 6)),
    # a ball that was rolling into a (non-pocket) cushion stands still where it was although
    # the cell it would have bounced to was free (before and after the tick)
    cd_condition=("& changed (any (--> b (any (--> k (& (== (.. k hue) (.. b hue)) (& (== (.. k "
                  "origin) (.. b origin)) (& (> (.. k run) 0) (& (== (.. b run) 0) (& (onBorder "
                  "(ahead k)) (& (! (in (ahead k) pocketSpots)) (& (! (takenBy (prev balls) "
                  "(bounceSpot k))) (! (takenBy balls (bounceSpot k))))))))))) (prev balls))) "
                  "balls)"),
    mfp_deliberate=("up", "noop", "noop", "noop", "left", "noop", "noop", "down", "click 12 3",
                    "up", "noop"),
)
