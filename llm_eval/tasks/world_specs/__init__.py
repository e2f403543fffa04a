"""Task specs, one module per bundled world (``SPEC``, a ``WorldTaskSpec``; the module is named
after its world), so that a world is added without touching a shared file; ``specs`` gathers
them into ``TASK_SPECS``, and ``specs.SUITE_CHANGES`` says what a later suite changes in them.
The ``_rep`` helper is ``specs._rep``."""
