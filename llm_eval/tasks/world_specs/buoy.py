"""Task spec of buoy (16x16, deterministic): rafts that float until the weight stacked on
them exceeds their width."""

from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "buoy",
    # raft A (width 2) sunk under a heavy and a light weight (mass 3): move the crane over
    # it, switch to heavy, drop, switch back, drop, wait for the sinking
    plan_witness=(*_rep("left", 5), "up", "down", "up", "down", *_rep("noop", 10)),
    cd_trigger="> drops 3",
    cd_change="overloaded rafts sink two cells per tick (one when only one is free)",
    cd_witness=("down", "noop", "down", "noop", "down", "up", "down", *_rep("noop", 5)),
    # a raft went down two rows in one tick
    cd_condition="& changed (any (--> i (== (py (at rafts i)) (+ (py (at (prev rafts) i)) 2))) (range 0 3))",
    mfp_deliberate=("down", "noop", "up", "down", "noop", "left", "left", "down", "noop",
                    "noop", "noop", "right", "right", "right", "down", "noop"),
)
