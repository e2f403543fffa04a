"""The sandbox of the ``python`` agent tool: one test per escape in docs/sandbox.md's threat
model, each refused or contained, and ordinary code working.

Most escapes are tried twice: as ordinary code (layer 2, the Python guard, refuses it with a
message) and with the guard left out (``python_guard=False``): layer 1, the kernel's
confinement, must contain it on its own, as it would for code that got past the guard."""

from __future__ import annotations

import builtins
import json
import socket
import subprocess

import pytest

from llm_eval.agent_tools import sandbox
from llm_eval.agent_tools.sandbox import (
    SandboxCaps,
    SandboxCapsError,
    SandboxUnavailable,
    run_python,
)


def _why_not_confinable() -> str | None:
    """What this machine's kernel refuses of the confinement (user namespaces, Landlock,
    seccomp), or None. Where it refuses, the ``python`` tool raises ``SandboxUnavailable``
    rather than run code unconfined, and these tests cannot run."""
    try:
        run_python("pass")
    except SandboxUnavailable as exc:
        return str(exc)
    return None


REFUSED = _why_not_confinable()
pytestmark = pytest.mark.skipif(REFUSED is not None,
                                reason=f"this kernel cannot confine the sandbox: {REFUSED}")

#: How agent code reaches ``os`` without importing it: an attribute of an allowed module.
OS = "import random\nos = random._os\n"


def guard_off(code: str, **caps) -> sandbox.SandboxResult:
    return run_python(code, SandboxCaps(**caps), python_guard=False)


def test_ordinary_code_works():
    code = """
import collections, itertools, json, math, re, statistics
from fractions import Fraction
counts = collections.Counter("abracadabra")
print(counts.most_common(2))
print(list(itertools.permutations([1, 2, 3], 2))[:3])
print(json.dumps({"pi": round(math.pi, 4)}, sort_keys=True))
print(re.findall(r"\\d+", "a1b22c333"), statistics.mean([1, 2, 3, 4]), Fraction(1, 3) * 3)
print(sum(i * i for i in range(1000)))
import dataclasses, enum, typing, decimal
@dataclasses.dataclass(frozen=True)
class Cell:
    x: int
    tags: typing.List[str] = dataclasses.field(default_factory=list)
Colour = enum.Enum("Colour", "RED GREEN")
print(Cell(1), Colour.GREEN, decimal.Decimal("1.1") + 1, "\N{GREEK SMALL LETTER ALPHA}")
"""
    result = run_python(code)
    assert result.stdout.splitlines() == [
        "[('a', 5), ('b', 2)]", "[(1, 2), (1, 3), (2, 1)]", '{"pi": 3.1416}',
        "['1', '22', '333'] 2.5 1", "332833500", "Cell(x=1, tags=[]) Colour.GREEN 2.1 \u03b1"]
    assert (result.exit_code, result.stopped, result.stderr, result.refusals) == (0, None, "", ())


def test_errors_come_back_as_python_prints_them():
    result = run_python("x = 1\nraise ValueError('bad value')\n")
    assert result.exit_code == 1 and result.stopped is None
    assert result.stderr.endswith("ValueError: bad value\n")
    assert 'File "<code>", line 2' in result.stderr
    assert "hook" not in result.stderr           # the bootstrap's own frames are left out
    syntax = run_python("def (:\n")
    assert syntax.exit_code == 1 and "SyntaxError" in syntax.stderr
    assert run_python("import sys\n", ).stopped == "refused import"
    assert run_python("exit(3)").exit_code == 3


def test_the_working_directory_is_readable_and_writable():
    result = run_python("open('notes.txt', 'w').write('kept')\nprint(open('notes.txt').read())")
    assert result.stdout == "kept\n" and result.exit_code == 0


def test_the_code_never_runs_in_our_process(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("the agent's code reached exec/eval/compile in llm_eval's process")

    for name in ("exec", "eval", "compile"):
        monkeypatch.setattr(builtins, name, forbidden)
    assert run_python("print(6 * 7)").stdout == "42\n"


# E1 network ------------------------------------------------------------------------------

@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    yield server
    server.close()


def _nothing_arrived(server: socket.socket) -> bool:
    try:
        server.accept()
    except BlockingIOError:
        return True
    return False


def test_network_is_refused_and_contained(listener):
    port = listener.getsockname()[1]
    refused = run_python(f"import socket\nsocket.create_connection(('127.0.0.1', {port}))")
    assert refused.stopped == "refused import" and "socket" in refused.refusals[0]
    contained = guard_off(f"import socket\ns = socket.socket()\n"
                          f"try:\n    s.connect(('127.0.0.1', {port}))\n    print('connected')\n"
                          f"except OSError as exc:\n    print('failed', exc.errno)")
    assert contained.stdout.startswith("failed"), contained
    assert _nothing_arrived(listener)


# E2, E3 files outside the working directory ---------------------------------------------

def test_reading_a_file_outside_is_refused_and_contained(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("THE-SECRET")
    code = f"print(open({str(secret)!r}).read())"
    refused = run_python(code)
    assert refused.stopped == "refused file" and "secret.txt" in refused.refusals[0]
    contained = guard_off(code)
    assert "PermissionError" in contained.stderr
    assert "THE-SECRET" not in refused.stdout + contained.stdout


def test_writing_a_file_outside_is_refused_and_contained(tmp_path):
    target = tmp_path / "escaped.txt"
    code = f"open({str(target)!r}, 'w').write('out')"
    assert run_python(code).stopped == "refused file"
    assert "PermissionError" in guard_off(code).stderr
    assert not target.exists()


def test_listing_the_filesystem_is_refused_and_contained():
    assert run_python(OS + "print(os.listdir('/'))").stopped == "refused file"
    assert "PermissionError" in guard_off(OS + "print(os.listdir('/etc'))").stderr


# E4 processes and threads -----------------------------------------------------------------

def test_processes_are_refused_and_contained():
    for code in (OS + "os.fork()", OS + "os.system('echo hi')", "import subprocess"):
        result = run_python(code)
        assert result.stopped in ("refused process", "refused import"), (code, result)
    bomb = guard_off(OS + "n = 0\ntry:\n    while True:\n        os.fork()\n        n += 1\n"
                          "except OSError as exc:\n    print('stopped after', n, exc.errno)")
    assert bomb.stdout == "stopped after 0 11\n"      # EAGAIN on the first fork
    execd = guard_off(OS + "os.execv('/bin/sh', ['sh', '-c', 'echo escaped'])")
    assert "escaped" not in execd.stdout and execd.exit_code == 1
    threads = guard_off("import dataclasses\ntry:\n"
                        "    dataclasses._thread.start_new_thread(print, ('thread',))\n"
                        "except RuntimeError as exc:\n    print('refused:', exc)")
    assert threads.stdout == "refused: can't start new thread\n"


# E5 signals to processes outside ---------------------------------------------------------

def test_signals_to_processes_outside_are_contained():
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        assert run_python(OS + f"os.kill({sleeper.pid}, 9)").stopped == "refused process"
        result = guard_off(OS + f"os.kill({sleeper.pid}, 9)")
        assert "PermissionError" in result.stderr
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()


# E6 output flood ---------------------------------------------------------------------------

def test_huge_output_is_capped_and_marked():
    result = run_python("while True:\n    print('x' * 1000)", SandboxCaps(output_bytes=4096))
    assert result.stopped == "output" and result.stdout_truncated
    assert len(result.stdout) == 4096 and set(result.stdout) <= {"x", "\n"}
    err = run_python("import sys\n", SandboxCaps(output_bytes=64))
    assert err.stderr_truncated and len(err.stderr.encode()) == 64


# E7, E8 CPU and memory --------------------------------------------------------------------

def test_an_infinite_loop_is_stopped_by_the_cpu_cap():
    # a generous wall-clock guard: on a loaded machine one CPU second takes many seconds
    result = run_python("print('started', flush=True)\nwhile True:\n    pass",
                        SandboxCaps(cpu_seconds=1, wall_seconds=600))
    assert result.stopped == "cpu" and result.stdout == "started\n"
    assert 0.8 <= result.cpu_seconds < 2.5   # rusage and the limit's ticks differ a little


def test_a_memory_blow_up_is_stopped_by_the_memory_cap():
    result = run_python("x = bytearray(2 * 1024 ** 3)", SandboxCaps(memory_bytes=256 * 1024 ** 2))
    assert result.stopped == "memory" and "MemoryError" in result.stderr
    grown = run_python("x = []\nwhile True:\n    x.append(' ' * 10 ** 6)",
                       SandboxCaps(memory_bytes=256 * 1024 ** 2))
    assert grown.stopped == "memory"


# E9 disk -------------------------------------------------------------------------------------

def test_files_and_the_disk_are_capped():
    big = run_python("open('big', 'wb').write(b'x' * 3 * 1024 ** 2)",
                     SandboxCaps(file_bytes=1024 ** 2))
    assert big.stopped == "file size"
    full = run_python("for i in range(10):\n    open(f'f{i}', 'wb').write(b'x' * 1024 ** 2)",
                      SandboxCaps(disk_bytes=4 * 1024 ** 2))
    assert full.stopped == "disk"


# E10 imports ---------------------------------------------------------------------------------

def test_imports_off_the_allow_list_are_refused():
    names = ["ctypes", "socket", "os", "sys", "time", "subprocess", "threading", "signal",
             "importlib", "gc", "pathlib", "shutil", "urllib.request"]
    code = (f"for name in {names!r}:\n    try:\n        __import__(name)\n"
            f"        print(name, 'imported')\n    except SandboxRefusal:\n"
            f"        print(name, 'refused')\n")
    result = run_python(code)
    assert result.stdout.splitlines() == [f"{name} refused" for name in names]
    assert len(result.refusals) == len(names)


def test_the_allow_list_reaches_no_dangerous_module():
    dangerous = {"ctypes", "_ctypes", "socket", "_socket", "ssl", "subprocess",
                 "_posixsubprocess", "multiprocessing", "threading", "signal", "select",
                 "selectors", "mmap", "fcntl", "resource", "pty", "gc", "time", "datetime"}
    assert not dangerous & sandbox.import_closure()


# E11 environment ---------------------------------------------------------------------------

def test_the_environment_holds_no_secret(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-the-sandbox")
    result = run_python(OS + "import json\n"
                             "print(json.dumps([sorted(os.environ), os.uname().nodename]))")
    names, host = json.loads(result.stdout)
    assert host == "sandbox"                       # the host's name is not shown either
    assert "OPENAI_API_KEY" not in names and set(names) <= {
        "HOME", "TMPDIR", "LC_ALL", "PATH", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8"}
    assert "sk-not-for-the-sandbox" not in result.stdout + result.stderr


# E12 clock and entropy ----------------------------------------------------------------------

def test_clock_and_entropy_are_refused_or_fixed():
    code = ("import random\n"
            "print(random.random(), random.Random().random(), random.randrange(10**9))\n"
            "random.seed()\nprint(random.random(), hash('abc'), id(object()))\n"
            "class Box:\n    def __init__(self, n):\n        self.n = n\n"
            "print([box.n for box in {Box(n) for n in range(30)}])\n")   # order by address
    first, second = run_python(code), run_python(code)
    assert first.exit_code == 0 and first.stdout == second.stdout
    assert run_python("import time").stopped == "refused import"
    assert run_python("import datetime").stopped == "refused import"
    assert run_python("import random\nrandom.SystemRandom().random()").stopped == \
        "refused entropy"


# E13 the Python guard's own bypasses ------------------------------------------------------

def test_an_import_through_introspection_is_refused_by_the_audit_hook():
    code = ("loader = [c for c in ().__class__.__base__.__subclasses__()\n"
            "          if c.__name__ == 'catch_warnings'][0]\n"
            "real_import = loader.__init__.__globals__['__builtins__']['__import__']\n"
            "real_import('socket')")
    result = run_python(code)
    assert result.stopped == "refused import" and result.refusals == (
        "import: socket (not on the allow-list)",)


def test_crafted_code_objects_and_new_audit_hooks_are_refused():
    crafted = run_python("def f():\n    return 1\nf.__code__ = f.__code__.replace(co_consts=(2,))")
    assert crafted.stopped == "refused other"
    # sys.addaudithook swallows a hook's refusal: the new hook is simply not added
    hooks = run_python("b = [c for c in ().__class__.__base__.__subclasses__()"
                       " if c.__name__ == 'catch_warnings'][0]\n"
                       "seen = []\n"
                       "b.__init__.__globals__['sys'].addaudithook(lambda e, a: seen.append(e))\n"
                       "compile('1', 'x', 'eval')\nprint(len(seen))")
    assert hooks.stdout == "0\n" and hooks.refusals == ("other: sys.addaudithook",)


# E14 a program stuck without using CPU ------------------------------------------------------

def test_a_stuck_program_is_stopped_by_the_wall_clock_guard():
    code = ("import dataclasses\nlock = dataclasses._thread.allocate_lock()\n"
            "lock.acquire()\nlock.acquire()")
    result = run_python(code, SandboxCaps(wall_seconds=1))
    assert result.stopped == "wall" and result.exit_code == -9
    hidden = run_python(OS + "for fd in range(64):\n    try:\n        os.close(fd)\n"
                             "    except OSError:\n        pass\n" + code,
                        SandboxCaps(wall_seconds=1))     # its streams closed first
    assert hidden.stopped == "wall" and hidden.exit_code == -9


# E15 native calls: what layer 1 holds when layer 2 is gone entirely -----------------------

def test_native_calls_are_contained_by_the_kernel(listener, tmp_path):
    """With the guard off, ``ctypes`` is importable: the code calls libc directly, as code
    that broke the audit hook could."""
    sleeper = subprocess.Popen(["sleep", "30"])
    port, target = listener.getsockname()[1], tmp_path / "native.txt"
    code = f"""
import ctypes, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *args):
    result = getattr(libc, name)(*args)
    print(name, result, ctypes.get_errno() if result < 0 else 0)
call("system", b"echo escaped > {target}")
call("ptrace", 16, {sleeper.pid}, 0, 0)
call("open", b"/proc/self/mem", 2)
call("unshare", 0x40000000)
call("setns", 0, 0)
fd = libc.socket(2, 1, 0)
address = struct.pack("=HH4s8x", 2, socket.htons({port}), bytes([127, 0, 0, 1]))
call("connect", fd, address, len(address))
"""
    try:
        result = guard_off(code)
        lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
        assert lines["system"] != "0 0" and lines["ptrace"] == "-1 1"      # EPERM
        assert lines["open"] == "-1 13" and lines["unshare"] == "-1 1"     # EACCES, EPERM
        assert lines["setns"] == "-1 1" and lines["connect"].startswith("-1 ")
        assert not target.exists() and sleeper.poll() is None and _nothing_arrived(listener)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert run_python("open('/proc/self/mem', 'r+b')").stopped == "refused file"


# caps and the kernel ------------------------------------------------------------------------

@pytest.mark.parametrize("field, value", [("cpu_seconds", 0), ("memory_bytes", -1),
                                          ("output_bytes", 1.5), ("wall_seconds", "60"),
                                          ("open_files", 3)])
def test_bad_caps_are_named(field, value):
    with pytest.raises(SandboxCapsError, match=field):
        SandboxCaps(**{field: value})


def test_several_processes_cannot_be_promised_to_root(monkeypatch):
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    with pytest.raises(SandboxCapsError, match="processes=4"):
        run_python("print(1)", SandboxCaps(processes=4))


def test_a_confinement_step_that_fails_is_an_error_not_a_weaker_sandbox(monkeypatch, tmp_path):
    missing = str(tmp_path / "no-such-dir")
    monkeypatch.setattr(sandbox, "_read_paths", lambda: ((missing,), ()))
    with pytest.raises(SandboxUnavailable, match="no-such-dir"):
        run_python("print(1)")
