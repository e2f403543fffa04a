from llm_eval.tasks.specs import WorldTaskSpec

_TO_HEAP = ("right",) * 7

SPEC = WorldTaskSpec(
    "sandbox",
    # pour water twice on the heap on the right shelf: each drop wets the grain it lands
    # on, which runs off the heap sideways; the goal is the heap's new colours and shape
    # (and the dropper above it)
    plan_witness=(*_TO_HEAP, "up", *("noop",) * 14, "up", *("noop",) * 4),
    cd_trigger="> wetted 1",
    cd_change="water soaks into dry sand without wetting it (the grains stay dry and keep piling)",
    cd_witness=(*_TO_HEAP, "up", *("noop",) * 14, "up", "noop", "up", *("noop",) * 12),
    # a drop soaked in this tick (it touched dry sand) and a grain it touched is still dry:
    # the original rule would have turned that grain wet (brown)
    cd_condition=("& changed (any (--> g (& (! (.. g wet)) (any (--> p (touching p (.. g "
                  "origin))) soaked))) grains)"),
    mfp_deliberate=("down", "noop", "down", "right", "right", "noop", "up", "noop", "right",
                    "right", "right", "up", "noop", "noop", "left", "noop"),
)
