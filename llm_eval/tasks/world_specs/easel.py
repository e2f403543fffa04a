from llm_eval.tasks.specs import WorldTaskSpec

SPEC = WorldTaskSpec(
    "easel",
    plan_witness=("click 1 9", "click 4 4", "click 2 9", "click 4 4"),
    cd_trigger="> strokes 3",
    cd_change="red and blue mix to pink instead of purple",
    cd_witness=("click 4 4", "click 4 5", "click 4 6", "click 4 7", "click 2 9",
                "click 4 4", "noop"),
    # a pink cell (red and blue mixed) is on the canvas
    cd_condition='any (--> d (== (.. d tint) "pink")) dabs',
    mfp_deliberate=("click 3 3", "click 1 9", "click 3 3", "up", "click 6 5", "click 2 9",
                    "click 6 5", "down", "click 5 2", "right", "click 5 2"),
)
