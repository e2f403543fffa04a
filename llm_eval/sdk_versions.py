"""The versions of the provider SDKs and LiteLLM installed in this process's environment.

A run records them in each transcript header (``versions["sdks"]``, sweep/job.py) and a
reproduction card reads them back (report/card.py), so a card says which SDKs made a number
rather than which happen to be installed where the card is made. Read through
``importlib.metadata``: it reads the installed distributions' metadata without importing the
packages (importing LiteLLM alone takes seconds and touches the network unless told not to).
"""

from __future__ import annotations

import importlib.metadata

__all__ = ["SDKS", "sdk_versions"]

SDKS = ("openai", "anthropic", "litellm")


def sdk_versions() -> dict[str, str | None]:
    """Each of ``SDKS`` -> its installed version, or None when it is not installed."""
    found: dict[str, str | None] = {}
    for name in SDKS:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found
