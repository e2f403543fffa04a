from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "sparks",
    plan_witness=("click 5 5", "click 5 5", "click 6 5", "click 6 5", "click 5 6",
                  "click 5 6"),
    plan_mask=((5, 5), (6, 5), (5, 6)),
    cd_trigger="> clock 30",
    cd_change="the torch emits a spark every 2 ticks instead of every 6",
    cd_witness=_rep("noop", 40),
    # time passed (the sparks aged) on an even tick that is not a multiple of 6, and the
    # torch's new spark shows alone at its mouth (12,11): no other spark, crystal or jar
    cd_condition=("& changed (& (== (% (prev clock) 2) 0) (& (!= (% (prev clock) 6) 0) (& (> "
                  "(length sparks) 0) (any (--> s (& (== (.. s age) 0) (& (== (.. s origin) "
                  "(Position 12 11)) (& (== (length (filter (--> o (== (.. o origin) "
                  "(Position 12 11))) sparks)) 1) (& (!= (.. jar origin) (Position 12 11)) (& "
                  "(! (any (--> c (== (.. c origin) (Position 12 11))) crystals)) (!= (map "
                  "(--> i (.. (at sparks i) age)) (range 0 (- (length sparks) 1))) (map (--> "
                  "o (.. o age)) (prev sparks))))))))) (list (at sparks (- (length sparks) "
                  "1)))))))"),
    mfp_deliberate=("click 8 8", "noop", "noop", "right", "click 4 4", "noop", "noop",
                    "down"),
)
