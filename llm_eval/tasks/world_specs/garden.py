from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "garden",
    plan_witness=("click 9 11", *_rep("right", 7)),
    plan_mask=((9, 10), (8, 1), (9, 1), (10, 1)),
    cd_trigger="> planted 1",
    cd_change="plants grow a cell every 2 ticks instead of every 3",
    cd_witness=("click 1 11", "click 3 11", *_rep("noop", 10)),
    # a watered plant with no rain in its column (a drop hides what it covers), now or in
    # the last frame, grew on a tick that is not a multiple of 3 (clock % 3 != 0: only the
    # 2-tick rule grows it), or did not grow, below its full height, on one that is (the
    # 3-tick rule would have); planted or picked this tick, it grew from height 1
    cd_condition=("& changed (any (--> pl (& (> (.. pl water) 0) (& (! (any (--> dr (== "
                  "(colOf dr) (colOf pl))) (concat (list rain (prev rain))))) (if (== (% "
                  "(prev clock) 3) 0) then (& (!= (% (prev clock) 2) 0) (< (.. pl tall) 5)) "
                  "else (& (== (% (prev clock) 2) 0) (if (== (length (plantIn (prev plants) "
                  "(colOf pl))) 0) then (== (.. pl tall) 2) else (any (--> k (| (> (.. pl "
                  "tall) (.. k tall)) (& (== (.. k tall) 5) (== (.. pl tall) 2)))) (plantIn "
                  "(prev plants) (colOf pl))))))))) plants)"),
    mfp_deliberate=("click 2 11", "right", "right", "down", "noop", "noop", "down",
                    "click 8 11", "noop", "noop", "noop"),
)
