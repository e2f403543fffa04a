from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "icepond",
    plan_witness=(*_rep("right", 5), "down", "up", *_rep("noop", 8)),
    cd_trigger="> poured 2",
    cd_change="water freezes as soon as winter starts (no 3-tick delay)",
    cd_witness=("down", "noop", "down", "noop", "down", "up", *_rep("noop", 5)),
    # in the first 3 ticks of winter, a drop turned to ice that was resting water with open
    # air above in the last frame (so the season froze it, not a click)
    cd_condition=("& changed (& (prev winter) (& (< (prev chill) 3) (any (--> i (& (.. (at "
                  "drops i) icy) (& (! (.. (at (prev drops) i) icy)) (& (| (in (at2 (.. (at "
                  "(prev drops) i) origin) 0 1) stoneSpots) (in (at2 (.. (at (prev drops) i) "
                  "origin) 0 1) (map (--> d (.. d origin)) (prev drops)))) (! (| (in (at2 (.. "
                  "(at (prev drops) i) origin) 0 -1) stoneSpots) (| (in (at2 (.. (at (prev "
                  "drops) i) origin) 0 -1) (map (--> d (.. d origin)) (prev drops))) (| (== "
                  "(at2 (.. (at (prev drops) i) origin) 0 -1) (.. (prev tap) origin)) (== "
                  "(at2 (.. (at (prev drops) i) origin) 0 -1) (Position 11 0)))))))))) (range "
                  "0 (length (prev drops))))))"),
    mfp_deliberate=("down", "right", "right", "down", "noop", "up", "noop", "noop",
                    "noop", "noop", "click 3 10", "up", "noop"),
)
