"""What several commands share, and what every command ends with.

- PROGRAM and WORLD arguments: a bundled world's name or a path to an Autumn program file
  (``resolve_program``, ``open_world``), with their ``--seed`` (``check_seed``);
- whether a stream is a terminal (``is_terminal``);
- the exit codes: 0 success, 1 the program is at fault, 2 usage, input or I/O error; the
  ``UsageError`` a command raises for the last; an Autumn error as the one line a user reads
  (``format_autumn_error``).

The commands and the root dispatch (``llm_eval.cli``) import these from here; this module
imports no other module of the command line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from ..errors import AutumnError, AutumnSeedError
from ..seeds import DEGENERATE_SEED_REASON, is_degenerate_seed

__all__ = ["EXIT_OK", "EXIT_PROGRAM_ERROR", "EXIT_USAGE", "UsageError", "resolve_program",
           "open_world", "check_seed", "is_terminal", "format_autumn_error"]

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1
EXIT_USAGE = 2

SEED_ZERO_MESSAGE = "--seed {seed} is refused: " + DEGENERATE_SEED_REASON + (
    "; use any other seed, e.g. --seed 1")


class UsageError(Exception):
    """A mistake in how the command was called or in its input files (exit code 2)."""


def _looks_like_a_name(text: str) -> bool:
    return bool(text) and "/" not in text and os.sep not in text and "." not in text


def resolve_program(name_or_path: str) -> tuple[str, str]:
    """Return ``(program text, display path)`` for a PROGRAM argument.

    PROGRAM is looked up in the world registry first, then read as a path. A name that is
    neither a world nor a file raises UsageError with a "did you mean"; an unreadable path
    raises OSError; a file that is not UTF-8 text raises UsageError.
    """
    from ..worlds import default_registry
    from ..worlds.errors import UnknownWorldError, WorldMetadataError

    path = Path(name_or_path)
    try:
        registry = default_registry()
    except WorldMetadataError:
        if not path.exists():
            raise
        return _read_program(path, name_or_path)  # a path still works if the bundle is broken
    if name_or_path in registry:
        spec = registry.get(name_or_path)
        return spec.program_text(), spec.program_path
    if not path.exists() and _looks_like_a_name(name_or_path):
        try:
            registry.get(name_or_path)
        except UnknownWorldError as exc:
            raise UsageError(f"{exc} and there is no file {name_or_path!r}") from None
    return _read_program(path, name_or_path)


def _read_program(path: Path, name_or_path: str) -> tuple[str, str]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name_or_path}: not a UTF-8 text file (byte {exc.start})") from None
    return text, name_or_path


def format_autumn_error(error: AutumnError, display_path: str) -> str:
    """``path:line:col: message``; the interpreter normally fills the path, we fill it if not."""
    text = str(error)
    if error.path == "<trigger>":   # the trigger expression (interpreter.TRIGGER_PATH)
        return "--trigger" + text.removeprefix("<trigger>")
    if not error.path:
        text = f"{display_path}:{text}" if error.line is not None else f"{display_path}: {text}"
    return text


def check_seed(seed: int) -> None:
    """Refuse a ``--seed`` the interpreter cannot run (0 mod 2**32) as a usage error."""
    if is_degenerate_seed(seed):
        raise UsageError(SEED_ZERO_MESSAGE.format(seed=seed))


def open_world(argument: str, seed: int, **kwargs):
    """A reset ``World`` for a WORLD argument (a bundled name or a program path)."""
    from ..worlds import World, default_registry
    from ..worlds.errors import WorldMetadataError

    check_seed(seed)
    text, display_path = resolve_program(argument)
    try:
        registry = default_registry()
    except WorldMetadataError:  # resolve_program fell back to a path
        registry = None
    if registry is not None and argument in registry:
        world, name = registry.make(argument, seed=seed, **kwargs), argument
    else:
        world = World(text, name=display_path, path=display_path, seed=seed, **kwargs)
        name = display_path
    try:
        world.reset()
    except AutumnSeedError as exc:
        raise UsageError(str(exc)) from None
    return world, name


def is_terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is an interactive terminal (a closed or exotic stream is not)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False
