"""The sandbox for the ``python`` agent tool: runs an agent's Python code in a separate,
confined process and returns its capped output (docs/sandbox.md has the threat model).

``run_python(code, caps)`` is the one entry point. The code goes to the child as data on its
standard input; llm_eval's own process never compiles or runs it. The child is confined in
two layers:

1. the kernel (``sandbox_launch.py``): new user/mount/network/IPC/UTS namespaces, a size-capped
   tmpfs as the only writable place, resource limits (CPU, memory, processes, file size, open
   files), Landlock (files: the standard library read-only, the working directory; no TCP;
   signals scoped), seccomp (no new processes or threads, no nested namespaces),
   address-space randomisation off;
2. Python (``sandbox_child.py``): an audit hook and an import allow-list that refuse, with a
   clear message, what layer 1 would only make fail, plus deterministic ``random``.

A kernel without user namespaces or Landlock raises ``SandboxUnavailable``: the sandbox never
runs code with a layer missing.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import json
import marshal
import os
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import LlmEvalError

if TYPE_CHECKING:   # POSIX only, like the sandbox; here for the rusage type
    import resource

__all__ = ["SandboxCaps", "SandboxResult", "SandboxUnavailable", "SandboxCapsError",
           "ALLOWED_MODULES", "run_python"]

#: The modules the agent's code may import (top-level names): computation only.
ALLOWED_MODULES = ("__future__", "abc", "array", "bisect", "cmath", "collections", "copy",
                   "dataclasses", "decimal", "enum", "fractions", "functools", "heapq",
                   "itertools", "json", "math", "numbers", "operator", "pprint", "random", "re",
                   "statistics", "string", "textwrap", "typing", "unicodedata")

_HERE = Path(__file__).resolve().parent
_LAUNCH_FAILED = 97
_STATUS_CAP = 64 * 1024
_SANDBOX_UID = 1000


class SandboxUnavailable(LlmEvalError):
    """The kernel lacks something the sandbox needs (user namespaces, Landlock): no code is
    run with a layer missing."""


class SandboxCapsError(LlmEvalError, ValueError):
    """A sandbox cap that is not a positive number; the message names it."""


@dataclasses.dataclass(frozen=True, slots=True)
class SandboxCaps:
    """What one run may use. ``wall_seconds`` only guards against a stuck child (a program
    blocked without using CPU); the CPU cap is what stops a busy one."""

    cpu_seconds: int = 5
    memory_bytes: int = 512 * 1024 * 1024
    processes: int = 1
    output_bytes: int = 64 * 1024
    file_bytes: int = 8 * 1024 * 1024
    disk_bytes: int = 32 * 1024 * 1024
    open_files: int = 64
    wall_seconds: float = 60.0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise SandboxCapsError(f"sandbox cap {field.name} must be a positive number, "
                                       f"not {value!r}")
            if field.name != "wall_seconds" and not isinstance(value, int):
                raise SandboxCapsError(f"sandbox cap {field.name} must be a whole number, "
                                       f"not {value!r}")
        if self.open_files < 8:
            raise SandboxCapsError(f"sandbox cap open_files must be at least 8 (the "
                                   f"interpreter's own), not {self.open_files}")


@dataclasses.dataclass(frozen=True, slots=True)
class SandboxResult:
    """One run. ``stopped`` is ``None`` when the code ended on its own, else why it was
    stopped: ``cpu``, ``memory``, ``output``, ``wall``, ``file size``, ``disk``,
    ``refused <kind>`` (``import``, ``file``, ``network``, ``process``, ``entropy``,
    ``other``: an uncaught refusal), or ``signal <NAME>``. ``refusals`` lists every refused
    operation, caught by the code or not."""

    stdout: str
    stderr: str
    exit_code: int | None
    stopped: str | None = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    refusals: tuple[str, ...] = ()
    cpu_seconds: float = 0.0


@functools.cache
def _python() -> str:
    """The real interpreter (a virtualenv's ``python`` resolved), run without site-packages."""
    return os.path.realpath(sys.executable)


@functools.cache
def _sources() -> tuple[str, str]:
    return ((_HERE / "sandbox_launch.py").read_text(encoding="utf-8"),
            (_HERE / "sandbox_child.py").read_text(encoding="utf-8"))


@functools.cache
def _read_paths() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What the child may read: the standard library and the interpreter's own libraries,
    the system libraries, the dynamic linker's cache. Only the interpreter may be executed
    (``_python()``); nothing in these directories."""
    # the standard library is where ``os`` is (a virtualenv's paths would add its packages)
    dirs = {os.path.dirname(os.__file__), sysconfig.get_config_var("LIBDIR"),
            sysconfig.get_config_var("DESTSHARED"), "/usr/lib", "/usr/lib64", "/lib", "/lib64"}
    found = {os.path.realpath(d) for d in dirs if d and os.path.isdir(d)}
    files = tuple(p for p in ("/etc/ld.so.cache",) if os.path.isfile(p))
    return tuple(sorted(found)), files


@functools.cache
def _executables() -> tuple[str, ...]:
    """The only files the child may execute: the interpreter and its ELF program
    interpreter (the dynamic loader, which the kernel opens for execution too)."""
    python = _python()
    with open(python, "rb") as binary:
        head = binary.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:      # a 64-bit ELF file
            return (python,)
        order = "<" if head[5] == 1 else ">"
        phoff, = struct.unpack_from(order + "Q", head, 32)
        phentsize, phnum = struct.unpack_from(order + "HH", head, 54)
        for index in range(phnum):
            binary.seek(phoff + index * phentsize)
            kind, _, offset, _, _, size = struct.unpack(order + "IIQQQQ", binary.read(40))
            if kind == 3:                                  # PT_INTERP
                binary.seek(offset)
                loader = binary.read(size).rstrip(b"\0").decode()
                return (python, os.path.realpath(loader))
    return (python,)


@functools.cache
def import_closure() -> frozenset[str]:
    """Every module importing the allow-list (and ``traceback``, which the child uses to
    report errors) loads, found once by importing them in a fresh interpreter."""
    script = ("import sys\nbefore = set(sys.modules)\n"
              f"for name in {list(ALLOWED_MODULES) + ['traceback', 'linecache']!r}:\n"
              "    __import__(name)\n"
              "new = sorted(set(sys.modules) - before)\n"
              "import json\nprint(json.dumps(new))\n")
    done = subprocess.run([_python(), "-S", "-s", "-B", "-P", "-c", script], env={},
                          capture_output=True, text=True, check=False, timeout=60)
    if done.returncode != 0:
        raise SandboxUnavailable(f"sandbox: cannot list the allow-list's modules: "
                                 f"{done.stderr.strip()[-500:]}")
    return frozenset(json.loads(done.stdout)) | frozenset(ALLOWED_MODULES)


def _plan(workdir: str, caps: SandboxCaps, python_guard: bool) -> dict:
    read_paths, read_files = _read_paths()
    return {
        "python": _python(), "uid": os.geteuid(), "gid": os.getegid(), "workdir": workdir,
        "cpu_seconds": caps.cpu_seconds, "memory_bytes": caps.memory_bytes,
        "processes": caps.processes, "file_bytes": caps.file_bytes,
        "disk_bytes": caps.disk_bytes, "open_files": caps.open_files,
        "read_paths": list(read_paths), "read_files": list(read_files),
        "executables": list(_executables()),
        "closure": sorted(import_closure()), "allowed": list(ALLOWED_MODULES),
        "python_guard": python_guard, "child_source": _sources()[1],
        "env": {"PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8", "PYTHONUTF8": "1",
                "HOME": workdir, "TMPDIR": workdir, "LC_ALL": "C.UTF-8", "PATH": "/nonexistent"},
    }


class _Capped:
    """One output stream, kept up to ``cap`` bytes."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    def add(self, chunk: bytes) -> bool:
        """Keep what fits; ``True`` when the stream went over its cap."""
        room = self.cap - len(self.data)
        self.data += chunk[:max(room, 0)]
        if len(chunk) > room:
            self.truncated = True
        return self.truncated

    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


def run_python(code: str, caps: SandboxCaps = SandboxCaps(), *,
               python_guard: bool = True) -> SandboxResult:
    """Run ``code`` in a fresh confined process under ``caps``; never raises for what the
    code does (its errors, refusals and overruns are in the result). ``python_guard=False``
    leaves out layer 2, for tests that check layer 1 holds on its own."""
    if caps.processes > 1 and os.geteuid() == 0:
        raise SandboxCapsError(f"sandbox cap processes={caps.processes} cannot be enforced when "
                               f"llm_eval runs as root (the kernel exempts root from "
                               f"RLIMIT_NPROC); use processes=1 or run as another user")
    workdir = tempfile.mkdtemp(prefix="llm-eval-sandbox-")
    try:
        return _run(code.encode("utf-8", "surrogatepass"), caps, workdir, python_guard)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run(source: bytes, caps: SandboxCaps, workdir: str, python_guard: bool) -> SandboxResult:
    status_read, status_write = os.pipe()
    plan = _plan(workdir, caps, python_guard)
    plan["status_fd"] = status_write
    try:
        try:
            proc = subprocess.Popen(
                [_python(), "-I", "-S", "-B", "-c", _sources()[0], marshal.dumps(plan).hex()],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(status_write,), cwd=workdir, env={}, start_new_session=True)
        finally:
            os.close(status_write)
        out, err = _Capped(caps.output_bytes), _Capped(caps.output_bytes)
        status = _Capped(_STATUS_CAP)
        deadline = time.monotonic() + caps.wall_seconds
        try:
            stopped = _pump(proc, source, {proc.stdout: out, proc.stderr: err},
                            {status_read: status}, deadline)
            wait_status, usage, late = _reap(proc, deadline)
        except BaseException:         # interrupted: the child must not outlive the call
            _kill(proc)
            os.wait4(proc.pid, 0)
            raise
    finally:
        os.close(status_read)
    stopped = stopped or late
    proc.returncode = os.waitstatus_to_exitcode(wait_status)
    cpu = usage.ru_utime + usage.ru_stime
    report = _last_status(status.text())
    if proc.returncode == _LAUNCH_FAILED and "launch" in report:
        raise SandboxUnavailable(f"sandbox: {report['launch']} (see docs/sandbox.md)")
    stopped = stopped or _why_stopped(proc.returncode, report, cpu, caps)
    return SandboxResult(
        stdout=out.text(), stderr=err.text(),
        exit_code=proc.returncode, stopped=stopped, stdout_truncated=out.truncated,
        stderr_truncated=err.truncated, refusals=tuple(report.get("refusals", ())),
        cpu_seconds=round(cpu, 3))


def _pump(proc: subprocess.Popen, source: bytes, outputs: dict, quiet: dict,
          deadline: float) -> str | None:
    """Feed the code to the child and read its streams until they close; stop the child
    (``"output"``, ``"wall"``) when one of ``outputs`` passes its cap or the wall-clock guard
    expires. What passes the cap of a ``quiet`` stream (the status pipe) is dropped."""
    streams = {**outputs, **quiet}
    selector = selectors.DefaultSelector()
    assert proc.stdin is not None
    os.set_blocking(proc.stdin.fileno(), False)
    selector.register(proc.stdin, selectors.EVENT_WRITE)
    for stream in streams:
        selector.register(stream, selectors.EVENT_READ)
    pending, stopped = memoryview(source), None
    if not pending:
        selector.unregister(proc.stdin)
        proc.stdin.close()
    try:
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                stopped = stopped or "wall"
                _kill(proc)
                break
            for key, _ in selector.select(timeout=min(left, 1.0)):
                if key.fileobj is proc.stdin:
                    try:
                        pending = pending[os.write(proc.stdin.fileno(), pending):]
                    except BrokenPipeError:
                        pending = pending[:0]
                    if not pending:
                        selector.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                fd = key.fileobj if isinstance(key.fileobj, int) else key.fileobj.fileno()
                chunk = os.read(fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                capped = streams[key.fileobj]
                if capped.add(chunk) and key.fileobj in outputs and stopped is None:
                    stopped = "output"
                    _kill(proc)
    finally:
        selector.close()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
    return stopped


def _reap(proc: subprocess.Popen, deadline: float
          ) -> tuple[int, resource.struct_rusage, str | None]:
    """Wait for the child, which may outlive its streams (a program can close them all and
    block): ``(wait status, rusage, "wall" if the guard had to kill it)``."""
    pause = 0.001
    while time.monotonic() < deadline:
        pid, wait_status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            return wait_status, usage, None
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
    _kill(proc)
    _, wait_status, usage = os.wait4(proc.pid, 0)
    return wait_status, usage, "wall"


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _last_status(text: str) -> dict:
    """The child's last complete status block (``sandbox_child.report``), or the launcher's
    ``launch:`` line; ``{}`` when it wrote neither (it was killed)."""
    lines = text.splitlines()
    for line in reversed(lines):
        if line.startswith("launch: "):
            return {"launch": line[len("launch: "):]}
    if "end" not in lines:
        return {}
    end = len(lines) - 1 - lines[::-1].index("end")
    start = max((i for i in range(end) if lines[i] == "status"), default=None)
    if start is None:
        return {}
    status: dict = {"refusals": []}
    for line in lines[start + 1:end]:
        key, _, value = line.partition(" ")
        if key == "refusal":
            status["refusals"].append(value)
        elif key in ("exit", "errno"):
            status[key] = int(value) if value.lstrip("-").isdigit() else None
        elif key in ("error", "refused"):
            status[key] = value
    return status


def _why_stopped(returncode: int, report: dict, cpu: float, caps: SandboxCaps) -> str | None:
    """Why the child ended, from its exit (a signal), its CPU time and its status line."""
    if returncode < 0:
        sig = -returncode
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= caps.cpu_seconds):
            return "cpu"
        if sig == signal.SIGXFSZ:
            return "file size"
        return f"signal {signal.Signals(sig).name}" if sig in signal.valid_signals() else \
            f"signal {sig}"
    error = report.get("error")
    if error == "MemoryError":
        return "memory"
    if report.get("refused"):
        return f"refused {report['refused']}"
    if report.get("errno") == errno.EFBIG:
        return "file size"
    if report.get("errno") == errno.ENOSPC:
        return "disk"
    return None
