from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "teleport",
    # the crate on the pad in the right room (the lamp above it lit): push it up through the
    # orange portal into the middle room, follow it, push it up through the cyan portal into
    # the right room, follow it, and push it right and up onto the pad
    plan_witness=(*_rep("up", 6), "right", "right", "up", "up", "up", "left", "up", "right",
                  "down", "right", *_rep("up", 7), "left", "up", "right", "down", "right",
                  *_rep("up", 5)),
    plan_mask=((13, 4), (13, 0), (3, 6)),
    cd_trigger="> crateJumps 1",
    cd_change="whatever enters a portal comes out of its partner backwards, on the near side",
    cd_witness=(*_rep("up", 6), "right", "right", "up", "up", "up", "left", "up", "right",
                "down", "right", *_rep("up", 7)),
    # the player, a crate or the drone stands on the near side of the partner of the portal
    # it was stepping into (the original rule puts it on the far side, or leaves it)
    cd_condition=("& changed (| (any (--> d (& (jumping (.. (prev player) origin) d) (== (.. "
                  "player origin) (back (.. (prev player) origin) d)))) dirs) (| (any (--> c "
                  "(any (--> d (& (jumping (.. c origin) d) (any (--> n (== (.. n origin) (back "
                  "(.. c origin) d))) crates))) dirs)) (prev crates)) (& (jumping (.. (prev "
                  "drone) origin) (Position (.. (prev drone) dx) 0)) (== (.. drone origin) (back "
                  "(.. (prev drone) origin) (Position (.. (prev drone) dx) 0))))))"),
    mfp_deliberate=("up", "right", "noop", "left", "left", "click 7 11", "up", "up", "up",
                    "right", "right", "up", "up"),
)
