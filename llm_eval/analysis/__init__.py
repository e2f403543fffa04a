"""Analysis of run directories: scores with intervals, paired comparisons, compute scaling
and behaviour (docs/spec/worldtest.md 7 and 8).

- ``data``: ``load_episodes(run_dirs)`` reads the run stores into ``Episode`` records;
- ``stats``: ``estimate`` (mean, cluster-robust error, world-clustered bootstrap interval),
  ``aggregate`` by settings (``by_arm`` labels each model's arms), ``paired_comparison`` of
  two arms with a sign-flip test;
- ``scaling``: score against realised compute per world (``scaling_curves``,
  ``trend_summary``) and whether each compute knob changed what the provider did
  (``knob_checks``);
- ``behaviour``: actions by kind, resets, LCS ratios around resets, rule coverage and invalid
  actions from transcripts (``behaviour_of``, ``behaviour_table``, ``summarise``);
(``llm-eval compare`` is ``llm_eval.cli.compare``.)

numpy only (no scipy); everything random is seeded, so the same runs give the same numbers.
"""

from ..lazy import lazy_exports

_EXPORTS = {
    "Behaviour": ".behaviour", "behaviour_of": ".behaviour", "behaviour_table": ".behaviour",
    "lcs_ratio": ".behaviour", "summarise": ".behaviour", "AnalysisError": ".data",
    "Episode": ".data", "load_episodes": ".data", "MEASURES": ".scaling", "Curve": ".scaling",
    "KnobCheck": ".scaling", "compute_of": ".scaling", "knob_checks": ".scaling",
    "scaling_curves": ".scaling", "trend_summary": ".scaling", "Comparison": ".stats",
    "Estimate": ".stats", "GroupRow": ".stats", "aggregate": ".stats", "by_arm": ".stats",
    "estimate": ".stats", "paired_comparison": ".stats", "setting_label": ".stats",
}

__all__ = ["AnalysisError", "Episode", "load_episodes", "Estimate", "estimate", "GroupRow",
           "aggregate", "by_arm", "Comparison", "paired_comparison", "setting_label", "MEASURES",
           "Curve", "compute_of", "scaling_curves", "trend_summary", "KnobCheck",
           "knob_checks", "Behaviour", "behaviour_of", "behaviour_table", "lcs_ratio",
           "summarise"]

# each name is imported from its module when first used (``llm_eval.lazy``)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
