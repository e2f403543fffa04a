"""Task spec of dominoes (16x16, deterministic): chain reactions of falling dominoes."""

from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "dominoes",
    # both bells rung, every domino lying to the left: fill the gap, run the chain right,
    # stand them up, run it left
    plan_witness=("click 10 14", "right", *_rep("noop", 8), "up", "left", *_rep("noop", 8)),
    cd_trigger="> rings 0",
    cd_change="a leaning domino reaches three cells instead of two, bridging a gap of two empty cells",
    cd_witness=("click 10 14", "right", *_rep("noop", 8), "up", "click 10 14", "right",
                *_rep("noop", 5)),
    # on a tick without left or right (a push could tip the same domino), a domino started leaning (or a bell rang) with no domino
    # leaning its way within two cells of it in the last frame: only a three-cell reach
    # knocks it over
    cd_condition=("& changed (& (== pushes (prev pushes)) (| (any (--> d (& (| (== (.. d st) 1) (== "
                  "(.. d st) -1)) (! (any (--> f (& (== (.. f st) (.. d st)) (& (== (sign0 (- "
                  "(px d) (px f))) (.. d st)) (<= (abs (- (px d) (px f))) 2)))) (prev "
                  "dominoes))))) dominoes) (any (--> i (& (.. (at bells i) rung) (& (! (.. (at "
                  "(prev bells) i) rung)) (! (any (--> f (& (== (.. f st) (if (== i 0) then -1 "
                  "else 1)) (<= (abs (- (px (at bells i)) (px f))) 2))) (prev dominoes)))))) "
                  "(range 0 2))))"),
    mfp_deliberate=("right", "noop", "noop", "noop", "click 9 14", "noop", "right", "noop",
                    "noop", "up", "left", "noop", "noop", "down", "noop"),
)
