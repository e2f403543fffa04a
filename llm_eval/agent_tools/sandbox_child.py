"""The sandbox's bootstrap: the program the confined child process runs (its text is passed
to ``python -S -s -B -P -c`` by ``sandbox_launch.py`` once the kernel-level confinement is in
place). It reads the agent's code from standard input and runs it.

Running the agent's code with ``exec`` here is the point of the sandbox: it happens only in
this confined child, never in llm_eval's own process (which passes the code as data).

Before the agent's code runs it adds a Python-level guard (docs/sandbox.md, layer 2):

- an audit hook (``sys.addaudithook``; it cannot be removed) that refuses imports of modules
  outside the allow-list's closure, every socket, process creation and signal, file access
  outside the working directory (reading the standard library is allowed), ``ctypes``,
  crafted code objects, new audit hooks, tracing and the ``gc`` walkers;
- an ``__import__`` that refuses, with a clear message, any module whose top-level name is
  not on the allow-list (modules the interpreter loaded at start-up, like ``time``, ``os`` or
  ``sys``, are not imported again, so the audit hook alone would not see them);
- ``random`` made deterministic: every generator seeded with 0 unless the code seeds it;
  ``SystemRandom`` and ``random._urandom`` refused.

A refusal raises ``SandboxRefusal`` in the agent's code: an ``ImportError`` for an import,
a ``PermissionError`` for anything else. At the end
the bootstrap writes a status block on the status pipe: the exit status, the class of an uncaught
exception, the refusals; then leaves with ``os._exit`` (no finalisers of the agent's objects).
"""

import builtins
import marshal
import os
import sys

MAX_REFUSALS = 20


class SandboxRefusal(Exception):
    """An operation the sandbox does not allow (catch this for every kind of refusal)."""

    kind = "other"


class ImportRefusal(ImportError, SandboxRefusal):
    """A refused import: an ``ImportError``, so code that falls back when a module is
    missing (the standard library does) keeps working."""

    kind = "import"


class OperationRefusal(PermissionError, SandboxRefusal):
    """Any other refused operation: a ``PermissionError``, as the kernel would raise."""


def refusal(kind, detail):
    """The exception for a refusal of ``kind`` (``import``, ``file``, ``network``, ...)."""
    message = f"sandbox refused {kind}: {detail}"
    if kind == "import":
        return ImportRefusal(message)
    exc = OperationRefusal(message)
    exc.kind = kind
    return exc


def _asked_by_the_library():
    """Whether the import being refused was asked for by a library module (the standard
    library probing for optional modules, like ``copy`` for ``org.python.core``), not by the
    agent's code: such refusals are raised but not listed."""
    try:
        frame = sys._getframe(2)       # 0: this function, 1: the hook, 2: who imports
    except ValueError:
        return False
    while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename not in ("<code>", "<string>")


def _under(path, roots):
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _path_text(value):
    if isinstance(value, int):
        return None                    # an open file descriptor: nothing new is reached
    value = os.fspath(value)
    return os.fsdecode(value) if isinstance(value, bytes) else value


def _read_only(mode, flags):
    if isinstance(mode, str):
        return not any(c in mode for c in "wax+")
    if isinstance(flags, int):
        return (flags & os.O_ACCMODE) == os.O_RDONLY and not flags & (os.O_CREAT | os.O_TRUNC)
    return False


PROCESS_EVENTS = frozenset({
    "os.system", "os.fork", "os.forkpty", "os.exec", "os.posix_spawn", "os.spawn",
    "subprocess.Popen", "os.kill", "os.killpg", "pty.spawn", "os.startfile", "signal.pthread_kill",
})
NETWORK_PREFIXES = ("socket.", "ssl.", "http.", "urllib.", "ftplib.", "smtplib.", "poplib.",
                    "imaplib.", "nntplib.", "telnetlib.", "webbrowser.")
LIST_EVENTS = frozenset({"os.listdir", "os.scandir", "os.walk", "os.fwalk", "glob.glob",
                         "glob.glob/2", "os.getxattr", "os.listxattr"})
FILE_EVENTS = frozenset({
    "os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.chmod",
    "os.chown", "os.truncate", "os.utime", "os.link", "os.symlink", "os.chdir", "os.chflags",
    "os.lchflags", "os.mkfifo", "os.mknod", "os.setxattr", "os.removexattr", "shutil.copyfile",
    "shutil.copymode", "shutil.copystat", "shutil.copytree", "shutil.move", "shutil.rmtree",
    "shutil.make_archive", "shutil.unpack_archive", "tempfile.mkstemp", "tempfile.mkdtemp",
})
ALWAYS_REFUSED = {
    "sys.addaudithook": "other", "code.__new__": "other", "marshal.load": "other",
    "sys.settrace": "other", "sys.setprofile": "other", "sys._current_frames": "other",
    "gc.get_objects": "other", "gc.get_referrers": "other", "gc.get_referents": "other",
    "mmap.__new__": "other", "_thread.start_new_thread": "process",
}
# Events that are frequent and harmless: answered first, before any other test.
HARMLESS = frozenset({"exec", "compile", "object.__getattr__", "object.__setattr__",
                      "object.__delattr__", "builtins.id", "sys._getframe", "marshal.loads",
                      "os.scandir/close", "builtins.input", "builtins.input/result"})


def make_hook(workdir, read_roots, closure, refusals):
    """The audit hook; ``refusals`` collects what it refused (the first ``MAX_REFUSALS``)."""
    write_roots = (workdir,)

    def refuse(kind, detail, listed=True):
        if listed and len(refusals) < MAX_REFUSALS:
            refusals.append(f"{kind}: {detail}")
        raise refusal(kind, detail)

    def check_path(event, value, writable):
        text = _path_text(value)
        if text is None:
            return
        real = os.path.realpath(text)
        if _under(real, write_roots) or (not writable and _under(real, read_roots)):
            return
        refuse("file", f"{event} {text!r} (outside the working directory)")

    def hook(event, args):
        if event in HARMLESS:
            return
        if event == "import":
            if args[0] not in closure:
                refuse("import", f"{args[0]} (not on the allow-list)",
                       listed=not _asked_by_the_library())
        elif event == "open":
            check_path("open", args[0], not _read_only(args[1], args[2]))
        elif event in FILE_EVENTS or event in LIST_EVENTS:
            for value in args:
                if isinstance(value, (str, bytes, os.PathLike)):
                    check_path(event, value, event in FILE_EVENTS)
        elif event in PROCESS_EVENTS:
            refuse("process", event)
        elif event.startswith(NETWORK_PREFIXES):
            refuse("network", event)
        elif event.startswith("ctypes."):
            refuse("other", event)
        elif event in ALWAYS_REFUSED:
            refuse(ALWAYS_REFUSED[event], event)

    return hook


def make_import(allowed, refusals):
    """``__import__`` for the agent's code: top-level names on the allow-list only."""
    real_import = builtins.__import__

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        top = name.partition(".")[0]
        if level != 0 or top not in allowed:
            detail = f"{name} (not on the allow-list)" if level == 0 else "a relative import"
            if len(refusals) < MAX_REFUSALS:
                refusals.append(f"import: {detail}")
            raise refusal("import", detail)
        return real_import(name, globals, locals, fromlist, level)

    return guarded_import


def make_random_deterministic(refusals):
    """Seed every ``random`` generator with 0 by default; refuse the entropy doors."""
    import random

    class SeededRandom(random.Random):
        """``random.Random`` whose unseeded state is seed 0, not the system's entropy."""

        def seed(self, a=None, version=2):
            super().seed(0 if a is None else a, version)

    def no_entropy(*args, **kwargs):
        if len(refusals) < MAX_REFUSALS:
            refusals.append("entropy: random.SystemRandom")
        raise refusal("entropy", "random.SystemRandom (no entropy in the sandbox)")

    old, new = random._inst, SeededRandom(0)
    for name in dir(random):
        value = getattr(random, name)
        if getattr(value, "__self__", None) is old:
            setattr(random, name, getattr(new, name))
    random._inst = new
    random.Random = SeededRandom
    random.SystemRandom = no_entropy
    random._urandom = no_entropy


def agent_builtins(allowed, refusals):
    names = dict(builtins.__dict__)
    names["__import__"] = make_import(allowed, refusals)
    names["SandboxRefusal"] = SandboxRefusal

    def leave(code=None):
        raise SystemExit(code)

    names["exit"] = names["quit"] = leave
    return names


def report(fd, status):
    """The status block on the status pipe: ``status``, one ``key value`` line per fact
    (refusals written with ``ascii()``, so one line each), ``end``."""
    lines = ["status", f"exit {status['exit']}"]
    for key in ("error", "refused", "errno"):
        if status.get(key) is not None:
            lines.append(f"{key} {status[key]}")
    lines += [f"refusal {ascii(text)[1:-1]}" for text in status["refusals"]]
    try:
        os.write(fd, ("\n".join(lines + ["end"]) + "\n").encode())
    except OSError:
        pass


def print_error(exc, tb, source=""):
    """The traceback of the agent's uncaught ``exc`` on stderr, as Python prints it; if that
    fails (its ``__str__`` raising, memory), the exception's class name alone."""
    try:
        import linecache
        import traceback
        linecache.cache["<code>"] = (len(source), None, source.splitlines(True), "<code>")
        ours = globals()      # the bootstrap's frames (the audit hook's) are left out
        frames = [(f, n) for f, n in traceback.walk_tb(tb) if f.f_globals is not ours]
        lines = ["Traceback (most recent call last):\n"] if frames else []
        lines += traceback.StackSummary.extract(frames).format()
        lines += traceback.format_exception_only(type(exc), exc)
        sys.stderr.write("".join(lines))
    except BaseException:            # anything the agent's exception does while printed
        os.write(2, f"{type(exc).__name__} (its message could not be printed)\n".encode())


def run(plan):
    """Read the code, guard, run; returns (exit status, status line)."""
    source = sys.stdin.buffer.read().decode("utf-8", "replace")
    sys.argv = ["-c"]
    sys.stdout.reconfigure(line_buffering=True, errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    refusals = []
    status = {"error": None, "refusals": refusals}
    try:
        code = compile(source, "<code>", "exec")
    except (SyntaxError, ValueError) as exc:
        print_error(exc, None, source)
        status["error"] = type(exc).__name__
        return 1, status
    make_random_deterministic(refusals)
    namespace = {"__name__": "__main__", "__builtins__": agent_builtins(plan["allowed"], refusals)}
    if plan["python_guard"]:
        sys.addaudithook(make_hook(plan["workdir"], tuple(plan["read_paths"]),
                                   frozenset(plan["closure"]), refusals))
    else:
        namespace["__builtins__"]["__import__"] = builtins.__import__
    try:
        exec(code, namespace)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0, status
        print(exc.code, file=sys.stderr)
        return 1, status
    except MemoryError:
        namespace.clear()
        status["error"] = "MemoryError"
        os.write(2, b"MemoryError: the program ran out of its memory cap\n")
        return 1, status
    except BaseException as exc:      # the agent's error: reported, as Python would
        status["error"] = type(exc).__name__
        if isinstance(exc, SandboxRefusal):
            status["refused"] = exc.kind
        if isinstance(exc, OSError):
            status["errno"] = exc.errno
        print_error(exc, exc.__traceback__.tb_next, source)
        return 1, status
    return 0, status


def main():
    plan = marshal.loads(bytes.fromhex(sys.argv[1]))
    try:
        exit_code, status = run(plan)
    except BaseException as exc:     # e.g. memory exhausted while reporting
        exit_code, status = 1, {"error": type(exc).__name__, "refusals": []}
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, MemoryError):
            pass
    status["exit"] = exit_code
    report(plan["status_fd"], status)
    os._exit(exit_code & 0xFF)


main()
