"""The ``autumnbench`` profile's options: the published harness's settings, with its defaults.

- ``render_mode``: ``text`` (the harness's default: grids as JSON) or ``image`` (each grid a
  JPEG drawn as the harness draws it, ``llm_eval.render.harness_jpeg`` [R2]; the phases'
  behaviour in image mode [I7, M9, X12, P7]). A model job is in image mode when its rendering
  is ``png``: under this profile the rendering setting chooses the harness's mode.
- ``stack_frames`` (default true) and ``skip_frames`` (default false): the interaction phase's
  frame stacking [I6, I7].
- ``texts``: the harness's own instruction strings read from the user's checkout
  (``texts.py``), or None for our wording.

``job_settings`` gives the options that differ from the defaults, so a job run with the
defaults keeps the settings, id and transcript it had before these options existed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .texts import HarnessTexts

__all__ = ["HarnessSettings", "DEFAULT_SETTINGS", "render_mode_of"]


@dataclass(frozen=True)
class HarnessSettings:
    """The profile's options (module docstring)."""

    render_mode: Literal["text", "image"] = "text"
    stack_frames: bool = True
    skip_frames: bool = False
    texts: HarnessTexts | None = None

    def __post_init__(self) -> None:
        if self.render_mode not in ("text", "image"):
            raise ValueError(f"render_mode is text or image, got {self.render_mode!r}")

    @property
    def image(self) -> bool:
        return self.render_mode == "image"

    def text(self, key: str, ours: str) -> str:
        """The harness's string ``key`` when its texts were given, else ``ours``."""
        return ours if self.texts is None else self.texts[key]


DEFAULT_SETTINGS = HarnessSettings()


def render_mode_of(rendering: str | tuple[str, ...] | None) -> Literal["text", "image"]:
    """The harness's render mode a model's rendering asks for: ``png`` is image mode, a text
    rendering text mode; a mix of both is refused (the harness sends one or the other)."""
    if rendering is None:
        return "text"
    names = rendering if isinstance(rendering, tuple) else tuple(
        n.strip() for n in rendering.replace(",", "+").split("+") if n.strip())
    if "png" not in names:
        return "text"
    if len(names) > 1:
        raise ValueError(f"rendering {'+'.join(names)}: under the autumnbench protocol a model "
                         f"gets text (a text rendering: the harness's JSON) or images (png: the "
                         f"harness's image mode), not both")
    return "image"

