"""The ``autumnbench`` profile's options: the published harness's settings, with its defaults.

- ``render_mode``: ``text`` (the harness's default: grids as JSON) or ``image`` (each grid a
  JPEG drawn as the harness draws it, ``llm_eval.render.harness_jpeg`` [R2]; the phases'
  behaviour in image mode [I7, M9, X12, P7]). A model job is in image mode when its rendering
  is ``png``: under this profile the rendering setting chooses the harness's mode.
- ``stack_frames`` (default true) and ``skip_frames`` (default false): the interaction phase's
  frame stacking [I6, I7].
- ``texts``: the harness's own instruction strings read from the user's checkout
  (``texts.py``), or None for our wording.

A job's settings hold only the options that differ from the defaults (``stack_frames: false``,
``skip_frames: true``, ``harness_texts``: which texts with their sha256, and
``harness_texts_dir``: where they were read, left out of the id), so a job run with the
defaults keeps the settings, id and transcript it had before these options existed.
``settings_of(job_settings, model_plays=...)`` builds a job's ``AutumnBenchSettings``, reading the
texts again and refusing them if they are no longer what the job recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .texts import HarnessTexts, HarnessTextsError, load_harness_texts

__all__ = ["AutumnBenchSettings", "DEFAULT_SETTINGS", "render_mode_of", "settings_of",
           "job_fields"]


@dataclass(frozen=True)
class AutumnBenchSettings:
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


DEFAULT_SETTINGS = AutumnBenchSettings()


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



def job_fields(*, stack_frames: bool, skip_frames: bool,
               harness_texts: str | None) -> dict[str, Any]:
    """The settings a job of the autumnbench protocol adds for these options (module
    docstring): none at the defaults."""
    fields: dict[str, Any] = {}
    if not stack_frames:
        fields["stack_frames"] = False
    if skip_frames:
        fields["skip_frames"] = True
    if harness_texts is not None:
        texts = load_harness_texts(harness_texts)
        fields["harness_texts"] = texts.record()
        fields["harness_texts_dir"] = texts.folder
    return fields


def settings_of(settings: dict[str, Any], *, model_plays: bool) -> AutumnBenchSettings:
    """The ``AutumnBenchSettings`` of a job played under a protocol that takes them (its profile's
    ``takes_autumnbench_settings``), from its settings. Image mode is a model's (its rendering
    ``png``); a local agent plays in text mode."""
    texts = None
    if "harness_texts" in settings:
        texts = load_harness_texts(settings["harness_texts_dir"])
        if texts.record() != settings["harness_texts"]:
            raise HarnessTextsError(f"{settings['harness_texts_dir']}: the harness's texts "
                                    f"there are not the ones this job recorded (their sha256 "
                                    f"differ): the checkout changed since")
    mode = render_mode_of(settings.get("rendering")) if model_plays else "text"
    return AutumnBenchSettings(render_mode=mode, stack_frames=settings.get("stack_frames", True),
                           skip_frames=settings.get("skip_frames", False), texts=texts)
