"""Run an untrusted test command with limits: the sandbox of autofix.

autofix runs code a model wrote, and the repository's tests.  Both are
untrusted, so the test command runs in one of three tiers:

``bwrap``
    bubblewrap: new user, pid, network, ipc, uts and mount namespaces.  The
    sandbox sees a read-only system (/usr and the /lib, /bin, ... links, a
    short allowlist of /etc, a synthetic /etc/passwd, /etc/group and
    /etc/hosts), a private /proc, a minimal /dev, an empty /tmp, the
    ``readable`` paths read-only and the workdir read-write, each at its host
    path.  No network: only a loopback interface of its own.  (The /etc
    files are copies made once per process, not bind mounts: each mount is
    what bwrap's setup and teardown spend their time on.)

``process``
    for hosts where user namespaces are blocked: an unprivileged uid, rlimits
    and a new session.  Network NOT isolated; the filesystem is protected by
    permissions only.

``none``
    a plain subprocess with the same output capping and killing; asked for
    explicitly only, and ``open_sandbox("none")`` warns (``warnings.warn``
    with :class:`SandboxWarning`).

Design decisions
----------------
*The uids.*  When autofix runs as root, every tier but ``none`` runs the
command as a dedicated uid/gid taken for the run from a pool: 65533
(``SANDBOX_UID``) down to 65502.  A pool uid may have no passwd or group
entry on the host (nothing is added to the host; inside bwrap a synthetic
passwd names it ``autofix-sandbox``): uids that belong to an account are
left out of the pool, and an explicit ``uid=`` (a pool of one) is refused
if it belongs to one.  A run claims the first free uid with a ``flock`` on
/run/autofix-sandbox/uid-<uid>.lock, held for the whole run, so concurrent
runs (threads, processes, ``pytest -n``) run in parallel, each as its own
uid.  A dedicated uid per run is what makes RLIMIT_NPROC meaningful (it
counts per real uid: one run's fork bomb does not starve another) and what
makes "kill everything of the run" exact and private to the run:
``kill(-1, SIGKILL)`` sent *as that uid* reaches every process the uid
owns, in every pid namespace, in one atomic sweep of the task list (a fork
racing with it fails on the pending SIGKILL), so a process that called
setsid() or double-forked cannot hide, and nothing of another run is hit.

*Clean uids.*  A run's journal, /run/autofix-sandbox/uid-<uid>.journal, is
written before its command starts and removed only once no process of the
uid is left and the workdir is handed back.  So a uid without a journal has
no process and its next run skips the pre-run sweep.  A journal whose lock
is free belongs to a crashed autofix: the next run that sees it kills what
that uid left, hands the workdir back and cleans the shared temp dirs.

*bwrap as root.*  When root runs bwrap with ``--unshare-user``, the
sandboxed process is still host uid 0: every root-owned file that is bound
in is its own (owner permission bits apply), and RLIMIT_NPROC never applies
to uid 0, so a fork bomb would be bounded by the wall clock only.  So root
does not run bwrap: autofix drops to the run's uid first (``user=`` in
Popen) and runs bwrap *unprivileged*; inside, the command sees itself as
that uid and on the host it *is* that uid.  If unprivileged user namespaces
are unavailable, the bwrap probe fails and ``auto`` falls back to
``process``.  (bwrap 0.8 cannot bind a directory from a file descriptor
when it runs unprivileged: it resolves /proc/self/fd/N as a path, which its
own non-dumpable child may not do.  So it binds by path, as the uid.)

*Access to the workdir and the readable paths* (root only; every change is
journaled in /run before it is made and a crashed run is undone by the
next).  The workdir is chowned to the run's uid for the run (entries on
other filesystems and files hard-linked from outside the workdir are left
alone, so a local clone that hardlinks .git/objects does not give the source
repository away) and chowned back afterwards, restoring any owner that
differed; for the run its top loses its "other" bits, so a concurrent run of
another uid cannot look into it.  The uid must be able to walk to the
workdir and to the readable paths (bwrap binds them by path as that uid; the
process tier opens them by path).  A directory on that walk that others
cannot search (e.g. /root, mode 700, above /root/.pyenv) gets o+x, and all
of its other entries lose their "other" bits, so the grant opens exactly the
needed paths and nothing beside them (/root/.gitconfig stays unreachable).
Root ignores mode bits and other users could not get through that directory
before, so nobody else notices.  A readable tree that others cannot read
gets o+rX (it was declared readable).  These grants are shared by the runs
of the moment: /run/autofix-sandbox/grants.json records every mode changed,
with its original, and the paths each live run needs; it changes under a
short flock.  A run adds its paths and the modes are reconciled with what
all live runs need (a run whose uid lock is free is dead and no longer
counts); when it ends it takes its paths out and reconciles again.  So a
grant lasts exactly as long as some run needs it, one run's end never
revokes what another run uses, and when no run is left every mode is back.
A crash leaves the safe half (siblings masked) until the next reconcile.

*Killing.*  Output is read by the parent in chunks; only a head and a tail
are kept.  The run ends when its main process exits, the wall clock runs out
or the output budget is exceeded; then everything of the run is killed:
with a dedicated uid by ``kill(-1)`` as that uid, repeated until /proc shows
no live process of the uid; otherwise (``none``, or autofix not root) by
killing the process group and every descendant.  During a run autofix is a
child subreaper (``PR_SET_CHILD_SUBREAPER``), so orphans (double forks,
setsid daemons) are re-parented to it instead of to PID 1: they stay
findable as descendants, and autofix reaps them (a PID 1 that does not reap
would otherwise keep them as zombies that count against RLIMIT_NPROC).
Finding the uid's processes costs one stat() per pid: /proc/<pid> is owned
by the process's effective uid even when it made itself non-dumpable; only
those few get their stat read.  Once the main process has exited (and is
reaped), a scan that shows nothing of the uid proves the run is over, with
no sweep: any other process of the run is, or descends from, a child of
autofix (the subreaper) that stays at least a zombie until autofix reaps
it, so it cannot slip away between listing /proc and looking, and with none
alive none can be born.  A process seen that may still run user code means
a sweep; one already in the kernel's exit path (bwrap's pid 1 tearing down
its namespaces, just after bwrap itself exited) is waited for; zombies that
are ours are reaped; then /proc is scanned again.  bwrap adds
``--die-with-parent`` and a pid namespace: when its init dies the kernel
kills the whole namespace.  Nothing of the run outlives ``run()``.  With the process tier,
what the run's uid owns at the top of /tmp, /var/tmp and /dev/shm is
deleted after the run too.
"""

from __future__ import annotations

import ctypes
import fcntl
import grp
import json
import math
import os
import pwd
import resource
import select
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Protocol, Sequence

__all__ = [
    "Limits",
    "Outcome",
    "Sandbox",
    "SandboxWarning",
    "SANDBOX_UID",
    "allowed_environ",
    "open_sandbox",
]

SANDBOX_UID = 65533
SANDBOX_NAME = "autofix-sandbox"
_POOL = tuple(range(SANDBOX_UID, SANDBOX_UID - 32, -1))   # 65533 .. 65502, first choice first

_ENV_FROM_HOST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")

# /etc entries the bwrap sandbox sees (read-only, when they exist).  No
# shadow, ssh, sudoers, pip.conf, gitconfig, machine-id, ...
_ETC_ALLOW = (
    "alternatives", "ca-certificates", "ca-certificates.conf", "crypto-policies",
    "debian_version", "gai.conf", "host.conf", "inputrc", "ld.so.cache",
    "ld.so.conf", "ld.so.conf.d", "locale.alias", "locale.conf", "localtime",
    "lsb-release", "magic", "mime.types", "nsswitch.conf", "os-release", "pki",
    "protocols", "services", "ssl", "terminfo", "timezone",
)
_SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

_CHUNK = 256 * 1024
_KILL_DEADLINE = 10.0


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 60          # whole run, then every process of the run is killed
    cpu_seconds: int = 300            # RLIMIT_CPU per process
    memory_mb: int = 4096             # RLIMIT_AS
    processes: int = 256              # RLIMIT_NPROC (meaningful where the uid is dedicated)
    file_size_mb: int = 256           # RLIMIT_FSIZE
    output_bytes: int = 16 * 2**20    # total stdout+stderr before the run is killed
    excerpt_bytes: int = 64 * 1024    # how much of the output is kept in Outcome.output


@dataclass
class Outcome:
    returncode: int | None    # None when autofix killed the run
    output: str               # merged stdout+stderr (head, "[... N bytes cut ...]", tail)
    output_bytes: int         # total bytes the run wrote
    seconds: float
    killed: str | None        # why autofix killed it, one line; None otherwise


class Sandbox(Protocol):
    tier: str                 # "bwrap" | "process" | "none"
    network_isolated: bool
    limitations: str          # one line, "" when there is nothing to add to describe()
    readable: tuple[Path, ...]

    def run(self, argv: Sequence[str], workdir: Path, env: Mapping[str, str],
            limits: Limits) -> Outcome: ...

    def describe(self) -> str: ...


class SandboxWarning(UserWarning):
    """Emitted by ``open_sandbox("none")``: the tests will run unisolated."""


def allowed_environ(extra: Mapping[str, str] = {}) -> dict[str, str]:
    """The environment the tests get: an allowlist, then ``extra`` (trusted)."""
    env = {k: os.environ[k] for k in _ENV_FROM_HOST if k in os.environ}
    env["HOME"] = "/tmp"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


# --------------------------------------------------------------------------
# /proc, prctl


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


def _scan_procs() -> dict[int, _Proc]:
    procs: dict[int, _Proc] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            p = _stat(name)
            if p is not None:
                procs[int(name)] = p
    return procs


_proc_dir = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def _pids_of(uid: int) -> list[str]:
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
    _prctl = _libc.prctl
    _prctl.restype = ctypes.c_int
except (OSError, AttributeError):  # pragma: no cover - not Linux/glibc
    _prctl = None

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_PR_SET_NO_NEW_PRIVS = 38


class _Subreaper:
    """Reference-counted PR_SET_CHILD_SUBREAPER for the duration of runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._restore: int | None = None

    def __enter__(self) -> None:
        with self._lock:
            if self._users == 0 and _prctl is not None:
                old = ctypes.c_int(0)
                if _prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(old), 0, 0, 0) == 0 and not old.value:
                    if _prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
                        self._restore = 0
            self._users += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._restore is not None:
                _prctl(_PR_SET_CHILD_SUBREAPER, self._restore, 0, 0, 0)
                self._restore = None


_subreaper = _Subreaper()
_unshared_lock = threading.Lock()   # serializes runs that have no dedicated uid


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


def _kill_uid(uid: int, gid: int, spare: int | None = None) -> None:
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
        for name in _pids_of(uid):
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


def _kill_tree(main: subprocess.Popen, before: set[int]) -> None:
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
        procs = _scan_procs()
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


def _size(n: int) -> str:
    if n >= 2**20 and n % 2**20 == 0:
        return f"{n // 2**20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n} bytes"


class _Capture:
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
            if len(self.tail) > 2 * self.tail_max + _CHUNK:
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


# --------------------------------------------------------------------------
# the run's uid, its workdir and the shared grants (root only)


def _ancestors(path: str) -> list[str]:
    out = []
    parent = os.path.dirname(path)
    while parent != path:
        out.append(parent)
        path, parent = parent, os.path.dirname(parent)
    return out[::-1]   # "/" first


def _state_dir() -> str:
    """/run/autofix-sandbox: the uid locks, their journals and the grants (root's only)."""
    base = "/run" if os.access("/run", os.W_OK) else tempfile.gettempdir()
    path = os.path.join(base, "autofix-sandbox")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise RuntimeError(f"{path} is not a private directory of uid {os.getuid()}")
    return path


def _write_json(path: str, state: dict) -> None:
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(state, f)
    os.replace(tmp, path)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _open_lock(path: str) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


class _Slot:
    """One uid of the pool, claimed for one run by holding its flock."""

    def __init__(self, state_dir: str, uid: int):
        self.uid = uid
        self.lock = os.path.join(state_dir, f"uid-{uid}.lock")
        self.journal = os.path.join(state_dir, f"uid-{uid}.journal")
        self.fd = -1

    @staticmethod
    @contextmanager
    def claim(pool: Sequence[int]) -> Iterator["_Slot"]:
        """The first free uid of ``pool``, after recovering every crashed uid of it."""
        state_dir = _state_dir()
        names = set(os.listdir(state_dir))
        crashed = {uid for uid in pool if f"uid-{uid}.journal" in names}
        chosen: _Slot | None = None
        try:
            for uid in pool:
                if chosen is not None and uid not in crashed:
                    continue
                slot = _Slot(state_dir, uid)
                slot.fd = _open_lock(slot.lock)
                try:
                    if not _try_flock(slot.fd):
                        continue               # in use by a live run
                    if uid in crashed:
                        _Workdir.recover(uid, slot.journal)
                    if chosen is None:
                        chosen, slot = slot, None
                finally:
                    if slot is not None:
                        os.close(slot.fd)
            if chosen is None:                 # every uid busy: wait for the first
                chosen = _Slot(state_dir, pool[0])
                chosen.fd = _open_lock(chosen.lock)
                fcntl.flock(chosen.fd, fcntl.LOCK_EX)
                if os.path.exists(chosen.journal):
                    _Workdir.recover(chosen.uid, chosen.journal)
            yield chosen
        finally:
            if chosen is not None:
                os.close(chosen.fd)            # releases the uid

    @staticmethod
    def live(state_dir: str, uid: int) -> bool:
        """Whether a run holds ``uid`` now (probing its lock never blocks)."""
        try:
            fd = os.open(os.path.join(state_dir, f"uid-{uid}.lock"),
                         os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return False
        try:
            return not _try_flock(fd)
        finally:
            os.close(fd)


class _Workdir:
    """chown the workdir to the run's uid and close it to others; ``undo()``
    restores it.  Journaled in the uid's journal before anything changes, so
    that a run whose autofix died is undone by the next run (``recover``).
    """

    def __init__(self, uid: int, journal: str):
        self.uid = self.gid = uid
        self.journal = journal
        self.workdir: str | None = None
        self.owner = (0, 0)
        self.owners: dict[str, tuple[int, int]] = {}
        self.mode = 0                                   # the workdir's own mode before the run

    def _save(self) -> None:
        _write_json(self.journal, {"workdir": self.workdir, "owner": self.owner,
                                   "owners": self.owners, "mode": self.mode})

    @classmethod
    def recover(cls, uid: int, journal: str) -> None:
        """Undo a crashed run of ``uid``: its processes, its workdir, its temp files."""
        work = cls(uid, journal)
        try:
            with open(journal) as f:
                state = json.load(f)
            work.workdir = state["workdir"]
            work.owner = tuple(state["owner"])
            work.owners = {k: tuple(v) for k, v in state["owners"].items()}
            work.mode = state["mode"]
        except (OSError, ValueError, KeyError, TypeError):
            work.workdir = None          # written half: nothing was handed over yet
        _kill_uid(uid, uid)
        if work.workdir is not None and not os.path.isdir(work.workdir):
            work.workdir = None
        work.undo(dirty=False)
        _clean_shared_tmp(uid)     # after undo: the workdir itself may be at the top

    # -- ownership of the workdir
    def _entries(self, root: str) -> Iterable[tuple[str, os.stat_result]]:
        rst = os.lstat(root)
        yield root, rst
        for dirpath, dirnames, filenames in os.walk(root):
            keep = []
            for name in dirnames:
                p = os.path.join(dirpath, name)
                st = os.lstat(p)
                if st.st_dev != rst.st_dev:
                    continue   # another filesystem mounted inside: leave it alone
                if not stat.S_ISLNK(st.st_mode):
                    keep.append(name)
                yield p, st
            dirnames[:] = keep
            for name in filenames:
                p = os.path.join(dirpath, name)
                st = os.lstat(p)
                if st.st_dev == rst.st_dev:
                    yield p, st

    def give(self, workdir: str, pool: Sequence[int]) -> None:
        st = os.lstat(workdir)
        if st.st_uid in pool:
            raise ValueError(f"workdir {workdir} is in use by another sandbox run")
        entries = list(self._entries(workdir))
        links: dict[tuple[int, int], int] = {}
        for _, est in entries:
            if stat.S_ISREG(est.st_mode) and est.st_nlink > 1:
                links[est.st_dev, est.st_ino] = links.get((est.st_dev, est.st_ino), 0) + 1
        self.owner = (st.st_uid, st.st_gid)
        todo = []
        for path, est in entries:
            if stat.S_ISREG(est.st_mode) and est.st_nlink > links.get((est.st_dev, est.st_ino), 1):
                continue   # hard-linked from outside: chowning it would give that file away
            if (est.st_uid, est.st_gid) == (self.uid, self.gid):
                continue
            if (est.st_uid, est.st_gid) != self.owner:
                self.owners[path] = (est.st_uid, est.st_gid)
            todo.append(path)
        self.workdir, self.mode = workdir, stat.S_IMODE(st.st_mode)
        self._save()
        for path in todo:
            os.lchown(path, self.uid, self.gid)
        # another run's uid may walk to here (the grants are shared): keep it out
        os.chmod(workdir, self.mode & ~0o007)

    def undo(self, dirty: bool) -> None:
        """Hand the workdir back.  ``dirty``: processes of the uid may be left,
        so the journal stays, emptied, for the next run to sweep the uid."""
        errors = []
        if self.workdir is not None:
            try:
                for path, st in self._entries(self.workdir):
                    if st.st_uid == self.uid or st.st_gid == self.gid:
                        os.lchown(path, *self.owners.get(path, self.owner))
                if stat.S_IMODE(os.lstat(self.workdir).st_mode) == self.mode & ~0o007:
                    os.chmod(self.workdir, self.mode)
            except OSError as e:
                errors.append(e)
        if errors:
            raise errors[0]
        self.workdir = None
        if dirty:
            self._save()
        else:
            _unlink(self.journal)


class _Grants:
    """The mode changes that let the runs' uids reach their workdirs and the
    readable paths, shared by every run of the machine (module docstring)."""

    def __init__(self, state_dir: str):
        self.state_dir = state_dir
        self.lock = os.path.join(state_dir, "grants.lock")
        self.path = os.path.join(state_dir, "grants.json")

    @contextmanager
    def held(self, uid: int, walk: list[str], trees: list[str]) -> Iterator[None]:
        with self._state() as state:
            state["holders"][str(uid)] = {"walk": walk, "trees": trees}
            self._reconcile(state)
        try:
            yield
        finally:
            with self._state() as state:
                state["holders"].pop(str(uid), None)
                self._reconcile(state)

    @contextmanager
    def _state(self) -> Iterator[dict]:
        fd = _open_lock(self.lock)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                with open(self.path) as f:
                    state = json.load(f)
            except FileNotFoundError:
                state = {"holders": {}, "modes": {}}
            yield state
        finally:
            os.close(fd)

    def _reconcile(self, state: dict) -> None:
        """Make the modes exactly what the live holders need."""
        holders = {k: h for k, h in state["holders"].items() if _Slot.live(self.state_dir, int(k))}
        had = {p: tuple(m) for p, m in state["modes"].items()}
        want = _plan({p for h in holders.values() for p in h["walk"]},
                     {p for h in holders.values() for p in h["trees"]}, had)
        state["holders"] = holders
        journaled = False
        if any(had.get(path) != m for path, m in want.items()):
            # journal first: all that is or will be changed, with its original
            state["modes"] = {**had, **want}
            _write_json(self.path, state)
            journaled = state["modes"] == want
        for path, (old, new) in had.items():
            if path not in want:
                try:
                    if stat.S_IMODE(os.lstat(path).st_mode) == new:
                        os.chmod(path, old)
                except FileNotFoundError:
                    pass
        for path, (old, new) in list(want.items()):
            if had.get(path) != (old, new):
                try:
                    os.chmod(path, new)
                except FileNotFoundError:
                    del want[path]
                    journaled = False
        state["modes"] = want
        if not holders and not want:
            _unlink(self.path)                    # every mode is back
        elif not journaled:
            _write_json(self.path, state)


def _plan(walk: set[str], trees: set[str], had: Mapping[str, tuple[int, int]]
          ) -> dict[str, tuple[int, int]]:
    """{path: (original mode, granted mode)} that opens the walk to every path
    of ``walk`` (closing the other entries of each directory opened) and the
    ``trees`` to others.  Originals come from ``had`` for what is granted now."""
    def original(path: str) -> tuple[int, int]:
        st = os.lstat(path)
        mode = had[path][0] if path in had else stat.S_IMODE(st.st_mode)
        return st.st_mode, mode

    ancestors = {a for t in walk for a in _ancestors(t)}
    needed = ancestors | walk
    want: dict[str, tuple[int, int]] = {}
    for a in sorted(ancestors):
        _, mode = original(a)
        if mode & stat.S_IXOTH:
            continue
        want[a] = (mode, mode | stat.S_IXOTH)
        for entry in os.scandir(a):
            if entry.path in needed or entry.is_symlink():
                continue
            try:
                _, emode = original(entry.path)
            except FileNotFoundError:
                continue
            if emode & 0o007:
                want[entry.path] = (emode, emode & ~0o007)
    for root in sorted(trees):
        want.update(_open_tree(root, original))   # declared readable: wins over a mask
    return want


def _open_tree(root: str, original) -> dict[str, tuple[int, int]]:
    """o+rX on a readable tree that others cannot read (it was declared readable)."""
    def grant(kind: int, mode: int) -> int:
        add = stat.S_IROTH
        if stat.S_ISDIR(kind) or mode & 0o111:
            add |= stat.S_IXOTH
        return mode | add

    kind, mode = original(root)
    want = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(kind) else 0)
    if mode & want == want:
        return {}   # meant to be world-readable: trust its inside
    plan = {root: (mode, grant(kind, mode))}
    if stat.S_ISDIR(kind):
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                p = os.path.join(dirpath, name)
                kind, mode = original(p)
                if not stat.S_ISLNK(kind) and grant(kind, mode) != mode:
                    plan[p] = (mode, grant(kind, mode))
    return plan


_SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm")


def _clean_shared_tmp(uid: int) -> None:
    """Delete what ``uid`` owns at the top of the shared temp dirs: the uid is
    dedicated, so all of it was made by its runs."""
    for d in _SHARED_TMP:
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
                if st.st_uid != uid:
                    continue
                if stat.S_ISDIR(st.st_mode):
                    shutil.rmtree(entry.path, ignore_errors=True)   # fd-based: safe against symlinks
                else:
                    os.unlink(entry.path)
            except OSError:
                pass


def _grants() -> _Grants:
    return _Grants(_state_dir())


# --------------------------------------------------------------------------
# the sandboxes


def _normalize_readable(readable: Iterable[os.PathLike | str]) -> tuple[Path, ...]:
    out: list[Path] = []
    for p in readable:
        p = Path(os.path.abspath(os.fspath(p)))
        if p.exists() and p not in out:
            out.append(p)
    return tuple(out)


def _clamp(res: int, value: int) -> tuple[int, int]:
    soft, hard = resource.getrlimit(res)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    return value, value


class _Base:
    tier = "none"
    network_isolated = False

    def __init__(self, readable: tuple[Path, ...], pool: tuple[int, ...] | None):
        self.readable = readable
        self.pool = pool                      # the dedicated uids, or None (runs as autofix's uid)
        self.uid = pool[0] if pool else None  # the one a run takes when no other run is going
        self.limitations = ""
        # realpaths of the readable paths, for access grants
        self._readable_real = sorted({os.path.realpath(p) for p in readable})

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"

    def describe(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def _pool_note(self) -> str:
        if self.pool is None or len(self.pool) == 1:
            return ""
        return f"concurrent runs take the next free uid down to {self.pool[-1]}"

    # -- hooks
    def _command(self, argv: list[str], workdir: str, env: dict[str, str], limits: Limits,
                 uid: int | None) -> tuple[list[str], dict[str, str], str, list[int]]:
        return argv, env, workdir, []

    def _nproc(self, limits: Limits, uid: int | None) -> int:
        if uid is not None:
            return limits.processes
        # a shared uid: allow what it already runs, plus the run's share
        return len(_pids_of(os.getuid())) + limits.processes

    # -- run
    def run(self, argv: Sequence[str], workdir: Path, env: Mapping[str, str],
            limits: Limits) -> Outcome:
        argv = [os.fspath(a) for a in argv]
        if not argv:
            raise ValueError("empty argv")
        wd = os.path.realpath(os.fspath(workdir))
        if not os.path.isdir(wd):
            raise ValueError(f"workdir {wd} is not a directory")
        env = {str(k): str(v) for k, v in env.items()}
        if self.pool is None:
            with _unshared_lock:
                return self._execute(argv, wd, env, limits, None)
        self._check_workdir(wd)
        with _Slot.claim(self.pool) as slot:
            work = _Workdir(slot.uid, slot.journal)
            dirty = False
            # the workdir is handed back before the grants are: so the grants of the runs
            # still going close it (a sibling of their paths) with its own mode back
            with _grants().held(slot.uid, [wd, *self._readable_real], self._readable_real):
                try:
                    work.give(wd, self.pool)
                    dirty = True                 # from here processes of the uid may exist
                    outcome = self._execute(argv, wd, env, limits, slot.uid)
                    dirty = False                # _execute returned: none is left
                finally:
                    work.undo(dirty)
                    if self.tier == "process":   # after undo: the workdir may be at the top
                        _clean_shared_tmp(slot.uid)
            return outcome

    def _check_workdir(self, wd: str) -> None:
        # the workdir is chowned to the sandbox uid for the run: never a
        # top-level directory, and never one holding a readable path (the
        # interpreter autofix itself runs must stay out of the sandbox's reach)
        if wd.count("/") < 2:
            raise ValueError(f"refusing to hand {wd} to the sandbox uid: use a dedicated directory")
        for r in self._readable_real:
            if _within(r, wd):
                raise ValueError(f"workdir {wd} contains readable path {r}, which must stay read-only")

    def _preexec(self, limits: Limits, uid: int | None):
        rl = [
            (resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1)),
            (resource.RLIMIT_AS, _clamp(resource.RLIMIT_AS, limits.memory_mb * 2**20)),
            (resource.RLIMIT_FSIZE, _clamp(resource.RLIMIT_FSIZE, limits.file_size_mb * 2**20)),
            (resource.RLIMIT_NPROC, _clamp(resource.RLIMIT_NPROC, self._nproc(limits, uid))),
            (resource.RLIMIT_CORE, (0, 0)),
        ]
        hard_cpu = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if hard_cpu != resource.RLIM_INFINITY:
            rl[0] = (resource.RLIMIT_CPU, (min(limits.cpu_seconds, hard_cpu),) * 2)
        nnp = uid is not None and _prctl is not None

        def preexec() -> None:  # runs in the child, after the uid change
            for res, lim in rl:
                resource.setrlimit(res, lim)
            if nnp:
                _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)

        return preexec

    def _execute(self, argv: list[str], workdir: str, env: dict[str, str],
                 limits: Limits, uid: int | None) -> Outcome:
        cmd, popen_env, cwd, pass_fds = self._command(argv, workdir, env, limits, uid)
        cap = _Capture(limits.excerpt_bytes)
        extra: dict = {}
        if uid is not None:
            extra = dict(user=uid, group=uid, extra_groups=[])
        r, w = os.pipe()
        try:
            fcntl.fcntl(r, fcntl.F_SETPIPE_SZ, 2**20)
        except (OSError, AttributeError):
            pass
        before = {pid for pid, p in _scan_procs().items() if p.ppid == os.getpid()} \
            if uid is None else set()
        start = time.monotonic()
        deadline = start + limits.wall_seconds
        killed: str | None = None
        with _subreaper:
            try:
                try:
                    proc = subprocess.Popen(
                        cmd, stdin=subprocess.DEVNULL, stdout=w, stderr=w, env=popen_env,
                        cwd=cwd, start_new_session=True, close_fds=True, pass_fds=pass_fds,
                        preexec_fn=self._preexec(limits, uid), **extra)
                finally:
                    os.close(w)
                    for fd in pass_fds:
                        os.close(fd)
            except (OSError, subprocess.SubprocessError) as e:
                os.close(r)
                code = 127 if isinstance(e, FileNotFoundError) else 126
                msg = f"autofix sandbox: cannot execute {argv[0]!r}: {e}\n"
                return Outcome(code, msg, 0, time.monotonic() - start, None)
            try:
                killed = self._pump(proc, r, cap, limits, deadline)
                if killed is None:
                    # it has exited; reaped now, a scan of the uid shows only the rest
                    # (the pidfd wakes us a moment before /proc shows a zombie)
                    proc.wait()
            finally:
                # whatever happened (even an exception here), nothing outlives run()
                if uid is not None:   # a live main process is the uid's too: swept with the rest
                    _kill_uid(uid, uid, spare=proc.pid if proc.returncode is None else None)
                else:
                    _kill_tree(proc, before)
                proc.wait()
                self._drain(r, cap)
        returncode = None if killed else proc.returncode
        return Outcome(returncode, cap.text(), cap.total, time.monotonic() - start, killed)

    @staticmethod
    def _pump(proc: subprocess.Popen, r: int, cap: _Capture, limits: Limits,
              deadline: float) -> str | None:
        """Read output until the main process exits; the reason to kill, if any."""
        try:
            pidfd = os.pidfd_open(proc.pid)
        except (OSError, AttributeError):
            pidfd = None
        poller = select.poll()
        poller.register(r, select.POLLIN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return f"timed out after {limits.wall_seconds:g} s"
                wait = left if pidfd is not None else min(left, 0.02)
                exited = False
                for fd, _ev in poller.poll(math.ceil(wait * 1000)):
                    if fd == r:
                        data = os.read(r, _CHUNK)
                        if data:
                            cap.feed(data)
                        else:
                            poller.unregister(r)   # EOF: only the exit is left to wait for
                    else:
                        exited = True
                if cap.total > limits.output_bytes:
                    return f"output limit of {_size(limits.output_bytes)} exceeded"
                if exited or (pidfd is None and proc.poll() is not None):
                    return None
        finally:
            if pidfd is not None:
                os.close(pidfd)

    @staticmethod
    def _drain(r: int, cap: _Capture) -> None:
        """Read what is left in the pipe; every writer is dead by now."""
        os.set_blocking(r, False)
        end = time.monotonic() + 2.0
        try:
            while time.monotonic() < end:
                try:
                    data = os.read(r, _CHUNK)
                except BlockingIOError:
                    select.select([r], [], [], max(0.0, end - time.monotonic()))
                    continue
                if not data:
                    break
                cap.feed(data)
        finally:
            os.close(r)

    # -- detection
    def _probe(self) -> str | None:
        """None if a trivial command runs in this sandbox, else why not (one line)."""
        tmp = tempfile.mkdtemp(prefix="autofix-probe-")
        try:
            out = self.run(["true"], Path(tmp), {"PATH": "/usr/bin:/bin"}, Limits(wall_seconds=20))
        except Exception as e:   # noqa: BLE001 - any failure means "unusable"
            return f"{type(e).__name__}: {e}".splitlines()[0]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if out.returncode == 0:
            return None
        lines = [ln for ln in out.output.splitlines() if ln.strip()]
        why = out.killed or (lines[-1] if lines else f"exit status {out.returncode}")
        return why.strip()


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class _NoneSandbox(_Base):
    tier = "none"
    network_isolated = False

    def __init__(self, readable: tuple[Path, ...]):
        super().__init__(readable, None)
        self.limitations = ("no isolation: same uid as autofix, host network and filesystem; "
                            "only the environment, rlimits, output and time are limited")

    def describe(self) -> str:
        return "none (NO isolation: same uid, host network and filesystem; rlimits only)"


class _ProcessSandbox(_Base):
    tier = "process"
    network_isolated = False

    def __init__(self, readable: tuple[Path, ...], pool: tuple[int, ...] | None,
                 why_not_bwrap: str = ""):
        super().__init__(readable, pool)
        if pool is not None:
            lim = ("network NOT isolated; filesystem protected by permissions only "
                   "(world-readable files are readable)")
            if self._pool_note():
                lim += "; " + self._pool_note()
        else:
            lim = (f"autofix is not root: runs as the same uid ({os.getuid()}) with rlimits and "
                   "process-tree kill only; network and filesystem NOT isolated")
        if why_not_bwrap:
            lim += f"; bwrap unusable: {why_not_bwrap}"
        self.limitations = lim

    def describe(self) -> str:
        who = "a dedicated uid per run" if self.uid is not None else f"same uid {os.getuid()}"
        return f"process ({who}, rlimits; network NOT isolated)"


class _BwrapSandbox(_Base):
    tier = "bwrap"
    network_isolated = True

    def __init__(self, bwrap: str, readable: tuple[Path, ...], pool: tuple[int, ...] | None):
        super().__init__(readable, pool)
        self.bwrap = bwrap
        try:
            helptext = subprocess.run([bwrap, "--help"], capture_output=True, text=True,
                                      timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            helptext = ""
        self._disable_userns = "--disable-userns" in helptext
        self._has_size = "--size" in helptext          # bwrap >= 0.8
        self._has_perms = "--perms" in helptext        # bwrap >= 0.5
        self._env = "/usr/bin/env" if os.access("/usr/bin/env", os.X_OK) else None
        self._system, self._etc_copies = self._system_args()
        if pool is None:
            self.limitations = (f"autofix is not root: the sandbox is uid {os.getuid()} on the host "
                                "and RLIMIT_NPROC is shared with autofix's own processes")
        else:
            self.limitations = self._pool_note()

    def describe(self) -> str:
        who = "a dedicated uid per run" if self.uid is not None else f"host uid {os.getuid()}"
        return f"bwrap (no network, {who}, read-only system)"

    def _system_args(self) -> tuple[list[str], list[tuple[str, int]]]:
        """/usr, its links and the /etc allowlist, the same for every run: links
        as links, world-readable /etc files as copies (``--file``: no mount for
        bwrap to make, which is what its setup spends its time on), the rest
        (directories, files others may not read) bound."""
        args = ["--ro-bind", "/usr", "/usr"]
        for d in _SYSTEM_DIRS:
            if os.path.islink(d):
                args += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                args += ["--ro-bind", d, d]
        copies: list[tuple[str, int]] = []
        for name in _ETC_ALLOW:
            p = f"/etc/{name}"
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(st.st_mode):
                args += ["--symlink", os.readlink(p), p]
            elif stat.S_ISREG(st.st_mode) and st.st_mode & stat.S_IROTH:
                copies.append((p, _memfd_copy(p, st)))
            else:
                args += ["--ro-bind", p, p]
        return args, copies

    def _command(self, argv, workdir, env, limits, uid):
        u = SANDBOX_UID if uid is None else uid
        files = {
            "/etc/passwd": f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
                           f"{SANDBOX_NAME}:x:{u}:{u}:autofix sandbox:/tmp:/bin/sh\n"
                           "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
            "/etc/group": f"root:x:0:\n{SANDBOX_NAME}:x:{u}:\nnogroup:x:65534:\n",
            "/etc/hosts": "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n",
        }
        args = [self.bwrap, "--unshare-all", "--unshare-user"]
        if self._disable_userns:
            args.append("--disable-userns")
        args += ["--die-with-parent", "--new-session", "--uid", str(u), "--gid", str(u)]
        args += self._system
        perms = ["--perms", "0644"] if self._has_perms else []
        fds: list[int] = []
        for dest, text in files.items():
            rfd, wfd = os.pipe()
            os.write(wfd, text.encode())
            os.close(wfd)
            fds.append(rfd)
            args += [*perms, "--file", str(rfd), dest]
        for dest, memfd in self._etc_copies:
            # a file description of its own, so concurrent runs each read from 0
            fd = os.open(f"/proc/self/fd/{memfd}", os.O_RDONLY | os.O_CLOEXEC)
            fds.append(fd)
            args += [*perms, "--file", str(fd), dest]
        # writable tmpfs are RAM: bound them; the root and /dev are read-only
        size = ["--size", str(limits.memory_mb * 2**20)] if self._has_size else []
        args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
                 *size, "--tmpfs", "/dev/shm", *size, "--tmpfs", "/tmp"]
        # readable paths read-only and the workdir read-write, each at its host
        # path, shallow ones first so a deeper mount lands on top
        mounts: list[tuple[str, str, str]] = []
        for p in self.readable:
            lit, real = str(p), os.path.realpath(p)
            if not any(r != real and _within(real, r) for r in self._readable_real):
                mounts.append((real, "--ro-bind-try", real))   # (else shown by the outer bind)
            if lit != real:
                if os.path.islink(lit):
                    mounts.append((lit, "--symlink", os.readlink(lit)))
                else:
                    mounts.append((lit, "--ro-bind-try", real))
        mounts.append((workdir, "--bind", workdir))
        mounts.sort(key=lambda m: (m[0].count("/"), m[0]))
        for dest, op, src in mounts:
            args += [op, src, dest]
        args += ["--remount-ro", "/", "--chdir", workdir, "--clearenv"]
        for k, v in env.items():
            args += ["--setenv", k, v]
        args.append("--")
        if "PWD" not in env and "=" not in argv[0] and self._env:
            # bwrap always exports PWD; the command must get `env` exactly
            args += [self._env, "-u", "PWD", "--"]
        return args + argv, {}, "/", fds


_memfds: dict[tuple[str, int, int, int], int] = {}
_memfds_lock = threading.Lock()


def _memfd_copy(path: str, st: os.stat_result) -> int:
    """A memfd holding a copy of ``path``, made once per process and version of the file."""
    key = (path, st.st_ino, st.st_size, st.st_mtime_ns)
    with _memfds_lock:
        if key not in _memfds:
            fd = os.memfd_create(os.path.basename(path), os.MFD_CLOEXEC)
            with open(path, "rb") as src, open(fd, "wb", closefd=False) as dst:
                shutil.copyfileobj(src, dst)
            _memfds[key] = fd
        return _memfds[key]


def _account(uid: int) -> str | None:
    """Why ``uid`` is not dedicated to the sandbox ("uid 1000 belongs to 'alice'"), or None."""
    for lookup, what in ((pwd.getpwuid, "uid"), (grp.getgrgid, "gid")):
        try:
            name = lookup(uid)[0]
        except KeyError:
            continue
        if name != SANDBOX_NAME:
            return f"{what} {uid} belongs to {name!r}"
    return None


def _pick_pool(uid: int | None) -> tuple[int, ...]:
    if uid is not None:
        taken = _account(uid)
        if taken:
            raise ValueError(f"{taken}; the sandbox needs a dedicated one (pass uid=...)")
        return (uid,)
    pool = tuple(u for u in _POOL if _account(u) is None)
    if not pool:
        raise ValueError(f"every uid of {_POOL[-1]}-{_POOL[0]} belongs to an account; "
                         "pass a dedicated uid=...")
    return pool


def open_sandbox(requested: str = "auto", readable: Sequence[Path] = (), *,
                 uid: int | None = None) -> Sandbox:
    """Detect (once) and return a sandbox; keep the object.

    ``auto`` runs a trivial command in bwrap and uses it if that works, else
    the ``process`` tier.  ``bwrap`` / ``process`` force a tier (ValueError,
    one line, if it does not work).  ``none`` only when asked explicitly: it
    warns with :class:`SandboxWarning` via ``warnings.warn``.

    ``readable``: host paths the command needs read-only (e.g. the Python
    prefixes and the interpreter's directory).  ``uid``: the one dedicated uid
    to use when autofix is root, so runs of this sandbox take turns (default:
    the pool from ``SANDBOX_UID`` down, one uid per concurrent run).
    """
    if requested not in ("auto", "bwrap", "process", "none"):
        raise ValueError(f"unknown sandbox tier {requested!r} (auto, bwrap, process or none)")
    paths = _normalize_readable(readable)
    if requested == "none":
        warnings.warn("sandbox 'none': the tests run with autofix's own uid, network and "
                      "filesystem (only env, rlimits, output and time are limited)",
                      SandboxWarning, stacklevel=2)
        return _NoneSandbox(paths)
    dedicated = _pick_pool(uid) if os.geteuid() == 0 else None
    why_not = ""
    if requested in ("auto", "bwrap"):
        bw = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None)
        if bw:
            sb = _BwrapSandbox(bw, paths, dedicated)
            err = sb._probe()
            if err is None:
                return sb
            why_not = err
        else:
            why_not = "bwrap not found"
        if requested == "bwrap":
            raise ValueError(f"bwrap sandbox unusable: {why_not}")
    ps = _ProcessSandbox(paths, dedicated, why_not)
    err = ps._probe()
    if err is not None:
        raise ValueError(f"process sandbox unusable: {err}")
    return ps
