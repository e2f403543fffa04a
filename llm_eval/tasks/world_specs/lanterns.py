from llm_eval.tasks.specs import WorldTaskSpec, _rep

_TO_TWO = ("left", *_rep("up", 4), "down", "down", *_rep("right", 8), *_rep("up", 3))

SPEC = WorldTaskSpec(
    "lanterns",
    # a walk through the maze lighting all five lanterns
    plan_witness=("left", *_rep("up", 4), "right", "right", *_rep("up", 4), "left",
                  "left", *_rep("up", 3), "down", "down", *_rep("right", 7), "up", "up",
                  *_rep("right", 3), "up", *_rep("left", 3), *_rep("down", 4), "right", "down",
                  "right", *_rep("down", 4), "right", "down"),
    cd_trigger="> litCount 1",
    cd_change="a flare lights the 5x5 square around it instead of the 3x3 square",
    # light two lanterns, then throw a flare into the dark
    cd_witness=(*_TO_TWO, "click 5 2", "noop"),
    # a flare burns and a cell two steps from it, on the map, is lit by nothing else (no
    # lantern's light, not the player's): the original's 3x3 flare leaves it dark
    cd_condition=("& changed (& (> (length flare) 0) (any (--> q (& (onMap q) (! (any (--> t "
                  "(== (.. t origin) q)) (concat (list glow torch)))))) (map (--> d (Position "
                  "(+ (.. d x) (.. (.. (head flare) origin) x)) (+ (.. d y) (.. (.. (head flare) "
                  "origin) y)))) (filter (--> d (| (== (abs (.. d x)) 2) (== (abs (.. d y)) 2))) "
                  "square5))))"),
    mfp_deliberate=("left", "up", "up", "click 6 9", "up", "up", "noop", "down", "down",
                    "right", "right", "click 4 11"),
)
