"""Episodes you can watch: a transcript's recorded frames as an animated GIF or APNG.

``episode_frames(path)`` reads a transcript as a stream and yields one ``Shot`` per
observation the agent got: its phase, step, frame (with its masked cells) and the action the
agent answered it with (the ``action`` event of the same index; none for the last frame of a
phase). ``animate(shots, fmt)`` draws each frame with the renderer every other picture uses
(``render.png.render_image``: masked cells hatched) above a band with ``phase step N:
action`` written in it, and encodes them as an animated GIF (``fmt="gif"``) or APNG
(``"png"``) with Pillow. Cells are sized so the grid is about 160 pixels wide, and the GIF is
built on one shared palette (the game's colours plus the band's), which keeps a 200-step
episode well under 1 MB (tests/report/test_export_gif.py measures it).

``llm-eval export gif RUN_DIR|TRANSCRIPT [--job ID] -o FILE`` picks the transcript (a run
directory needs ``--job`` when it holds more than one) and writes FILE; the format follows
its suffix (``.gif``, or ``.png``/``.apng`` for APNG). A transcript with no drawable frame is
an ``ExportError``; nothing is written then.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LlmEvalError

__all__ = ["Shot", "ExportError", "episode_frames", "animate", "export_gif", "find_transcript",
           "FRAME_MS", "GRID_PX"]

FRAME_MS = 350      # each frame's duration
GRID_PX = 160       # about this wide, whatever the grid's size
BAND_PX = 16        # the caption band under each frame
MIN_WIDTH = 260     # room for a caption such as "interaction step 123: click 12 34"


class ExportError(LlmEvalError):
    """An export that cannot be made: no such job, no frames, an unknown output format."""


@dataclass(frozen=True)
class Shot:
    phase: str
    step: int
    frame: Any              # the observation's grid of colour names
    background: str
    masked: tuple
    action: str | None


def episode_frames(path: str | Path) -> Iterator[Shot]:
    """The transcript's observations, each with the action it was answered by."""
    from ..transcripts import TranscriptStream

    pending: tuple[int, Shot] | None = None
    for event in TranscriptStream(path, expand=False):
        if event.type == "observation":
            if pending is not None:
                yield pending[1]
            obs = event.observation
            pending = (event.index, Shot(
                event.phase, int(obs.get("step") or 0), obs.get("frame"),
                str(obs.get("background") or "black"),
                tuple(tuple(c) for c in obs.get("masked") or ()), None))
        elif event.type == "action" and pending is not None and pending[0] == event.index:
            shot = pending[1]
            action = event.action if event.valid else f"{event.action} (invalid)"
            yield Shot(shot.phase, shot.step, shot.frame, shot.background, shot.masked,
                       action)
            pending = None
    if pending is not None:
        yield pending[1]


def _caption(shot: Shot) -> str:
    text = f"{shot.phase} step {shot.step}: {shot.action or '-'}"
    return text if len(text) <= 48 else text[:47] + "~"


def _picture(shot: Shot, font):
    """The frame above its caption band, or None when the grid cannot be drawn."""
    from PIL import Image, ImageDraw

    from ..render import RenderError
    from ..render.png import render_image
    from .frames import _frame_of

    try:
        frame = _frame_of(shot.frame, shot.background)
        masked = tuple((int(c[0]), int(c[1])) for c in shot.masked)
        cell = max(2, GRID_PX // frame.size)
        grid = render_image(frame, cell_size=cell, masked=masked)[0]
    except (ValueError, TypeError, IndexError, RenderError):
        return None
    width = max(MIN_WIDTH, grid.width)
    canvas = Image.new("RGB", (width, grid.height + BAND_PX), (255, 255, 255))
    canvas.paste(grid, ((width - grid.width) // 2, 0))
    ImageDraw.Draw(canvas).text((3, grid.height + 2), _caption(shot), fill=(0, 0, 0),
                                font=font)
    return canvas


def animate(shots: Iterable[Shot], fmt: str = "gif", *, frame_ms: int = FRAME_MS) -> bytes:
    """The shots as one animated image (``gif`` or ``png``: APNG), as bytes."""
    from PIL import Image, ImageFont

    if fmt not in ("gif", "png"):
        raise ExportError(f"unknown animation format {fmt!r} (gif or png)")
    font = ImageFont.load_default()
    pictures = [p for p in (_picture(s, font) for s in shots) if p is not None]
    if not pictures:
        raise ExportError("no frame to draw: the transcript holds no drawable observation")
    size = (max(p.width for p in pictures), max(p.height for p in pictures))
    frames = []
    for p in pictures:   # one size for all (a phase may show a different grid)
        if p.size != size:
            padded = Image.new("RGB", size, (255, 255, 255))
            padded.paste(p, (0, 0))
            p = padded
        frames.append(p)
    out = io.BytesIO()
    if fmt == "gif":
        palette = _shared_palette(frames)
        frames = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
        frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:],
                       duration=frame_ms, loop=0, optimize=False, disposal=1)
    else:
        frames[0].save(out, format="PNG", save_all=True, append_images=frames[1:],
                       duration=frame_ms, loop=0, default_image=False)
    return out.getvalue()


def _shared_palette(frames):
    """A palette image built from a sample of every frame (the game's few colours and the
    caption's greys), so every GIF frame uses the same table."""
    from PIL import Image

    step = max(1, len(frames) // 32)
    sample = frames[::step]
    strip = Image.new("RGB", (sample[0].width, sample[0].height * len(sample)))
    for i, f in enumerate(sample):
        strip.paste(f, (0, i * f.height))
    return strip.quantize(colors=64, dither=Image.Dither.NONE)


def find_transcript(target: str | Path, job: str | None) -> Path:
    """The transcript to export: ``target`` itself, or the one of ``job`` in the run
    directory ``target`` (an ``ExportError`` naming what is there when that is ambiguous)."""
    target = Path(target)
    if target.is_file():
        if job is not None:
            raise ExportError(f"--job {job}: {target} is a transcript, not a run directory")
        return target
    if not target.is_dir():
        raise ExportError(f"{target}: no such run directory or transcript")
    from ..analysis.data import load_episodes

    # (job id, transcript) of each job with a transcript
    episodes = [(e.job_id, e.transcript) for e in load_episodes([target])
                if e.transcript is not None and e.transcript.is_file()]
    if job is not None:
        found = [transcript for job_id, transcript in episodes if job_id == job]
        if not found:
            raise ExportError(f"--job {job}: no job with a transcript of that id in {target} "
                              f"({len(episodes)} job(s) have one)")
        return found[0]
    if len(episodes) != 1:
        examples = ", ".join(job_id for job_id, _ in episodes[:5])
        raise ExportError(f"{target} holds {len(episodes)} transcripts; choose one with "
                          f"--job ID (e.g. {examples})")
    return episodes[0][1]


def export_gif(target: str | Path, output: str | Path, *, job: str | None = None,
               frame_ms: int = FRAME_MS) -> tuple[Path, int]:
    """Write the animation of ``target`` (and ``job``) to ``output``; returns it and its
    frame count."""
    from ..atomic import write_atomic

    output = Path(output)
    suffix = output.suffix.lower()
    fmt = {".gif": "gif", ".png": "png", ".apng": "png"}.get(suffix)
    if fmt is None:
        raise ExportError(f"-o {output}: the suffix says the format: .gif, .png or .apng")
    shots = list(episode_frames(find_transcript(target, job)))
    data = animate(shots, fmt, frame_ms=frame_ms)
    return write_atomic(output, data), len(shots)
