"""WorldTest tasks: task files (``models``), the shipped tasks (``store``), and their
generation (``generate``) and validation (``validate``)."""

from ..lazy import lazy_exports

_EXPORTS = {
    "FAMILIES": ".models", "TASK_SCHEMA_VERSION": ".models", "CDTask": ".models",
    "MFPTask": ".models", "PlanningTask": ".models", "Task": ".models",
    "TaskFileError": ".models", "parse_task": ".models", "all_tasks": ".store",
    "dump_task": ".store", "load_task": ".store", "load_task_file": ".store",
    "shipped_task_ids": ".store", "task_id": ".store",
}

__all__ = ["FAMILIES", "TASK_SCHEMA_VERSION", "Task", "MFPTask", "CDTask", "PlanningTask",
           "TaskFileError", "parse_task", "load_task", "load_task_file", "all_tasks",
           "shipped_task_ids", "task_id", "dump_task"]

# each name is imported from its module when first used (``llm_eval.lazy``)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
