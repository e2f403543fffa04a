from llm_eval.tasks.specs import WorldTaskSpec

# ride the raft over the lava, jump onto the lift, ride it to the ledge
_TO_LEDGE = ("right", "right", *("noop",) * 9, "right", "right", *("noop",) * 4, "right",
             "right", "noop", "noop", "up", "noop", "right", *("noop",) * 5, "left")

SPEC = WorldTaskSpec(
    "patrol",
    # ... then jump over the guard and run to the gem at the ledge's far end
    plan_witness=(*_TO_LEDGE, "up", *("left",) * 10),
    cd_trigger="> aloft 0",
    cd_change="the guard walks a cell every tick instead of every other tick",
    cd_witness=(*_TO_LEDGE, *("noop",) * 4),
    # the guard moved on a tick where the original guard rests (the clock was odd)
    cd_condition="& changed (== (% (prev clock) 2) 1)",
    mfp_deliberate=("right", "right", "up", "noop", "click 5 15", "noop", "right", "left",
                    "click 12 7", "noop", "up", "right", "noop"),
)
