"""``python -m llm_eval``: the same command line as ``llm-eval``."""

from llm_eval.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
