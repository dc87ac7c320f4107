"""Run an untrusted test command with limits: the sandbox of autofix.

autofix runs code a model wrote, and the repository's tests.  Both are
untrusted, so the test command runs in one of three tiers:

``bwrap``
    bubblewrap: new user, pid, network, ipc, uts and mount namespaces.  The
    sandbox sees a read-only system (/usr and the /lib, /bin, ... links, a
    short allowlist of /etc, a synthetic /etc/passwd, /etc/group and
    /etc/hosts), a private /proc, a minimal /dev, an empty /tmp, the
    ``readable`` paths read-only and the workdir read-write, each at its host
    path.  No network: only a loopback interface of its own.

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
*The uid.*  When autofix runs as root, every tier but ``none`` runs the
command as a dedicated uid/gid, 65533 (``SANDBOX_UID``), with no passwd
entry on the host (nothing is added to the host; inside bwrap a synthetic
passwd names it ``autofix-sandbox``).  ``open_sandbox`` refuses a uid that
belongs to a real account.  A dedicated uid is what makes RLIMIT_NPROC
meaningful (it counts per real uid) and what lets "kill everything of the
run" be exact: ``kill(-1, SIGKILL)`` sent *as that uid* reaches every
process the uid owns, in every pid namespace, in one atomic sweep of the
task list, so a process that called setsid() or double-forked cannot hide.
Runs are therefore serialized machine-wide with a ``flock`` on
/run/autofix-sandbox.lock (parallel callers wait; they never kill each
other's runs nor revert each other's grants).

*bwrap as root.*  When root runs bwrap with ``--unshare-user``, the
sandboxed process is still host uid 0: every root-owned file that is bound
in is its own (owner permission bits apply), and RLIMIT_NPROC never applies
to uid 0, so a fork bomb would be bounded by the wall clock only.  So root
does not run bwrap: autofix drops to the dedicated uid first (``user=`` in
Popen) and runs bwrap *unprivileged*; inside, the command sees itself as uid
65533 and on the host it *is* 65533.  If unprivileged user namespaces are
unavailable, the bwrap probe fails and ``auto`` falls back to ``process``.

*Access to the workdir and the readable paths* (root only; every change is
journaled in /run before it is made and a crashed run is undone by the next).  The workdir is
chowned to the sandbox uid for the run (entries on other filesystems and
files hard-linked from outside the workdir are left alone, so a local clone
that hardlinks .git/objects does not give the source repository away) and
chowned back afterwards, restoring any owner that differed.  The sandbox uid
must be able to walk to the workdir and to the readable paths (bwrap binds
them by path as that uid; the process tier opens them by path).  A directory
on that walk that others cannot search (e.g. /root, mode 700, above
/root/.pyenv) gets o+x for the run, and all of its other entries lose their
"other" bits for the run, so the grant opens exactly the needed path and
nothing beside it (/root/.gitconfig stays unreachable).  Root ignores mode
bits and other users could not get through that directory before, so
nobody else notices.  A readable tree that others cannot read gets o+rX
(it was declared readable).  Everything is restored after the run; a crash
mid-run leaves the safe half (siblings masked) behind.

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
bwrap adds ``--die-with-parent`` and a pid namespace: when its init dies
the kernel kills the whole namespace.  Nothing of the run outlives
``run()``.  With the process tier, what the run created at the top of /tmp,
/var/tmp and /dev/shm is deleted after the run too.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Protocol, Sequence

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


class _Proc:
    __slots__ = ("ppid", "state", "uids")

    def __init__(self, ppid: int, state: str, uids: tuple[int, ...]):
        self.ppid, self.state, self.uids = ppid, state, uids


def _scan_procs() -> dict[int, _Proc]:
    procs: dict[int, _Proc] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/status", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            data = os.read(fd, 2048)      # State, PPid and Uid are near the top
        except OSError:
            continue
        finally:
            os.close(fd)
        state, ppid, uids = "?", 0, ()
        for line in data.split(b"\n"):
            if line.startswith(b"State:"):
                state = line.split()[1].decode()
            elif line.startswith(b"PPid:"):
                ppid = int(line.split()[1])
            elif line.startswith(b"Uid:"):
                uids = tuple(int(x) for x in line.split()[1:5])
                break
        procs[int(name)] = _Proc(ppid, state, uids)
    return procs


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


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


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
    """Kill every process of ``uid`` and reap those that are our children.

    ``spare`` is the main child, left for Popen to reap.
    """
    me = os.getpid()
    deadline = time.monotonic() + _KILL_DEADLINE
    while True:
        procs = _scan_procs()
        mine = {pid: p for pid, p in procs.items() if uid in p.uids}
        for pid, p in mine.items():
            if p.ppid == me and pid != spare and not _alive(p):
                _reap(pid)
        if not any(_alive(p) for p in mine.values()):
            return
        _kill_as_uid(uid, gid)
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of uid {uid} survived SIGKILL for {_KILL_DEADLINE:g} s")
        time.sleep(0.002)


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
# giving the sandbox uid its workdir and its readable paths (root only)


def _ancestors(path: str) -> list[str]:
    out = []
    parent = os.path.dirname(path)
    while parent != path:
        out.append(parent)
        path, parent = parent, os.path.dirname(parent)
    return out[::-1]   # "/" first


class _Access:
    """chown the workdir to the sandbox uid and open the walk to it and to the
    readable paths; ``undo()`` restores all of it.

    Every change is written to a journal before it is made, so that a run
    whose autofix died is undone by the next run (``recover``).
    """

    def __init__(self, uid: int, gid: int, journal: str):
        self.uid, self.gid, self.journal = uid, gid, journal
        self.workdir: str | None = None
        self.owner = (0, 0)
        self.owners: dict[str, tuple[int, int]] = {}
        self.modes: list[tuple[str, int, int]] = []     # path, old mode, new mode

    def _save(self) -> None:
        state = {"uid": self.uid, "gid": self.gid, "workdir": self.workdir,
                 "owner": self.owner, "owners": self.owners, "modes": self.modes}
        tmp = self.journal + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(state, f)
        os.replace(tmp, self.journal)

    @classmethod
    def recover(cls, journal: str) -> None:
        try:
            with open(journal) as f:
                state = json.load(f)
        except FileNotFoundError:
            return
        except (OSError, ValueError):
            os.unlink(journal)
            return
        access = cls(state["uid"], state["gid"], journal)
        _kill_uid(access.uid, access.gid)
        access.workdir = state["workdir"]
        access.owner = tuple(state["owner"])
        access.owners = {k: tuple(v) for k, v in state["owners"].items()}
        access.modes = [tuple(m) for m in state["modes"]]
        if access.workdir is not None and not os.path.isdir(access.workdir):
            access.workdir = None
        access.undo()

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

    def give_workdir(self, workdir: str) -> None:
        st = os.lstat(workdir)
        self.workdir, self.owner = workdir, (st.st_uid, st.st_gid)
        entries = list(self._entries(workdir))
        links: dict[tuple[int, int], int] = {}
        for _, st in entries:
            if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                links[st.st_dev, st.st_ino] = links.get((st.st_dev, st.st_ino), 0) + 1
        todo = []
        for path, st in entries:
            if stat.S_ISREG(st.st_mode) and st.st_nlink > links.get((st.st_dev, st.st_ino), 1):
                continue   # hard-linked from outside: chowning it would give that file away
            if (st.st_uid, st.st_gid) == (self.uid, self.gid):
                continue
            if (st.st_uid, st.st_gid) != self.owner:
                self.owners[path] = (st.st_uid, st.st_gid)
            todo.append(path)
        self._save()
        for path in todo:
            os.lchown(path, self.uid, self.gid)

    # -- modes
    def open_paths(self, workdir: str, readable: Iterable[str]) -> None:
        readable = list(readable)
        targets = [workdir, *readable]
        needed: set[str] = set()
        for t in targets:
            needed.add(t)
            needed.update(_ancestors(t))
        plan: list[tuple[str, int, int]] = []
        done: set[str] = set()
        for t in targets:
            for a in _ancestors(t):
                if a in done:
                    continue
                done.add(a)
                st = os.stat(a)
                if st.st_uid == self.uid or st.st_mode & stat.S_IXOTH:
                    continue
                # open `a` for search by others, after closing every entry of it
                # that is not on a needed path, so nothing else becomes reachable
                for entry in os.scandir(a):
                    if entry.path in needed or entry.is_symlink():
                        continue
                    mode = stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode)
                    if mode & 0o007:
                        plan.append((entry.path, mode, mode & ~0o007))
                mode = stat.S_IMODE(st.st_mode)
                plan.append((a, mode, mode | stat.S_IXOTH))
        for r in readable:
            plan.extend(self._open_tree(r))
        if not plan:
            return
        self.modes.extend(plan)
        self._save()
        for path, _old, new in plan:
            os.chmod(path, new)

    @staticmethod
    def _open_tree(root: str) -> list[tuple[str, int, int]]:
        """o+rX on a readable tree that others cannot read (it was declared readable)."""
        def grant(st: os.stat_result) -> int:
            mode = stat.S_IMODE(st.st_mode)
            add = stat.S_IROTH
            if stat.S_ISDIR(st.st_mode) or mode & 0o111:
                add |= stat.S_IXOTH
            return mode | add

        st = os.stat(root)
        want = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(st.st_mode) else 0)
        if st.st_mode & want == want:
            return []   # meant to be world-readable: trust its inside
        plan = [(root, stat.S_IMODE(st.st_mode), grant(st))]
        if stat.S_ISDIR(st.st_mode):
            for dirpath, dirnames, filenames in os.walk(root):
                for name in dirnames + filenames:
                    p = os.path.join(dirpath, name)
                    est = os.lstat(p)
                    if not stat.S_ISLNK(est.st_mode) and grant(est) != stat.S_IMODE(est.st_mode):
                        plan.append((p, stat.S_IMODE(est.st_mode), grant(est)))
        return plan

    def undo(self) -> None:
        errors = []
        if self.workdir is not None:
            try:
                for path, st in self._entries(self.workdir):
                    if st.st_uid == self.uid or st.st_gid == self.gid:
                        os.lchown(path, *self.owners.get(path, self.owner))
            except OSError as e:
                errors.append(e)
        for path, old, new in reversed(self.modes):
            try:
                if stat.S_IMODE(os.lstat(path).st_mode) == new:
                    os.chmod(path, old)
            except FileNotFoundError:
                pass
            except OSError as e:
                errors.append(e)
        if errors:
            raise errors[0]
        self.workdir = None
        self.modes.clear()
        try:
            os.unlink(self.journal)
        except FileNotFoundError:
            pass


_SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm")


def _shared_tmp_entries() -> set[str]:
    out: set[str] = set()
    for d in _SHARED_TMP:
        try:
            out.update(e.path for e in os.scandir(d))
        except OSError:
            pass
    return out


def _clean_shared_tmp(uid: int, before: set[str]) -> None:
    """Delete what the run's uid created at the top of the shared temp dirs."""
    for path in _shared_tmp_entries() - before:
        try:
            st = os.lstat(path)
            if st.st_uid != uid:
                continue
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(path, ignore_errors=True)   # fd-based: safe against symlinks
            else:
                os.unlink(path)
        except OSError:
            pass


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

    def __init__(self, readable: tuple[Path, ...], uid: int | None):
        self.readable = readable
        self.uid = uid                        # dedicated uid, or None (runs as autofix's uid)
        self.gid = uid
        self.limitations = ""
        # realpaths of the readable paths, for access grants
        self._readable_real = sorted({os.path.realpath(p) for p in readable})

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"

    def describe(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    # -- hooks
    def _command(self, argv: list[str], workdir: str, env: dict[str, str], limits: Limits
                 ) -> tuple[list[str], dict[str, str], str, list[int]]:
        return argv, env, workdir, []

    def _nproc(self, limits: Limits) -> int:
        if self.uid is not None:
            return limits.processes
        # a shared uid: allow what it already runs, plus the run's share
        me = os.getuid()
        return sum(1 for p in _scan_procs().values() if p.uids[:1] == (me,)) + limits.processes

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
        if self.uid is None:
            with _unshared_lock:
                return self._execute(argv, wd, env, limits)
        self._check_workdir(wd)
        lock = _machine_lock()
        with lock:
            journal = lock.path + ".journal"
            _Access.recover(journal)           # what a crashed autofix left...
            _kill_uid(self.uid, self.gid)      # ...and leftovers of our uid
            access = _Access(self.uid, self.gid, journal)
            tmp_before = _shared_tmp_entries() if self.tier == "process" else None
            try:
                access.give_workdir(wd)
                access.open_paths(wd, self._readable_real)
                outcome = self._execute(argv, wd, env, limits)
            finally:
                access.undo()
            if tmp_before is not None:
                _clean_shared_tmp(self.uid, tmp_before)
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

    def _preexec(self, limits: Limits):
        rl = [
            (resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1)),
            (resource.RLIMIT_AS, _clamp(resource.RLIMIT_AS, limits.memory_mb * 2**20)),
            (resource.RLIMIT_FSIZE, _clamp(resource.RLIMIT_FSIZE, limits.file_size_mb * 2**20)),
            (resource.RLIMIT_NPROC, _clamp(resource.RLIMIT_NPROC, self._nproc(limits))),
            (resource.RLIMIT_CORE, (0, 0)),
        ]
        hard_cpu = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if hard_cpu != resource.RLIM_INFINITY:
            rl[0] = (resource.RLIMIT_CPU, (min(limits.cpu_seconds, hard_cpu),) * 2)
        nnp = self.uid is not None and _prctl is not None

        def preexec() -> None:  # runs in the child, after the uid change
            for res, lim in rl:
                resource.setrlimit(res, lim)
            if nnp:
                _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)

        return preexec

    def _execute(self, argv: list[str], workdir: str, env: dict[str, str],
                 limits: Limits) -> Outcome:
        cmd, popen_env, cwd, pass_fds = self._command(argv, workdir, env, limits)
        cap = _Capture(limits.excerpt_bytes)
        extra: dict = {}
        if self.uid is not None:
            extra = dict(user=self.uid, group=self.gid, extra_groups=[])
        r, w = os.pipe()
        try:
            fcntl.fcntl(r, fcntl.F_SETPIPE_SZ, 2**20)
        except (OSError, AttributeError):
            pass
        before = {pid for pid, p in _scan_procs().items() if p.ppid == os.getpid()} \
            if self.uid is None else set()
        start = time.monotonic()
        deadline = start + limits.wall_seconds
        killed: str | None = None
        with _subreaper:
            try:
                try:
                    proc = subprocess.Popen(
                        cmd, stdin=subprocess.DEVNULL, stdout=w, stderr=w, env=popen_env,
                        cwd=cwd, start_new_session=True, close_fds=True, pass_fds=pass_fds,
                        preexec_fn=self._preexec(limits), **extra)
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
            finally:
                # whatever happened (even an exception here), nothing outlives run()
                if self.uid is not None:
                    _kill_uid(self.uid, self.gid, spare=proc.pid)
                    if proc.returncode is None:
                        try:
                            os.killpg(proc.pid, signal.SIGKILL)   # should already be dead
                        except (ProcessLookupError, PermissionError):
                            pass
                else:
                    _kill_tree(proc, before)
                proc.wait()
                if self.uid is not None:
                    _kill_uid(self.uid, self.gid)
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


def _machine_lock() -> "_FileLock":
    # one lock for every dedicated uid: runs share the grants on common
    # ancestors (/root), so a run must not revert them under another one
    lockdir = "/run" if os.access("/run", os.W_OK) else tempfile.gettempdir()
    return _FileLock(os.path.join(lockdir, "autofix-sandbox.lock"))


class _FileLock:
    def __init__(self, path: str):
        self.path = path
        self.fd = -1

    def __enter__(self) -> None:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)   # releases the lock
        self.fd = -1


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

    def __init__(self, readable: tuple[Path, ...], uid: int | None, why_not_bwrap: str = ""):
        super().__init__(readable, uid)
        if uid is not None:
            lim = ("network NOT isolated; filesystem protected by permissions only "
                   "(world-readable files are readable)")
        else:
            lim = (f"autofix is not root: runs as the same uid ({os.getuid()}) with rlimits and "
                   "process-tree kill only; network and filesystem NOT isolated")
        if why_not_bwrap:
            lim += f"; bwrap unusable: {why_not_bwrap}"
        self.limitations = lim

    def describe(self) -> str:
        who = f"uid {self.uid}" if self.uid is not None else f"same uid {os.getuid()}"
        return f"process ({who}, rlimits; network NOT isolated)"


class _BwrapSandbox(_Base):
    tier = "bwrap"
    network_isolated = True

    def __init__(self, bwrap: str, readable: tuple[Path, ...], uid: int | None):
        super().__init__(readable, uid)
        self.bwrap = bwrap
        self.inner_uid = uid if uid is not None else SANDBOX_UID
        try:
            helptext = subprocess.run([bwrap, "--help"], capture_output=True, text=True,
                                      timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            helptext = ""
        self._disable_userns = "--disable-userns" in helptext
        self._has_size = "--size" in helptext          # bwrap >= 0.8
        self._has_perms = "--perms" in helptext        # bwrap >= 0.5
        self._env = "/usr/bin/env" if os.access("/usr/bin/env", os.X_OK) else None
        if uid is None:
            self.limitations = (f"autofix is not root: the sandbox is uid {os.getuid()} on the host "
                                "and RLIMIT_NPROC is shared with autofix's own processes")

    def describe(self) -> str:
        who = f"uid {self.uid}" if self.uid is not None else f"host uid {os.getuid()}"
        return f"bwrap (no network, {who}, read-only system)"

    def _system_args(self) -> list[str]:
        args = ["--ro-bind", "/usr", "/usr"]
        for d in _SYSTEM_DIRS:
            if os.path.islink(d):
                args += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                args += ["--ro-bind", d, d]
        for name in _ETC_ALLOW:
            p = f"/etc/{name}"
            if os.path.exists(p):
                args += ["--ro-bind", p, p]
        return args

    def _command(self, argv, workdir, env, limits):
        u = self.inner_uid
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
        args += self._system_args()
        fds: list[int] = []
        for dest, text in files.items():
            rfd, wfd = os.pipe()
            os.write(wfd, text.encode())
            os.close(wfd)
            fds.append(rfd)
            if self._has_perms:
                args += ["--perms", "0644"]
            args += ["--ro-bind-data", str(rfd), dest]
        # writable tmpfs are RAM: bound them; the root and /dev are read-only
        size = ["--size", str(limits.memory_mb * 2**20)] if self._has_size else []
        args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
                 *size, "--tmpfs", "/dev/shm", *size, "--tmpfs", "/tmp"]
        # readable paths read-only and the workdir read-write, each at its host
        # path, shallow ones first so a deeper mount lands on top
        mounts: list[tuple[str, str, str]] = []
        for p in self.readable:
            lit, real = str(p), os.path.realpath(p)
            mounts.append((real, "--ro-bind-try", real))
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


def _pick_uid(uid: int | None) -> int:
    uid = SANDBOX_UID if uid is None else uid
    for lookup, what in ((pwd.getpwuid, "uid"), (grp.getgrgid, "gid")):
        try:
            name = lookup(uid)[0]
        except KeyError:
            continue
        if name != SANDBOX_NAME:
            raise ValueError(f"{what} {uid} belongs to {name!r}; the sandbox needs a dedicated one "
                             f"(pass uid=...)")
    return uid


def open_sandbox(requested: str = "auto", readable: Sequence[Path] = (), *,
                 uid: int | None = None) -> Sandbox:
    """Detect (once) and return a sandbox; keep the object.

    ``auto`` runs a trivial command in bwrap and uses it if that works, else
    the ``process`` tier.  ``bwrap`` / ``process`` force a tier (ValueError,
    one line, if it does not work).  ``none`` only when asked explicitly: it
    warns with :class:`SandboxWarning` via ``warnings.warn``.

    ``readable``: host paths the command needs read-only (e.g. the Python
    prefixes and the interpreter's directory).  ``uid``: the dedicated uid to
    use when autofix is root (default ``SANDBOX_UID``).
    """
    if requested not in ("auto", "bwrap", "process", "none"):
        raise ValueError(f"unknown sandbox tier {requested!r} (auto, bwrap, process or none)")
    paths = _normalize_readable(readable)
    if requested == "none":
        warnings.warn("sandbox 'none': the tests run with autofix's own uid, network and "
                      "filesystem (only env, rlimits, output and time are limited)",
                      SandboxWarning, stacklevel=2)
        return _NoneSandbox(paths)
    dedicated = _pick_uid(uid) if os.geteuid() == 0 else None
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
