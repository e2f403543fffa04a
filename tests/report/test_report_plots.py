"""Plots: PNG bytes that decode, the same bytes for the same data, no software tag or date."""

from __future__ import annotations

import io
from types import SimpleNamespace

from PIL import Image

from llm_eval.report.plots import behaviour_png, family_scores_png, scaling_png

ESTIMATES = {("random", "mfp"): (0.2, 0.05, 0.35), ("oracle", "mfp"): (1.0, 1.0, 1.0),
             ("oracle", "cd"): (0.9, 0.7, 1.0), ("$x$ model", "overall"): (0.5, 0.4, 0.6)}


def _curve(world: str, scale: float):
    points = [(scale * i, (i % 3) / 2) for i in range(1, 7)]
    band = [(x, 0.5, 0.3, 0.7) for x, _ in points]
    return SimpleNamespace(world=world, measure="total_tokens", points=points, band=band,
                           slope=0.01, verdict="helps")


def _decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.format == "PNG" and image.width > 100 and image.height > 100
    return image


def test_family_scores_are_stable_png_without_metadata_text():
    models = ["random", "oracle", "$x$ model"]   # a $ must not start mathtext
    families = ["mfp", "cd", "planning", "overall"]
    first = family_scores_png(models, families, ESTIMATES)
    assert first == family_scores_png(models, families, ESTIMATES)
    image = _decode(first)
    assert not any(key.lower() in ("software", "creation time", "date")
                   for key in image.info if isinstance(key, str))
    assert b"matplotlib" not in first.lower() and b"http" not in first


def test_scaling_small_multiples_and_behaviour_decode():
    curves = [_curve("overall", 100), _curve("warehouse", 100), _curve("easel", 0.001),
              _curve("$weird$", 1)]
    first = scaling_png(curves, "cost_usd")
    assert first == scaling_png(curves, "cost_usd")
    _decode(first)
    values = {"random": {"reset_share": [0.1, 0.2], "lcs_mean": [0.5], "invalid_rate": [0.0],
                         "coverage": [None, 0.3]}, "oracle": {}}
    _decode(behaviour_png(["random", "oracle"], values))


def test_many_arms_are_rows_each_with_its_own_colour_and_full_name():
    """32 arms of one model: a forest of intervals that grows down, not 128 slivers of bars
    squeezed beside a legend of names cut to one prefix."""
    from llm_eval.report.plots import MANY_ARMS, model_colours

    arms = [f"openai-chat/model prompt={p} rendering={r} history={h} max_output_tokens={m}"
            for p in ("default", "reflective") for r in ("compact", "json")
            for h in ("full", 3) for m in (100, 200, 300, 400)]
    assert len(arms) == 32 > MANY_ARMS
    assert len(set(model_colours(arms).values())) == 32
    families = ["mfp", "cd", "planning", "overall"]
    estimates = {(a, f): (0.5, 0.4, 0.6) for a in arms for f in families}
    few = _decode(family_scores_png(arms[:MANY_ARMS], families, estimates))
    many = _decode(family_scores_png(arms, families, estimates))
    assert many.height > 4 * few.height and many.width < 1400   # down, not across
    values = {a: {"reset_share": [0.1, 0.2], "coverage": [0.5]} for a in arms}
    rows = _decode(behaviour_png(arms, values))
    assert rows.height > 1000 and rows.width < 1400
