"""What a model is sent of an ``autumnbench`` observation, and the prompt set with the
harness's own texts.

``model_view(obs)``: in text mode the observation's text; in image mode [A7] the line "The
current grid is as follows:" and the observation's images as JPEGs (the harness's agent drops
the observation text: intros, frame labels, the planning mask and the CD texts never reach
the model). The per-turn message then adds the offered actions and the instructions (the
prompt variant's ``turn`` template).

``harness_prompts(base, texts)``: ``base`` (the ``autumnbench`` prompt variant) with its
``system`` and ``turn`` templates replaced by the harness's strings (``texts.py``), rendered
without the stripping our templates get, so the harness's words arrive to the last newline.
"""

from __future__ import annotations

from ...agents.prompts import PromptSet
from ...render.harness_jpeg import render_harness_jpeg
from ..observation import Observation
from .texts import IMAGE_GRID_LINE, HarnessTexts

__all__ = ["model_view", "harness_prompts", "JPEG"]

JPEG = "image/jpeg"


def model_view(obs: Observation) -> tuple[str, tuple[bytes, ...]]:
    """(the observation text a model reads, the JPEG images it is sent) (module docstring)."""
    if not obs.image_mode:
        return obs.text or "", ()
    return IMAGE_GRID_LINE, tuple(render_harness_jpeg(p.rows, fill=p.fill, crosses=p.crosses)
                                  for p in obs.pictures)


class HarnessPromptSet(PromptSet):
    """A prompt set whose ``system`` and ``turn`` are the harness's: filled, never stripped."""

    __slots__ = ()

    def render(self, name: str, **values: object) -> str:
        if name not in ("system", "turn"):
            return super().render(name, **values)
        return self.texts[name].format(**{k: str(v) for k, v in values.items()})


def harness_prompts(base: PromptSet, texts: HarnessTexts) -> PromptSet:
    """``base`` with the harness's system prompt and per-turn instructions [A2, A3]."""
    system = texts["system"].replace("{", "{{").replace("}", "}}")
    return HarnessPromptSet(f"{base.variant}+harness-texts",
                            {**base.texts, "system": system, "turn": texts.turn_template()})
