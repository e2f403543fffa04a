"""Task spec of shatter (16x16, stochastic): stones with a hidden random hardness thrown at
two rows of glass."""

from llm_eval.tasks.specs import WorldTaskSpec, _rep

SPEC = WorldTaskSpec(
    "shatter",
    # a hole through both glass rows at x=3, every other pane intact: only hard stones
    # (hidden, fixed by the seed's draws) break glass, and a throw shows its effect only
    # 9-10 ticks later
    plan_witness=(*_rep("left", 4), *_rep("up", 3), *_rep("noop", 10)),
    plan_mask=tuple((x, y) for y in (4, 5) for x in range(1, 15)),
    cd_trigger="> broken 1",
    cd_change="soft stones smash the glass too: hardness no longer matters",
    cd_witness=("up", "up", "up", "right", "right", *_rep("noop", 5), "up", *_rep("noop", 9)),
    # a soft stone that was rising right under a pane in the last frame smashed it
    cd_condition=("& changed (any (--> s (& (! (.. s hard)) (& (atGlass s (prev panes)) (! "
                  "(paneAt (above s) panes))))) (prev stones))"),
    mfp_deliberate=("up", "up", "left", "up", "noop", "noop", "right", "right", "up", "noop",
                    "noop", "noop", "noop", "click 6 5", "noop"),
)
