"""The error tree of llm_eval, in one place.

Two families are kept apart on purpose:

- what an *agent* did wrong (an unusable action): reported back to the agent and counted,
  never fatal (``ActionSyntaxError``);
- what a *program* or a *setting* got wrong: a typed error whose message names the file,
  line and column (or the setting) at fault (``AutumnError`` and its subclasses).

Nothing else is raised to a user for bad input: the command line prints these errors as one
line each instead of a traceback.

The base and the interpreter's errors are defined here; each package defines its own under
``LlmEvalError`` next to the code that raises them. The whole tree, every exception class of the
package with its module (tests/test_error_tree.py checks that this drawing is the real tree).
The classes outside ``LlmEvalError`` are signals caught inside the package, never shown to a
user as they are: an agent ending its episode (``StopEpisode``), a job stopped by the scheduler
(``JobInterrupted``), the published harness's raise inside a step (``HarnessRaise``), a
sandbox's confinement step (``LaunchError``), a diverged tool replay, a refused MCP call, a
corrupt stream, and the command line's usage errors (exit code 2); ``BoundsError`` is a YAML
error, so that YAML's own handlers report it with its position.

```
Exception
  LaunchError (agent_tools.sandbox_launch)
  ToolReplayMismatch (agent_tools.toolbox)
  _Usage (cli.mcp)
  UsageError (cli.options)
  LlmEvalError (errors)
    UnknownProviderError (adapters.registry)
    ProviderError (adapters.types)
      Fatal (adapters.types)
        RecordingError (adapters.replay)
      RateLimited (adapters.types)
      Transient (adapters.types)
    SandboxCapsError (agent_tools.sandbox), also ValueError
    SandboxUnavailable (agent_tools.sandbox)
    AgentToolsError (agent_tools.settings), also ValueError
    UnknownAgentError (agents), also ValueError
    HumanInputError (agents.human)
    PromptError (agents.prompts)
    ScriptError (agents.script)
    AnalysisError (analysis.data)
    FatalProviderError (calls)
    InfrastructureError (calls)
    ActionSyntaxError (errors)
    AutumnError (errors)
      AutumnCheckError (errors)
      AutumnCheckWarning (errors)
      AutumnRuntimeError (errors)
        AutumnInternalError (errors)
        AutumnLimitError (errors)
      AutumnSeedError (errors), also ValueError
      AutumnSyntaxError (errors)
    TaskFileError (errors)
      SuiteError (suites.manifest)
        SuiteMismatchError (suites.manifest)
      TaskImportError (tasks.autumnbench_import)
    EpisodeBusy (mcp.episodes)
    TooManyEpisodes (mcp.episodes)
    PriceFileError (pricing)
    CheckSetupError (probe)
    RenderError (render.errors), also ValueError
      RenderParseError (render.errors)
    ReplayError (replay)
    CardError (report.card)
    ExportError (report.export_gif)
    InspectMissing (report.export_inspect)
    RunStoreError (runstore)
      RunDirBusy (runlock)
    OutOfTurn (serve.live)
    UnknownEpisode (serve.live)
    StudyError (serve.study)
    ActionRefused (serve.view)
    SpecError (sweep.spec)
    ReportCacheError (tasks.report_cache)
    TranscriptError (transcripts.io)
    WorldError (worlds.errors)
      UnknownWorldError (worlds.errors)
      WorldMetadataError (worlds.errors)
      WorldStateError (worlds.errors)
    HarnessTextsError (worldtest.autumnbench.texts)
    WorldTestError (worldtest.errors)
      PhaseStateError (worldtest.errors)
      TaskProgramError (worldtest.errors)
  _Refused (mcp.server)
  JobInterrupted (sweep.job)
  _BadStream (transcripts.io)
  HarnessRaise (worldtest.autumnbench.base)
  StopEpisode (worldtest.episode)
    ContextExhausted (worldtest.episode)
BaseException
  Thaw (autumn.values)
MarkedYAMLError
  BoundsError (bounded_yaml)
ValueError
  PatchError (transcripts.patch)
```
"""

from __future__ import annotations

__all__ = [
    "LlmEvalError",
    "ActionSyntaxError",
    "AutumnError",
    "AutumnSyntaxError",
    "AutumnRuntimeError",
    "AutumnLimitError",
    "AutumnSeedError",
    "AutumnInternalError",
    "AutumnCheckError",
    "AutumnCheckWarning",
    "TaskFileError",
]

#: The longest message an error shows: the sites that quote input cut it (``quoting.quote``);
#: this catches any that does not, so no input reaches stderr or a prompt by the megabyte.
MAX_MESSAGE = 2000


def _bounded(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE]}... (message cut: {len(message):,} characters)"


class LlmEvalError(Exception):
    """Base of every error llm_eval raises on purpose."""


class ActionSyntaxError(LlmEvalError):
    """An action text that is not one of the world's actions (an agent-level mistake)."""

    def __init__(self, message: str, *, text: str = "", line: int | None = None,
                 source: str | None = None) -> None:
        message = _bounded(message)
        self.message = message
        self.text = text
        self.line = line
        self.source = source
        where = ""
        if source is not None and line is not None:
            where = f"{source}:{line}: "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(f"{where}{message}")


class AutumnError(LlmEvalError):
    """A problem with an Autumn program, located by path, line and column where known."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None,
                 path: str | None = None) -> None:
        self.message = _bounded(message)
        self.line = line
        self.column = column
        self.path = path
        super().__init__(message)

    def locate(self, line: int | None, column: int | None) -> "AutumnError":
        """Attach a position if the error does not have one yet; returns self."""
        if self.line is None and line is not None:
            self.line = line
            self.column = column
        return self

    def where(self) -> str:
        parts = []
        if self.path:
            parts.append(self.path)
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        where = self.where()
        message = _bounded(self.message)   # callers may have prefixed it since
        return f"{where}: {message}" if where else message


class AutumnSyntaxError(AutumnError):
    """The program text cannot be read or parsed (unbalanced parentheses, invalid forms...)."""


class AutumnRuntimeError(AutumnError):
    """Evaluating the program failed (undefined name, wrong type, empty list, ...)."""


class AutumnLimitError(AutumnRuntimeError):
    """A runaway program: recursion too deep, a list too long, or a tick over its time budget."""


class AutumnSeedError(AutumnError, ValueError):
    """A random seed that the interpreter refuses (0 silently removes all randomness)."""


class AutumnInternalError(AutumnRuntimeError):
    """An unexpected failure inside the interpreter; always a bug in llm_eval, never the program's."""


class AutumnCheckError(AutumnError):
    """Text the reference runs, but not as it reads (``3.5`` runs as 3, ``(if 0 ...)`` always
    takes its then-branch): ``autumn check`` refuses it, while the interpreter keeps the
    reference's reading so that frames stay the reference's (docs/spec/autumn.md 15.1)."""


class AutumnCheckWarning(AutumnError):
    """What ``autumn check`` reports without refusing the program (a colour name outside the
    palette of docs/spec/autumn.md 16, which Autumn accepts but the benchmark cannot index)."""


class TaskFileError(LlmEvalError):
    """A WorldTest task file that does not validate; the message names the file and the field."""
