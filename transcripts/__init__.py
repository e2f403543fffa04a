"""Recorded transcripts that tests and the demo replay offline: data shipped with the package.

Installed as ``llm_eval.recordings`` (``pyproject.toml``, ``package-dir``): ``llm_eval.transcripts``
is the transcript writer."""
