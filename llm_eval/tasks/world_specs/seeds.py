from llm_eval.tasks.specs import WorldTaskSpec, _rep

# seed 1: a seed dropped at x=12 falls in calm air; one dropped over the pond at x=11 meets
# the west wind (from tick 12) and drifts to x=9; both sprout
_SOW = (*_rep("right", 5), "down", "left", "down", *_rep("noop", 7))

SPEC = WorldTaskSpec(
    "seeds",
    # seed 1: wait over the pond (x=11) until late, drop one seed: the west wind that rises
    # at tick 12 carries it to x=9 (between stone and pond), where it sprouts
    plan_witness=(*_rep("right", 4), *_rep("noop", 3), "down", *_rep("noop", 7)),
    cd_trigger="> planted 1",
    cd_change="falling seeds drift against the wind",
    # both sprout; then a third seed, dropped in the west wind, drifts east
    cd_witness=(*_SOW, "noop", "down", "noop", "noop"),
    # a falling seed stands away from where the wind's drift would have put it
    cd_condition=("& changed (any (--> sd (& (!= (.. sd want) 0) (!= (.. (.. sd origin) x) "
                  "(clamp (+ (.. sd px) (.. sd want)))))) seeds)"),
    mfp_deliberate=("down", "right", "right", "down", "noop", "left", "left", "left",
                    "left", "down", "noop", "noop", "right", "down", "noop", "noop"),
)
