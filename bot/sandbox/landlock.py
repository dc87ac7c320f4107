"""Landlock and seccomp through ctypes, for the `landlock` tier: where user namespaces are refused
(a Docker container under its default seccomp profile, which allows both of these), a test run
still gets a filesystem view, no network and no way at autofix.

Our own small layer rather than a PyPI binding: the three Landlock calls and one seccomp filter
are a few structs, and the packages that wrap them are young. Everything that can fail is done in
the parent: the ruleset is built there (building it restricts nobody) and the filter assembled;
the child, between fork and exec, only calls landlock_restrict_self and installs the filter.

- Landlock (any ABI): reads and execution only beneath the system's and the interpreter's folders,
  writes only beneath the scratch copy and the shared temporary folders (HOME is /tmp); ABI >= 4
  also refuses every TCP bind and connect; ABI >= 6 scopes abstract unix sockets and signals to
  the run's own processes.
- seccomp: no socket() of any family (so no network even below ABI 4, and no connect() to a
  service's pathname unix socket, which Landlock doesn't mediate) while socketpair() works (pipes
  between the run's own processes: multiprocessing, asyncio); and no ptrace,
  process_vm_readv/writev, mount, namespaces (unshare, setns, clone with CLONE_NEW*, clone3),
  keyrings, bpf, io_uring, userfaultfd or perf_event_open. x86-64 only; other architectures and
  the x32 ABI are refused.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from collections.abc import Iterable
from dataclasses import dataclass

# syscall numbers (x86-64; Landlock's are the same on every architecture)
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2

# filesystem rights, by the ABI that added them
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FS_RIGHTS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # what a rule on a file may grant
READ = EXECUTE | READ_FILE | READ_DIR
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/dev")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")

# seccomp
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
RET_ALLOW, RET_KILL_PROCESS, RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
SYS_SOCKET, SYS_CLONE, SYS_CLONE3 = 41, 56, 435
AF_UNIX = 1
CLONE_NEW_ANY = 0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
REFUSED = {
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "unshare": 272,
    "setns": 308,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "bpf": 321,
    "userfaultfd": 323,
    "perf_event_open": 298,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsmount": 432,
}

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long


def abi_version() -> int:
    """The kernel's Landlock ABI: 0 when it has none, or refuses it."""
    if platform.machine() != "x86_64":
        return 0
    version = _syscall(CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(version), 0)


def unusable() -> str | None:
    """Why this tier can't run here (one line), or None."""
    if platform.machine() != "x86_64":
        return f"seccomp filter written for x86-64, not {platform.machine()}"
    if abi_version() < 1:
        return f"Landlock unavailable ({errno.errorcode.get(ctypes.get_errno(), 'no ABI')})"
    return None


@dataclass
class Confinement:
    """A ruleset built in the parent and the filter assembled; `apply` runs in the child."""

    ruleset_fd: int | None  # None: no Landlock (tests take one guard away to see the other hold)
    abi: int
    program: ctypes.Array  # the sock_filter instructions, kept alive for the child
    fprog: ctypes.Array | None  # struct sock_fprog pointing at `program`; None: no seccomp filter

    def apply(self) -> None:
        """In the child, after NO_NEW_PRIVS: restrict, then filter. Raising fails the spawn."""
        if self.ruleset_fd is not None and _syscall(RESTRICT_SELF, ctypes.c_int(self.ruleset_fd), ctypes.c_uint32(0)):
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
        if self.fprog is not None and _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, self.fprog, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "seccomp filter refused")

    def close(self) -> None:
        if self.ruleset_fd is not None:
            os.close(self.ruleset_fd)


def confinement(readable: Iterable[str], writable: Iterable[str]) -> Confinement:
    """The ruleset for one run: `readable` (and the system's folders) to read and execute,
    `writable` to change as well; paths that don't exist are left out."""
    abi = abi_version()
    if abi < 1:
        raise OSError(errno.ENOSYS, "Landlock unavailable")
    fs = FS_RIGHTS.get(abi, FS_RIGHTS[5])
    attr = struct.pack("<QQQ", fs, NET_BIND_TCP | NET_CONNECT_TCP, SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    buffer = ctypes.create_string_buffer(attr[:size], size)
    fd = _syscall(CREATE_RULESET, buffer, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path in (*SYSTEM, *readable):
            allow(fd, path, READ & fs)
        for path in DEVICES:
            allow(fd, path, (READ_FILE | WRITE_FILE | IOCTL_DEV) & fs)
        for path in writable:
            allow(fd, path, fs)
    except BaseException:
        os.close(fd)
        raise
    program = seccomp_program()
    fprog = ctypes.create_string_buffer(struct.pack("<HxxxxxxQ", len(program), ctypes.addressof(program)), 16)
    return Confinement(fd, abi, program, fprog)


def allow(ruleset_fd: int, path: str, rights: int) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # absent here: nothing to grant
    try:
        if not os.path.isdir(path):
            rights &= FILE_ONLY
        rule = ctypes.create_string_buffer(struct.pack("<Qi", rights, target), 12)
        if _syscall(ADD_RULE, ctypes.c_int(ruleset_fd), ctypes.c_int(RULE_PATH_BENEATH), rule, ctypes.c_uint32(0)):
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(target)


def describe(abi: int) -> str:
    what = "files and TCP" if abi >= 4 else "files"
    scoped = "; signals and abstract sockets scoped" if abi >= 6 else ""
    return f"ABI {abi}: {what} restricted{scoped}; seccomp: no sockets but socketpair, no ptrace"


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


def seccomp_program() -> ctypes.Array:
    deny = RET_ERRNO | errno.EPERM
    code: list[tuple[int, int, int, int]] = [
        (LD_W_ABS, 0, 0, 4),  # the architecture
        (JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        (RET_K, 0, 0, RET_KILL_PROCESS),
        (LD_W_ABS, 0, 0, 0),  # the syscall number
        (JGE_K, 0, 1, X32_SYSCALL_BIT),  # the x32 ABI: other numbers for the same calls
        (RET_K, 0, 0, RET_ERRNO | errno.ENOSYS),
        (JEQ_K, 0, 1, SYS_CLONE3),  # its flags are in memory a filter can't read: glibc falls back to clone
        (RET_K, 0, 0, RET_ERRNO | errno.ENOSYS),
    ]
    for number in REFUSED.values():
        code += [(JEQ_K, 0, 1, number), (RET_K, 0, 0, deny)]
    code += [
        (JEQ_K, 0, 3, SYS_CLONE),
        (LD_W_ABS, 0, 0, 16),  # clone's flags (low 32 bits of the first argument)
        (JSET_K, 0, 1, CLONE_NEW_ANY),
        (RET_K, 0, 0, deny),
        (LD_W_ABS, 0, 0, 0),
        (JEQ_K, 0, 4, SYS_SOCKET),  # no socket() at all; socketpair() is another call
        (LD_W_ABS, 0, 0, 16),  # socket's domain
        (JEQ_K, 0, 1, AF_UNIX),
        (RET_K, 0, 0, deny),  # Landlock doesn't mediate connect() to a pathname socket another uid made
        (RET_K, 0, 0, RET_ERRNO | errno.EAFNOSUPPORT),
        (RET_K, 0, 0, RET_ALLOW),
    ]
    program = (SockFilter * len(code))(*(SockFilter(*instruction) for instruction in code))
    return program
