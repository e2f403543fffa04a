from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "wildfire",
    # fly the tanker up one, right along row 9 and down the east belt (soaking four of its
    # trees), step off it, then cut and replant two trees at the NW grove: the goal is
    # judged on the four wet (blue) belt trees and the two saplings, before either dries or
    # grows back into a tree (10 ticks)
    plan_witness=("up", "right", "right", "right", "right", "right", "right", "down", "down",
                  "down", "left", "click 3 6", "click 3 6", "click 6 3", "click 6 3"),
    plan_mask=((16, 9), (16, 10), (16, 11), (16, 12), (3, 6), (6, 3)),
    # the trigger needs the tanker flown into a fire: lightning strikes the SE grove at tick
    # 6, the tanker douses (16,14) at tick 10; then a stump cut on the south belt burns
    cd_trigger="> doused 0",
    cd_change="stumps catch fire from burning neighbours like trees (firebreaks stop working)",
    cd_witness=("down", "down", "down", "right", "right", "right", "right", "right", "down",
                "right", "click 13 16") + _rep("noop", 6),
    # a patch that was a stump in the last frame is burning now: the original never burns
    # a stump (lightning strikes only trees, a click turns a stump into a sapling)
    cd_condition=("& changed (any (--> p (& (== (.. p kind) 1) (any (--> q (& (== (.. q origin) "
                  "(.. p origin)) (== (.. q kind) 3))) (prev patches)))) patches)"),
    mfp_deliberate=("click 3 3", "right", "right", "right", "click 4 3", "noop", "up",
                    "click 3 6", "down"),
)
