from llm_eval.tasks.specs import WorldTaskSpec, _rep

_ROUTE = ("click 4 1", *_rep("click 7 1", 3), "click 7 4", *_rep("click 7 7", 2),
          *_rep("click 4 7", 3), "click 4 10", *_rep("click 4 13", 2), "click 7 13",
          "click 10 13")

SPEC = WorldTaskSpec(
    "pipes",
    # high pressure, every pipe of the route source..drain turned into place, then the
    # gauge left to rise to 4 cells
    plan_witness=("right", *_ROUTE, *_rep("noop", 4)),
    cd_trigger="> level 2",
    cd_change="clicks turn pipes a quarter turn counter-clockwise instead of clockwise",
    # connect the route, let the gauge rise past 2, then turn a wet bend
    cd_witness=("right", *_ROUTE, *_rep("noop", 3), "click 7 7", "noop"),
    # a bend's turn went one step back (the original only ever turns a pipe one step
    # forward): it now shows the orientation a clockwise turn would not give
    cd_condition=("& changed (any (--> i (& (== (.. (at pipes i) pk) 1) (== (.. (at pipes i) "
                  "pt) (% (+ (.. (at (prev pipes) i) pt) 3) 4)))) (range 0 25))"),
    mfp_deliberate=("click 4 1", "click 7 1", "noop", "click 7 1", "click 7 1", "right",
                    "click 7 4", "noop", "down", "noop", "click 7 7", "up", "noop"),
)
