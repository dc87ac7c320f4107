"""The processes of a sandboxed run: finding them by uid, killing every one of them, reaping
orphans, the cgroup that limits them as a whole, the disk they fill, and capturing their
output within a budget. docs/ARCHITECTURE.md explains the design."""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable

CHUNK = 256 * 1024
_KILL_DEADLINE = 10.0

_PF_EXITING = 0x4  # task flag: in the kernel's exit path, never runs user code again


class _Proc:
    __slots__ = ("ppid", "state", "flags")

    def __init__(self, ppid: int, state: str, flags: int):
        self.ppid, self.state, self.flags = ppid, state, flags


def _stat(pid: str) -> _Proc | None:
    """State, parent and flags from /proc/<pid>/stat; None if the process is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        data = os.read(fd, 1024)
    except OSError:
        return None
    finally:
        os.close(fd)
    # "pid (comm) state ppid pgrp session tty tpgid flags ...": comm may hold anything
    fields = data[data.rfind(b")") + 2 :].split()
    return _Proc(int(fields[1]), fields[0].decode(), int(fields[6]))


def scan_procs() -> dict[int, _Proc]:
    procs: dict[int, _Proc] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            p = _stat(name)
            if p is not None:
                procs[int(name)] = p
    return procs


_proc_dir = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def pids_of(uid: int) -> list[str]:
    """The pids (as in /proc) whose effective uid is ``uid``, zombies too.

    One stat() per pid instead of reading every status file: /proc/<pid>
    itself is owned by the effective uid even for a non-dumpable process.
    """
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(name, dir_fd=_proc_dir).st_uid == uid:
                    out.append(name)
            except OSError:
                pass
    return out


def _alive(p: _Proc) -> bool:
    return p.state not in ("Z", "X")


libc: ctypes.CDLL | None
prctl: Callable[..., int] | None
try:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.restype = ctypes.c_int
    prctl = libc.prctl
except (OSError, AttributeError):  # pragma: no cover - not Linux/glibc
    libc = prctl = None

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
PR_SET_NO_NEW_PRIVS = 38


class _Subreaper:
    """Reference-counted PR_SET_CHILD_SUBREAPER for the duration of runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._restore: int | None = None

    def __enter__(self) -> None:
        with self._lock:
            if self._users == 0 and prctl is not None:
                current = ctypes.c_int(0)
                if (
                    prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(current), 0, 0, 0) == 0
                    and not current.value
                    and prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
                ):
                    self._restore = 0
            self._users += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._restore is not None:
                assert prctl is not None  # _restore is set only after prctl succeeded
                prctl(_PR_SET_CHILD_SUBREAPER, self._restore, 0, 0, 0)
                self._restore = None


subreaper = _Subreaper()
unshared_lock = threading.Lock()  # serializes runs that have no dedicated uid


def _reap(pid: int) -> bool:
    """Reap a zombie child; False if it cannot be yet (a thread-group leader
    that exited while its other threads still run shows as a zombie too)."""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return True


def _kill_as_uid(uid: int, gid: int) -> None:
    """kill(-1, SIGKILL) as ``uid``: every process of that uid, atomically."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        except BaseException:  # noqa: BLE001 - a forked child never returns into autofix
            os._exit(1)
        os._exit(0)
    os.waitpid(pid, 0)


def kill_uid(uid: int, gid: int, spare: int | None = None) -> None:
    """Kill every process of ``uid``; return once /proc shows none, having
    reaped those that are our children.

    ``spare`` is a main child still unreaped, left for Popen.  A kill(-1) sweep
    is made whenever a process of the uid is seen that may still run user
    code; one that is already exiting (bwrap's pid 1, finishing off its
    namespace) is only waited for.  Returning needs a scan that shows nothing
    at all (module docstring: then nothing can be hiding).
    """
    me = os.getpid()
    deadline = time.monotonic() + _KILL_DEADLINE
    while True:
        sweep, seen, wait_for = False, False, None
        for name in pids_of(uid):
            p = _stat(name)
            pid = int(name)
            if p is None or (pid == spare and not _alive(p)):
                continue
            seen = True
            if not _alive(p):
                if p.ppid == me and not _reap(pid):
                    sweep, wait_for = True, pid  # a leader whose threads still run
            else:
                wait_for = pid
                if not p.flags & _PF_EXITING:
                    sweep = True
        if not seen:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of uid {uid} survived SIGKILL for {_KILL_DEADLINE:g} s")
        if sweep:
            _kill_as_uid(uid, gid)
        _wait_exit(wait_for)


def _wait_exit(pid: int | None) -> None:
    """Wait a little for ``pid`` to exit, waking as soon as it does (pidfd)."""
    try:
        fd = os.pidfd_open(pid) if pid is not None else None
    except ProcessLookupError:
        return  # gone already: look again at once
    except OSError:
        fd = None
    if fd is None:
        time.sleep(0.001)
        return
    try:
        select.select([fd], [], [], 0.01)
    finally:
        os.close(fd)


def kill_tree(main: subprocess.Popen, before: set[int]) -> None:
    """Kill the run's process group and every descendant of the run.

    Descendants are the main process's subtree plus the children autofix
    gained during the run (orphans re-parented to us, the subreaper) that were
    not children before the run, and their subtrees.
    """
    me = os.getpid()
    deadline = time.monotonic() + _KILL_DEADLINE
    while True:
        if main.returncode is None:
            try:
                os.killpg(main.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        procs = scan_procs()
        children: dict[int, list[int]] = {}
        for pid, p in procs.items():
            children.setdefault(p.ppid, []).append(pid)
        roots = [main.pid] + [pid for pid in children.get(me, ()) if pid not in before]
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            pid = stack.pop()
            if pid in seen or pid not in procs:
                continue
            seen.add(pid)
            stack.extend(children.get(pid, ()))
        live = [pid for pid in seen if _alive(procs[pid])]
        for pid in live:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for pid in seen:
            if pid != main.pid and procs[pid].ppid == me and not _alive(procs[pid]):
                _reap(pid)
        if not live:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of the run survived SIGKILL for {_KILL_DEADLINE:g} s")
        time.sleep(0.002)


# --------------------------------------------------------------------------
# whole-run limits


_CGROUP_CONTROLLERS = ("memory", "pids")
_CGROUP_FOLDER = "autofix-sandbox"  # in the cgroup v2 root; a cgroup per live run in it
_cgroup_lock = threading.Lock()
_cgroup_found: list[tuple[str | None, str]] = []


def cgroup_parent() -> tuple[str | None, str]:
    """(the cgroup v2 folder the runs' cgroups are made in, "") or (None, why there is none).
    Tried once per process, with a process moved into a trial cgroup."""
    with _cgroup_lock:
        if not _cgroup_found:
            try:
                _cgroup_found.append((_make_cgroup_parent(), ""))
            except (OSError, subprocess.SubprocessError) as e:
                _cgroup_found.append((None, str(e)))
        return _cgroup_found[0]


def _cgroup_root() -> str | None:
    """The cgroup v2 mount point (the root of this cgroup namespace)."""
    found = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields, _, rest = line.partition(" - ")
            if rest.split()[:1] == ["cgroup2"]:
                found = fields.split()[4]
                if found == "/sys/fs/cgroup":
                    break
    return found


def _make_cgroup_parent() -> str:
    root = _cgroup_root()
    if root is None:
        raise OSError("no cgroup v2 mounted")
    with open(f"{root}/cgroup.subtree_control") as f:
        enabled = f.read().split()
    missing = [c for c in _CGROUP_CONTROLLERS if c not in enabled]
    if missing:
        raise OSError(f"{' and '.join(missing)} not enabled in {root}/cgroup.subtree_control")
    parent = f"{root}/{_CGROUP_FOLDER}"
    try:
        os.mkdir(parent, 0o755)
    except FileExistsError:
        pass
    _write(parent, "cgroup.subtree_control", " ".join(f"+{c}" for c in _CGROUP_CONTROLLERS))
    trial = RunCgroup(parent, f"trial-{os.getpid()}", 64 * 2**20, 8)
    try:
        subprocess.run(["/bin/true"], preexec_fn=trial.join, check=True, timeout=10)
    finally:
        trial.remove()
    return parent


def _write(folder: str, name: str, value: str) -> None:
    fd = os.open(f"{folder}/{name}", os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


class RunCgroup:
    """A run's cgroup: memory (no swap) and process count of all its processes together."""

    @staticmethod
    def name(uid: int) -> str:
        return f"uid-{uid}"

    def __init__(self, parent: str, name: str, memory: int, processes: int):
        self.path = f"{parent}/{name}"
        try:
            os.mkdir(self.path, 0o755)
        except FileExistsError:
            pass  # left by a crashed run of the uid: reused
        try:
            _write(self.path, "memory.max", str(memory))
            if os.path.exists(f"{self.path}/memory.swap.max"):  # (none without swap accounting)
                _write(self.path, "memory.swap.max", "0")
            _write(self.path, "pids.max", str(processes))
            self.procs = os.open(f"{self.path}/cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
        except OSError:
            os.rmdir(self.path)
            raise

    def join(self) -> None:
        """Move the calling process in: the child does it, as root, before it drops to the
        uid and execs, so everything the run starts is inside."""
        os.write(self.procs, b"0")

    def remove(self) -> None:
        """Once the run's processes are gone."""
        os.close(self.procs)
        os.rmdir(self.path)


def remove_run_cgroup(uid: int) -> None:
    """Remove the cgroup a crashed run of ``uid`` left, if any (its processes are gone)."""
    root = _cgroup_root()
    if root is not None:
        try:
            os.rmdir(f"{root}/{_CGROUP_FOLDER}/{RunCgroup.name(uid)}")
        except FileNotFoundError:
            pass


class DiskUse:
    """How much the used space of the filesystems holding ``paths`` grew since it was made,
    from the lowest it was seen at (so what others delete meanwhile hides no later write)."""

    def __init__(self, paths: Iterable[str]):
        devices: dict[int, str] = {}
        for path in paths:
            try:
                devices.setdefault(os.stat(path).st_dev, path)
            except OSError:
                pass
        self.paths = list(devices.values())
        self.lowest = [self._used(p) for p in self.paths]

    @staticmethod
    def _used(path: str) -> int:
        fs = os.statvfs(path)
        return (fs.f_blocks - fs.f_bfree) * fs.f_frsize

    def grown(self) -> int:
        used = [self._used(path) for path in self.paths]
        self.lowest = [min(low, now) for low, now in zip(self.lowest, used, strict=True)]
        return sum(now - low for low, now in zip(self.lowest, used, strict=True))


# --------------------------------------------------------------------------
# output


def size(n: int) -> str:
    if n >= 2**30 and n % 2**30 == 0:
        return f"{n // 2**30} GiB"
    if n >= 2**20 and n % 2**20 == 0:
        return f"{n // 2**20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n} bytes"


class Capture:
    """Keeps a short head and a long tail of the output; counts everything."""

    def __init__(self, excerpt: int):
        self.excerpt = max(0, excerpt)
        self.head_max = min(self.excerpt // 8, 4096)
        self.tail_max = self.excerpt - self.head_max
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_max - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data and self.tail_max:
            self.tail += data
            if len(self.tail) > 2 * self.tail_max + CHUNK:
                del self.tail[: -self.tail_max]

    def text(self) -> str:
        if self.total <= self.excerpt:
            return (bytes(self.head) + bytes(self.tail)).decode(errors="replace")
        tail = bytes(self.tail[-self.tail_max :]) if self.tail_max else b""
        # cut on line boundaries when they are near
        nl = tail.find(b"\n", 0, 1024)
        if 0 <= nl < len(tail) - 1:
            tail = tail[nl + 1 :]
        head = bytes(self.head)
        nl = head.rfind(b"\n")
        if nl >= len(head) // 2:
            head = head[: nl + 1]
        cut = self.total - len(head) - len(tail)
        text = head.decode(errors="replace")
        if text and not text.endswith("\n"):
            text += "\n"
        return f"{text}[... {cut} bytes cut ...]\n{tail.decode(errors='replace')}"
