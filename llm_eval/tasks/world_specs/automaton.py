from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "automaton",
    plan_witness=(*_rep("noop", 3), "up", "click 3 1", "click 20 1", "click 12 1"),
    plan_mask=((3, 1), (4, 1), (5, 1), (12, 1), (20, 1), (24, 0)),
    cd_trigger="> gen 10",
    cd_change="the edges stop wrapping: cells outside the row count as dead",
    cd_witness=_rep("noop", 20),
    # a generation was computed and row 1 is not the wrapped rule applied to the row below
    # it (the generation it came from)
    cd_condition=("& changed (& (> gen (prev gen)) (any (--> bs (!= bits (map (--> i (at (at "
                  "ruleTables rule) (+ (* 4 (at bs (% (+ i 24) 25))) (+ (* 2 (at bs i)) (at "
                  "bs (% (+ i 1) 25)))))) (range 0 25)))) (list (map (--> i (if (in i (.. "
                  "(head (filter (--> r (== (.. (.. r origin) y) 2)) rows)) live)) then 1 "
                  "else 0)) (range 0 25)))))"),
    mfp_deliberate=("click 2 0", "noop", "noop", "right", "noop", "click 5 1", "noop",
                    "down", "noop", "left", "up", "noop", "up"),
)
