"""WorldTest tasks: task files (``models``), and later their generation and validation."""

from .models import (FAMILIES, TASK_SCHEMA_VERSION, CDTask, MFPTask, PlanningTask, Task,
                     TaskFileError, parse_task)

__all__ = ["FAMILIES", "TASK_SCHEMA_VERSION", "Task", "MFPTask", "CDTask", "PlanningTask",
           "TaskFileError", "parse_task"]
