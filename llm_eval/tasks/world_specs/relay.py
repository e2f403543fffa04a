from llm_eval.tasks.specs import WorldTaskSpec, _rep

_CROSS = ("right", "right", "click 4 6", "down", *_rep("right", 8), "down", "down")

SPEC = WorldTaskSpec(
    "relay",
    # blue holds the left plate, control passes to red, red crosses the gate to its pad
    plan_witness=_CROSS,
    cd_trigger="> homed 0",
    cd_change="a click on a bot hands control to the next bot in order (red, blue, green)",
    # red home; then a click on blue (on the plate) hands control to green instead
    cd_witness=(*_CROSS, "noop", "click 6 9", "up"),
    # a bot was clicked this tick and is not the controlled one afterwards
    cd_condition="& changed (& (>= picked 0) (! (.. (at bots picked) lead)))",
    mfp_deliberate=("right", "right", "click 4 6", "down", "right", "right", "right", "right",
                    "click 2 12", "up", "right", "click 6 9", "left"),
)
