"""The sandbox's launcher: the first program in the child process, which confines it at the
kernel level and then replaces itself (``execve``) with the child bootstrap
(``sandbox_child.py``) that runs the agent's code.

This file is not imported by llm_eval: ``sandbox.py`` passes its text to ``python -I -S -c``
with one argument, the plan (``marshal`` data in hex: our own data, and much cheaper to load
than ``json``, which matters at one launch per tool call). It uses ``ctypes`` for the system
calls Python 3.11 does not wrap (``unshare``, ``mount``, ``personality``, Landlock, seccomp);
``ctypes`` lives only in this short program and is gone after the ``execve``, so the agent's
code can never reach it.

In order, each step failing loudly (exit status 97 and a line ``launch: ...`` on the status
pipe):

1. new user, mount, network, IPC and UTS namespaces: no network interface but a down
   loopback, no shared memory with the host; the sandbox's uid maps to one outside uid;
2. a ``tmpfs`` of ``disk_bytes`` mounted on the working directory (cwd, HOME, TMPDIR);
3. address-space randomisation off (``personality``), so ``id()`` and object order repeat;
4. resource limits: CPU, address space, processes, file size, open files, no core files;
5. ``no_new_privs`` and a Landlock ruleset: read the standard library and the system
   libraries, execute the interpreter, read and write the working directory, nothing else;
   TCP bind and connect denied; signals and abstract unix sockets scoped to the sandbox, where the
   kernel's Landlock ABI has them;
6. a seccomp filter: no ``unshare`` or ``setns`` (no nested namespaces) and, with the
   default cap of one process, no ``fork``, ``vfork``, ``clone`` or ``clone3`` (no child
   processes, no threads);
7. ``execve`` of the interpreter on the bootstrap, with an environment of our own only.
"""

import ctypes
import errno
import marshal
import os
import resource
import struct
import sys

LAUNCH_FAILED = 97

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
ADDR_NO_RANDOMIZE = 0x0040000
PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 1, 22, 2
# Seccomp: the audit architecture and the process-creating system calls of each machine.
# Seccomp: each machine's audit architecture, its process-creating system calls and its
# namespace calls.
SECCOMP_ARCH = {"x86_64": (0xC000003E, (56, 57, 58, 435), (272, 308)),  # clone fork vfork
                "aarch64": (0xC00000B7, (220, 435), (97, 268))}         # clone3; unshare setns
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x06
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, SECCOMP_RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1

# Landlock filesystem rights, by the ABI version that introduced them.
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_ABI1 = (1 << 13) - 1             # EXECUTE .. MAKE_SYM
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class LaunchError(Exception):
    """One confinement step failed; the message names it and the errno."""


_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise LaunchError(f"{what}: {os.strerror(err)} (errno {err})")
    return result


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter_namespaces(uid: int, gid: int) -> None:
    """New user (inside uid/gid 1000, one outside id each), mount, network, IPC and UTS
    namespaces; the mount tree made private so nothing mounted here reaches the host."""
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    _check(_libc.unshare(flags), "unshare(user, mount, net, ipc, uts namespaces)")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"1000 {uid} 1")
    _write("/proc/self/gid_map", f"1000 {gid} 1")
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    _check(_libc.sethostname(b"sandbox", 7), "sethostname")   # not the host's name


def mount_workdir(workdir: str, disk_bytes: int) -> None:
    """A size-capped tmpfs on the working directory; the process moves into it."""
    options = f"size={disk_bytes},mode=0700,uid=1000,gid=1000".encode()
    _check(_libc.mount(b"tmpfs", workdir.encode(), b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                       options), f"mount tmpfs on {workdir}")
    os.chdir(workdir)


def set_limits(plan: dict) -> None:
    """The caps as resource limits. CPU: SIGXCPU at the cap, SIGKILL a second later."""
    cpu = plan["cpu_seconds"]
    limits = [(resource.RLIMIT_CPU, cpu, cpu + 1),
              (resource.RLIMIT_AS, plan["memory_bytes"], plan["memory_bytes"]),
              (resource.RLIMIT_NPROC, plan["processes"], plan["processes"]),
              (resource.RLIMIT_FSIZE, plan["file_bytes"], plan["file_bytes"]),
              (resource.RLIMIT_NOFILE, plan["open_files"], plan["open_files"]),
              (resource.RLIMIT_CORE, 0, 0)]
    for which, soft, hard in limits:
        resource.setrlimit(which, (soft, hard))


def landlock(read_paths: list, read_files: list, executables: list, workdir: str) -> int:
    """Restrict the filesystem to reading ``read_paths``/``read_files``, executing
    ``executables`` (the interpreter and its loader) and using ``workdir``; deny TCP; scope
    signals and abstract sockets; returns the Landlock ABI."""
    abi = _check(_libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0,
                               LANDLOCK_CREATE_RULESET_VERSION), "landlock (not available)")
    fs = FS_ABI1 | (FS_REFER if abi >= 2 else 0) | (FS_TRUNCATE if abi >= 3 else 0)
    fs |= FS_IOCTL_DEV if abi >= 5 else 0
    attr = _RulesetAttr(handled_access_fs=fs)
    size = 8
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = _check(_libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0),
                     "landlock_create_ruleset")
    rules = [(path, FS_READ_FILE | FS_READ_DIR) for path in read_paths]
    rules += [(path, FS_READ_FILE) for path in read_files]
    rules += [(path, FS_READ_FILE | FS_EXECUTE) for path in executables]
    rules.append((workdir, fs & ~FS_EXECUTE))
    for path, access in rules:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            if not os.path.isdir(path):
                access &= FILE_RIGHTS
            rule = _PathBeneath(allowed_access=access & fs, parent_fd=fd)
            _check(_libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH,
                                 ctypes.byref(rule), 0), f"landlock_add_rule {path}")
        finally:
            os.close(fd)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(no_new_privs)")
    _check(_libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    os.close(ruleset)
    return abi


def seccomp_filter(forbid_processes: bool) -> None:
    """A seccomp filter. ``unshare`` and ``setns`` fail with EPERM: no nested namespaces,
    whose kernel code is a common way in for exploits. With ``forbid_processes``, every call
    that makes a process or a thread fails with EAGAIN (root, outside uid 0, is exempt from
    RLIMIT_NPROC, so the limit alone would not hold when llm_eval runs as root; this holds for
    any uid). Another architecture's calls (x32 on x86_64 included) kill the process."""
    machine = os.uname().machine
    if machine not in SECCOMP_ARCH:
        raise LaunchError(f"seccomp: no filter written for the {machine} architecture")
    arch, process_calls, namespace_calls = SECCOMP_ARCH[machine]
    denied = [(call, errno.EPERM) for call in namespace_calls]
    if forbid_processes:
        denied += [(call, errno.EAGAIN) for call in process_calls]
    # the program's tail: allow, then one return per errno; each test jumps to its return
    returns = sorted({err for _, err in denied})
    program = [(BPF_LD_W_ABS, 0, 0, 4), (BPF_JEQ_K, 1, 0, arch),
               (BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS), (BPF_LD_W_ABS, 0, 0, 0)]
    tests = [(BPF_JGE_K, 0x40000000, errno.EPERM)] + [(BPF_JEQ_K, call, err)
                                                       for call, err in denied]
    if errno.EPERM not in returns:
        returns.insert(0, errno.EPERM)
    for index, (op, value, err) in enumerate(tests):
        after = len(tests) - index - 1          # tests left after this one
        program.append((op, after + 1 + returns.index(err), 0, value))
    program.append((BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW))
    program += [(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | err) for err in returns]
    code = b"".join(struct.pack("=HBBI", *op) for op in program)
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(program), ctypes.addressof(buffer))
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
           "prctl(seccomp filter)")


def main(plan: dict) -> None:
    _check(_libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0), "prctl(pdeathsig)")
    enter_namespaces(plan["uid"], plan["gid"])
    mount_workdir(plan["workdir"], plan["disk_bytes"])
    _check(_libc.personality(ADDR_NO_RANDOMIZE), "personality(ADDR_NO_RANDOMIZE)")
    set_limits(plan)
    abi = landlock(plan["read_paths"], plan["read_files"], plan["executables"], plan["workdir"])
    seccomp_filter(forbid_processes=plan["processes"] == 1)
    child_plan = {key: plan[key] for key in ("workdir", "read_paths", "closure", "allowed",
                                             "python_guard", "status_fd")}
    child_plan["landlock_abi"] = abi
    argv = [plan["python"], "-S", "-s", "-B", "-P", "-c", plan["child_source"],
            marshal.dumps(child_plan).hex()]
    os.execve(plan["python"], argv, plan["env"])


if __name__ == "__main__":
    PLAN = marshal.loads(bytes.fromhex(sys.argv[1]))
    try:
        main(PLAN)
    except (LaunchError, OSError, ValueError, KeyError) as exc:
        try:
            os.write(PLAN["status_fd"], f"launch: {exc}\n".encode())
        finally:
            os._exit(LAUNCH_FAILED)
