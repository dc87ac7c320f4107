"""The processes of a sandboxed run: finding them by uid, killing every one of them, reaping
orphans, and capturing their output within a budget. bot/sandbox.py explains the design."""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import threading
import time

CHUNK = 256 * 1024
_KILL_DEADLINE = 10.0

_PF_EXITING = 0x4   # task flag: in the kernel's exit path, never runs user code again


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
    fields = data[data.rfind(b")") + 2:].split()
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


try:
    _libc = ctypes.CDLL(None, use_errno=True)
    prctl = _libc.prctl
    prctl.restype = ctypes.c_int
except (OSError, AttributeError):  # pragma: no cover - not Linux/glibc
    prctl = None

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
                old = ctypes.c_int(0)
                if prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(old), 0, 0, 0) == 0 and not old.value:
                    if prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
                        self._restore = 0
            self._users += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._restore is not None:
                prctl(_PR_SET_CHILD_SUBREAPER, self._restore, 0, 0, 0)
                self._restore = None


subreaper = _Subreaper()
unshared_lock = threading.Lock()   # serializes runs that have no dedicated uid


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
        except BaseException:
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
                    sweep, wait_for = True, pid   # a leader whose threads still run
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
        return                      # gone already: look again at once
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
# output


def size(n: int) -> str:
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
                del self.tail[:-self.tail_max]

    def text(self) -> str:
        if self.total <= self.excerpt:
            return (bytes(self.head) + bytes(self.tail)).decode(errors="replace")
        tail = bytes(self.tail[-self.tail_max:]) if self.tail_max else b""
        # cut on line boundaries when they are near
        nl = tail.find(b"\n", 0, 1024)
        if 0 <= nl < len(tail) - 1:
            tail = tail[nl + 1:]
        head = bytes(self.head)
        nl = head.rfind(b"\n")
        if nl >= len(head) // 2:
            head = head[:nl + 1]
        cut = self.total - len(head) - len(tail)
        text = head.decode(errors="replace")
        if text and not text.endswith("\n"):
            text += "\n"
        return f"{text}[... {cut} bytes cut ...]\n{tail.decode(errors='replace')}"
