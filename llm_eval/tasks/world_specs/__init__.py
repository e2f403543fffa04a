"""Task specs of the worlds added for suite v1, one module per world (``SPEC``, a
``WorldTaskSpec``), so that worlds are added without touching a shared file; ``specs`` merges
them into ``TASK_SPECS``. The ``_rep`` helper is ``specs._rep``."""
