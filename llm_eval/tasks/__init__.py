"""WorldTest tasks: task files (``models``), the shipped tasks (``store``), and their
generation (``generate``) and validation (``validate``)."""

from .models import (FAMILIES, TASK_SCHEMA_VERSION, CDTask, MFPTask, PlanningTask, Task,
                     TaskFileError, parse_task)
from .store import all_tasks, dump_task, load_task, load_task_file, shipped_task_ids, task_id

__all__ = ["FAMILIES", "TASK_SCHEMA_VERSION", "Task", "MFPTask", "CDTask", "PlanningTask",
           "TaskFileError", "parse_task", "load_task", "load_task_file", "all_tasks",
           "shipped_task_ids", "task_id", "dump_task"]
