from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "lightsout",
    # every light out: two crosses go with a click each; the one wrapped around the right
    # edge needs a roll first (optimal: 4 steps; clicks alone need more)
    plan_witness=("click 3 4", "click 5 1", "left", "click 0 1"),
    plan_mask=tuple((x, y) for y in range(6) for x in range(6)),
    cd_trigger="& rolled (> presses 1)",
    cd_change="a click also toggles the four diagonal neighbours of the clicked cell",
    cd_witness=("right", "click 2 2", "up", "click 2 2", "noop", "click 3 3"),
    # a light was pressed this tick: every cell has an in-board diagonal neighbour, which
    # the changed rule toggles and the original does not
    cd_condition="& changed pressed",
    mfp_deliberate=("click 2 2", "noop", "right", "click 0 0", "down", "click 5 5", "left",
                    "click 3 2", "up", "noop", "click 3 2"),
)
