"""Suites: named, versioned manifests of shipped tasks (``<name>.json`` here, package data).

A manifest lists each task with the sha256 of its task file and of every program it runs
(``manifest``); ``llm-eval run --suite NAME`` runs its tasks and refuses one whose files no
longer match; ``llm-eval suites freeze NAME`` (``llm_eval.cli.suites``) regenerates it.
"""

from ..lazy import lazy_exports

_EXPORTS = dict.fromkeys(("SUITE_SCHEMA_VERSION", "Suite", "SuiteError", "SuiteFile",
                          "SuiteMismatchError", "SuiteTask", "freeze", "load_suite",
                          "suite_names", "suite_path", "write_suite"), ".manifest")

__all__ = ["Suite", "SuiteTask", "SuiteFile", "SuiteError", "SuiteMismatchError",
           "SUITE_SCHEMA_VERSION", "load_suite", "suite_names", "suite_path", "freeze",
           "write_suite"]

# each name is imported from its module when first used (``llm_eval.lazy``)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
