"""Estimates, aggregates and paired comparisons against cases worked out by hand."""

from __future__ import annotations

import math

import pytest
from analysis_fixtures import episode

from llm_eval.analysis import aggregate, estimate, paired_comparison
from llm_eval.analysis.stats import natural_key, sign_flip_p

# -- estimate ----------------------------------------------------------------------------------

def test_mean_and_standard_error_of_a_tiny_list():
    result = estimate([1, 2, 3, 4])
    # sample sd = sqrt(5/3); se = sd / 2
    assert result.mean == 2.5
    assert result.se == pytest.approx(math.sqrt(5 / 3) / 2)
    assert (result.n, result.n_clusters) == (4, 4)
    assert 1 <= result.ci_low < 2.5 < result.ci_high <= 4


def test_one_score_has_no_spread_so_its_error_and_interval_are_nan():
    result = estimate([0.7])
    assert result.mean == 0.7 and result.n == 1
    assert math.isnan(result.se) and math.isnan(result.ci_low) and math.isnan(result.ci_high)


def test_equal_scores_collapse_the_interval_with_or_without_clusters():
    for clusters in (None, ["a", "a", "b", "b", "c", "c"]):
        result = estimate([0.5] * 6, clusters)
        assert result.se == 0
        assert result.ci_low == pytest.approx(0.5) and result.ci_high == pytest.approx(0.5)


def test_the_cluster_robust_error_by_hand():
    # mean 0.75; residual sums per cluster: a = -0.75 + 0.25 = -0.5, b = 0.25 + 0.25 = 0.5
    # var = G/(G-1) * (0.25 + 0.25) / n^2 = 2 * 0.5 / 16
    result = estimate([0, 1, 1, 1], ["a", "a", "b", "b"])
    assert result.se == pytest.approx(0.25)
    assert result.n_clusters == 2


def test_singleton_clusters_give_the_plain_error():
    scores = [0.1, 0.9, 0.4, 0.6, 0.3]
    clustered = estimate(scores, ["a", "b", "c", "d", "e"])
    plain = estimate(scores)
    assert clustered.se == pytest.approx(plain.se)
    assert (clustered.ci_low, clustered.ci_high) == (plain.ci_low, plain.ci_high)


def test_one_cluster_is_the_bootstrap_of_its_own_scores():
    scores = [0, 1, 1, 0, 1]
    one = estimate(scores, ["w"] * 5)
    plain = estimate(scores)
    assert one.n_clusters == 1
    assert (one.mean, one.se, one.ci_low, one.ci_high) == \
        (plain.mean, plain.se, plain.ci_low, plain.ci_high)


def test_clusters_with_equal_means_still_show_the_noise_within_them():
    # resampling worlds alone would give [0.5, 0.5]; the two-stage bootstrap does not
    result = estimate([0, 1, 0, 1], ["a", "a", "b", "b"])
    assert result.ci_low < 0.5 < result.ci_high


def test_worlds_that_differ_widen_the_interval_over_the_plain_one():
    scores = [0, 0, 0, 0, 1, 1, 1, 1]
    worlds = ["a"] * 4 + ["b"] * 4
    assert estimate(scores, worlds).se > estimate(scores).se


def test_the_bootstrap_is_deterministic_by_seed():
    scores, worlds = [0.1, 0.9, 0.35, 0.2, 0.8, 0.55, 0.05, 1.0], list("aabbccdd")
    assert estimate(scores, worlds, seed=3) == estimate(scores, worlds, seed=3)
    assert estimate(scores, worlds, seed=3) != estimate(scores, worlds, seed=4)


# The bootstrap cases below have resampled means whose distribution is known exactly; the
# percentile bounds are then fixed numbers as long as the tail masses are far from 2.5% in
# units of sampling noise (sd of a 2.5% count: sqrt(n_boot * 0.025 * 0.975), 7 at 2000 and
# 22 at 20000 resamples), so they must hold for every seed.
SEEDS = range(5)


@pytest.mark.parametrize("seed", SEEDS)
def test_bootstrap_interval_of_two_worlds_scoring_0_and_1_by_hand(seed):
    # one score per world: draw two worlds; means 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4,
    # so 25% of resamples sit at each end (about 500 of 2000, against 50 in each tail)
    for clusters in (["a", "b"], None):
        result = estimate([0, 1], clusters, seed=seed)
        assert (result.ci_low, result.ci_high) == (0.0, 1.0)


@pytest.mark.parametrize("seed", SEEDS)
def test_bootstrap_interval_strictly_inside_by_hand(seed):
    # six draws of a fair 0/1 score, so 6 * mean ~ Binomial(6, 1/2): P(mean = 0) = 1/64 = 1.6%
    # (under 2.5%), P(mean <= 1/6) = 7/64 = 10.9% (over it): the interval is [1/6, 5/6].
    # It is the same for six one-score worlds (the ordinary bootstrap) and for three worlds
    # scoring 0 and 1 each (two-stage: any world drawn gives two fresh draws of 0 or 1).
    # Resampling worlds alone would give [0.5, 0.5]; drawing one score per world drawn,
    # Binomial(3, 1/2) / 3 with P(0) = 1/8, would give [0, 1].
    for clusters in (list("abcdef"), list("aabbcc")):
        result = estimate([0, 1] * 3, clusters, n_boot=20000, seed=seed)
        assert result.ci_low == pytest.approx(1 / 6) and result.ci_high == pytest.approx(5 / 6)


@pytest.mark.parametrize("seed", SEEDS)
def test_two_stage_bootstrap_draws_each_world_at_its_size_by_hand(seed):
    # world a = [0], world b = [0, 1]; draw two worlds, then each drawn world's size of scores:
    #   a, a (1/4):          two 0s                      -> mean 0
    #   a, b or b, a (1/2):  a 0 and two draws from b    -> 0, 1/3, 2/3
    #   b, b (1/4):          four draws from b           -> Binomial(4, 1/2) / 4
    # means above 2/3 come only from b, b: P(1) = 1/4 * 1/16 = 1.6% < 2.5%, P(>= 3/4) =
    # 1/4 * 5/16 = 7.8%, so the upper bound is 3/4; P(0) >= 1/4, so the lower bound is 0.
    # The ordinary bootstrap of [0, 0, 1] has P(1) = 1/27 = 3.7% (upper bound 1); resampling
    # worlds alone gives means 0, 1/3, 1/2 (upper bound 1/2).
    result = estimate([0, 0, 1], ["a", "b", "b"], n_boot=20000, seed=seed)
    assert result.ci_low == 0.0 and result.ci_high == pytest.approx(3 / 4)


def test_an_empty_list_or_mismatched_clusters_are_errors():
    with pytest.raises(ValueError, match="at least one"):
        estimate([])
    with pytest.raises(ValueError, match="2 cluster labels for 3"):
        estimate([1, 2, 3], ["a", "b"])


# -- aggregate ---------------------------------------------------------------------------------

def test_aggregate_excludes_and_counts_infrastructure_errors():
    episodes = [episode(1.0, world="a"), episode(0.0, world="b", seed=2),
                episode(status="infra_error", world="a", seed=3),
                episode(status="infra_error", world="a", seed=4),
                episode(status="failed", world="b", seed=5),
                episode(status="queued", world="b", seed=6),
                episode(status="running", world="b", seed=7),
                episode(status="infra_error", model="other")]
    rows = aggregate(episodes, ("model",))
    assert [r.key for r in rows] == [("m",), ("other",)]
    m, other = rows
    assert m.by == ("model",)
    assert (m.n_done, m.n_infra_error, m.n_failed, m.n_unfinished) == (2, 2, 1, 2)
    assert m.estimate.mean == 0.5 and m.estimate.n == 2 and m.estimate.n_clusters == 2
    assert other.estimate is None and other.n_infra_error == 1 and other.n_done == 0


def test_aggregate_groups_by_several_settings_in_natural_order():
    episodes = [episode(1.0, interaction_steps=200), episode(0.0, interaction_steps=50),
                episode(0.5, interaction_steps=50, seed=2), episode(1.0, interaction_steps=None)]
    rows = aggregate(episodes, ("model", "interaction_steps"))
    assert [r.key for r in rows] == [("m", "50"), ("m", "200"), ("m", "none")]
    assert rows[0].estimate.mean == 0.25
    (overall,) = aggregate(episodes, ())
    assert overall.key == () and overall.estimate.n == 4


def test_natural_key_orders_numbers_before_words():
    assert sorted(["full", "200", "50", "none", "7.5"], key=natural_key) == \
        ["7.5", "50", "200", "full", "none"]


# -- paired comparison -------------------------------------------------------------------------

def _arms(diffs: list[float]) -> tuple[list, list]:
    a = [episode(0.0, world=f"w{i}") for i in range(len(diffs))]
    b = [episode(d, world=f"w{i}", model="b") for i, d in enumerate(diffs)]
    return a, b


@pytest.mark.parametrize("diffs, p", [
    ([1, 1, 1], 2 / 8),              # only all-plus and all-minus reach |mean| 1
    ([1, 2, -1], 6 / 8),             # sums 2, 4, -2, 0, 0, 2, -4, -2: six reach |2|
    ([3, 1, 1, 1], 2 / 16),
    ([1, 1, 1, 1, 0], 4 / 32),       # the zero's sign does not matter
    ([0, 0, 0], 1.0),
])
def test_exact_sign_flip_p_values_by_hand(diffs, p):
    assert sign_flip_p(diffs) == (pytest.approx(p), "exact")
    result = paired_comparison(*_arms(diffs))
    assert result.p_value == pytest.approx(p) and result.method == "exact"


def test_paired_comparison_means_difference_and_interval():
    a = [episode(s, world=w, seed=seed) for w, seed, s in
         [("x", 1, 0.0), ("x", 2, 0.5), ("y", 1, 0.0), ("y", 2, 1.0)]]
    b = [episode(s, world=w, seed=seed, model="b") for w, seed, s in
         [("x", 1, 1.0), ("x", 2, 1.0), ("y", 1, 0.5), ("y", 2, 1.0)]]
    result = paired_comparison(a, b, a_label="old", b_label="new")
    assert (result.a_label, result.b_label, result.n_pairs) == ("old", "new", 4)
    assert result.mean_a == pytest.approx(0.375) and result.mean_b == pytest.approx(0.875)
    assert result.mean_diff == pytest.approx(0.5)
    assert result.ci_low <= 0.5 <= result.ci_high and result.unmatched == 0
    # diffs 1, 0.5, 0.5, 0: |sum| >= 2 only for + + + with the zero either way
    assert result.p_value == pytest.approx(4 / 16)


def test_unmatched_and_unfinished_episodes_are_counted_not_paired():
    a = [episode(0.0, seed=1), episode(0.0, seed=2), episode(0.0, seed=3),
         episode(status="infra_error", seed=4)]
    b = [episode(1.0, seed=1, model="b"), episode(status="infra_error", seed=2, model="b"),
         episode(1.0, seed=5, model="b"), episode(1.0, seed=4, model="b")]
    result = paired_comparison(a, b)
    # paired: seed 1; unmatched: A seeds 2 and 3, B seeds 5 and 4 (A's 4 was not scored)
    assert result.n_pairs == 1 and result.unmatched == 4


def test_repeats_of_one_key_are_averaged_when_repeat_is_not_matched():
    a = [episode(0.0, repeat=0), episode(1.0, repeat=1)]
    b = [episode(1.0, repeat=0, model="b"), episode(1.0, repeat=1, model="b")]
    by_repeat = paired_comparison(a, b)
    assert by_repeat.n_pairs == 2 and by_repeat.mean_diff == 0.5
    pooled = paired_comparison(a, b, match=("world", "family", "seed"))
    assert pooled.n_pairs == 1 and pooled.mean_a == 0.5 and pooled.mean_diff == 0.5


def test_no_pairs_gives_nan_and_method_none():
    result = paired_comparison([episode(1.0, world="x")], [episode(1.0, world="y")])
    assert result.n_pairs == 0 and result.method == "none" and result.unmatched == 2
    assert math.isnan(result.mean_diff) and math.isnan(result.p_value)


def test_many_pairs_use_a_seeded_monte_carlo_test():
    a, b = _arms([1.0] * 12 + [0.0] * 8)
    result = paired_comparison(a, b, n_perm=2000)
    assert result.method == "monte-carlo" and result.n_pairs == 20
    # the exact p is 2 / 2**12; Monte Carlo with the +1 correction is about 1 / 2001
    assert 1 / 2001 <= result.p_value < 0.01
    assert paired_comparison(a, b, n_perm=2000) == result
    assert sign_flip_p([0.0] * 20, n_perm=100) == (1.0, "monte-carlo")


def test_by_arm_labels_a_model_with_the_settings_that_vary_among_its_episodes():
    from llm_eval.analysis import by_arm

    episodes = [episode(model="m", prompt="terse", history="full", seed=1),
                episode(model="m", prompt="reflective", history="full", seed=1),
                episode(model="m", prompt="reflective", history="full", seed=2),
                episode(model="n", prompt="terse", history="full", seed=1),
                episode(model="n", prompt="terse", history="full", seed=2),
                episode(model="random", seed=1)]
    arms = by_arm(episodes)
    assert [e.model for e in arms] == ["m prompt=terse", "m prompt=reflective",
                                       "m prompt=reflective", "n", "n", "random"]
    assert [e.job_id for e in arms] == [e.job_id for e in episodes]   # same episodes
    assert episodes[0].model == "m"                                   # inputs untouched
    rows = {r.key: r for r in aggregate(arms, ("model",))}
    assert rows[("m prompt=reflective",)].n_done == 2 and rows[("n",)].n_done == 2


def test_an_arm_mixing_models_or_arm_settings_on_one_task_is_not_averaged():
    from llm_eval.analysis import AnalysisError
    from llm_eval.analysis.stats import mixed_settings

    a = [episode(0.0, model="random"), episode(1.0, model="oracle"),
         episode(0.0, model="random", seed=2)]
    b = [episode(0.5, model="m", tool_mode="text"), episode(0.5, model="m", tool_mode="tools")]
    assert mixed_settings(a, ("world", "family", "seed", "repeat")) == \
        {"model": ["oracle", "random"]}
    assert mixed_settings(b, ("world", "family", "seed", "repeat")) == \
        {"tool_mode": ["text", "tools"]}
    # matched on the setting, or on distinct tasks, nothing is mixed
    assert mixed_settings(a, ("world", "family", "seed", "repeat", "model")) == {}
    assert mixed_settings(a[:1] + a[2:], ("world", "family", "seed", "repeat")) == {}
    with pytest.raises(AnalysisError, match="arm A mixes model=oracle, model=random"):
        paired_comparison(a, [episode(1.0, model="b")])
    with pytest.raises(AnalysisError, match="arm new mixes tool_mode=text, tool_mode=tools"):
        paired_comparison([episode(0.0, model="random")], b, b_label="new")


def test_repeats_of_one_arm_with_equal_settings_are_not_a_mix():
    from llm_eval.analysis.stats import mixed_settings

    a = [episode(0.0, repeat=0, prompt="p"), episode(1.0, repeat=1, prompt="p")]
    assert mixed_settings(a, ("world", "family", "seed")) == {}
    assert mixed_settings([a[0], episode(1.0, repeat=1, prompt="q")],
                          ("world", "family", "seed")) == {"prompt": ["p", "q"]}


def test_arms_sort_word_by_word_with_numbers_in_order():
    from llm_eval.analysis.stats import arm_key

    arms = ["m steps=20 history=full", "m steps=5 history=full", "m steps=5 history=3",
            "m steps=100 history=3", "a-model"]
    assert sorted(arms, key=arm_key) == ["a-model", "m steps=5 history=3",
                                         "m steps=5 history=full", "m steps=20 history=full",
                                         "m steps=100 history=3"]
