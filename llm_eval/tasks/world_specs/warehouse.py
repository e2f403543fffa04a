from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "warehouse",
    plan_witness=("down", "right", "right", "noop", "noop", "up", "right", "right",
                  "right", "down", "down", "left", "left", "down", "left", "left", "up",
                  "left", "down"),
    cd_trigger="> pushes 1",
    cd_change="crates stop as soon as they are pushed onto the ice (no sliding)",
    cd_witness=("down", "right", "right", "noop", "noop", "up"),
    # a crate that had momentum on ice in the last frame, with the cell ahead of it free
    # (no wall, crate or pusher), stopped there
    cd_condition=("& changed (any (--> c (& (in (.. c origin) iceSpots) (& (== (.. c vx) 0) "
                  "(& (== (.. c vy) 0) (any (--> k (& (== (.. k origin) (.. c origin)) (& (| "
                  "(!= (.. k vx) 0) (!= (.. k vy) 0)) (& (! (blocked (prev crates) (shiftPos "
                  "(.. k origin) (.. k vx) (.. k vy)))) (!= (shiftPos (.. k origin) (.. k vx) "
                  "(.. k vy)) (.. (prev pusher) origin)))))) (prev crates)))))) crates)"),
    mfp_deliberate=("down", "right", "right", "noop", "noop", "up", "right", "right",
                    "down"),
)
