"""Run an untrusted test command with limits: the sandbox of autofix.

This module holds the tiers (``bwrap``, ``process``, ``none``) and their API; procs.py finds,
kills and reaps a run's processes, limits them as a whole (a cgroup), meters the disk they fill
and captures their output; state.py keeps what a run borrows from the host (its uid, its workdir,
path grants) journaled so a crash is undone, and removes what the uid left in shared places.

The design (the uids, bwrap as root, access to the workdir, killing, leftovers, whole-run limits,
descriptors) is in docs/ARCHITECTURE.md, "The sandbox"."""

from __future__ import annotations

import fcntl
import grp
import math
import os
import pwd
import resource
import select
import shutil
import stat
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bot.errors import UserError
from bot.safefs import remove_tree, walk
from bot.sandbox import SANDBOXES, landlock
from bot.sandbox.procs import (
    CHUNK,
    PR_SET_NO_NEW_PRIVS,
    Capture,
    DiskUse,
    RunCgroup,
    cgroup_parent,
    kill_tree,
    kill_uid,
    pids_of,
    prctl,
    scan_procs,
    size,
    subreaper,
    unshared_lock,
)
from bot.sandbox.state import SHARED_TMP, Slot, Workdir, clean_shared, grants, mqueue_dir

__all__ = [
    "Kept",
    "Limits",
    "Outcome",
    "Sandbox",
    "SandboxWarning",
    "SANDBOX_UID",
    "allowed_environ",
    "keep_workdir",
    "kept_workdir",
    "open_sandbox",
    "within",
]

SANDBOX_UID = 65533
SANDBOX_NAME = "autofix-sandbox"
_POOL = tuple(range(SANDBOX_UID, SANDBOX_UID - 32, -1))  # 65533 .. 65502, first choice first

_ENV_FROM_HOST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")

# /etc entries the bwrap sandbox sees (read-only, when they exist).  No
# shadow, ssh, sudoers, pip.conf, gitconfig, machine-id, ...
_ETC_ALLOW = (
    "alternatives",
    "ca-certificates",
    "ca-certificates.conf",
    "crypto-policies",
    "debian_version",
    "gai.conf",
    "host.conf",
    "inputrc",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "locale.alias",
    "locale.conf",
    "localtime",
    "lsb-release",
    "magic",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "pki",
    "protocols",
    "services",
    "ssl",
    "terminfo",
    "timezone",
)
_SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_DISK_POLL = 0.25  # seconds between looks at how much disk the run filled


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 60  # whole run, then every process of the run is killed
    cpu_seconds: int = 300  # RLIMIT_CPU per process
    memory_mb: int = 4096  # RLIMIT_AS per process; with a cgroup, the whole run too
    processes: int = 256  # RLIMIT_NPROC (meaningful where the uid is dedicated), cgroup
    file_size_mb: int = 256  # RLIMIT_FSIZE
    disk_mb: int = 1024  # growth of the used disk during the run, then it is killed
    output_bytes: int = 16 * 2**20  # total stdout+stderr before the run is killed
    excerpt_bytes: int = 64 * 1024  # how much of the output is kept in Outcome.output


@dataclass
class Outcome:
    returncode: int | None  # None when autofix killed the run
    output: str  # merged stdout+stderr (head, "[... N bytes cut ...]", tail)
    output_bytes: int  # total bytes the run wrote
    seconds: float
    killed: str | None  # why autofix killed it, one line; None otherwise


@dataclass(frozen=True)
class Kept:
    """A workdir that outlives its runs, during one judgement: a judge's scratch copy
    (bot/judge/scratch.py).

    `slot`: the uid leased for the judgement (Sandbox.lease): its runs take it rather than claim
    one. None: the runs take autofix's own uid. The workdir's insides are autofix's and readable
    by others: a run given `writable` is lent the top read-only and those paths alone
    (Workdir.give), so ownership keeps the rest read-only on every tier, beside bwrap's bind and
    Landlock's ruleset; a run without is lent the whole tree, and hands it back. `shared`: real
    paths of trees the workdir links to instead of holding copies; every run sees them read-only
    (`Sandbox.cannot_share` says where that can't be kept). `origin`: the folder it copies."""

    slot: Slot | None
    shared: tuple[str, ...] = ()
    origin: str = ""  # the folder the workdir is a copy of


# Kept workdirs by real path: every run in one is a run in a kept workdir, whoever starts it
# (the test command, inline checks, a target's own check).
_kept: dict[str, Kept] = {}


def keep_workdir(workdir: Path, kept: Kept | None) -> None:
    """Runs in `workdir` go as `kept` says from now on; None: as in any workdir again."""
    real = os.path.realpath(workdir)
    if kept is None:
        _kept.pop(real, None)
    else:
        _kept[real] = kept


def kept_workdir(workdir: Path) -> Kept | None:
    return _kept.get(os.path.realpath(workdir))


class Sandbox(Protocol):
    tier: str  # "bwrap" | "landlock" | "process" | "none"
    network_isolated: bool
    limitations: str  # one line, "" when there is nothing to add to describe()
    declined: str  # why `auto` didn't take the stronger tiers ("bwrap: ...; landlock: ..."), or ""
    readable: tuple[Path, ...]

    def run(
        self,
        argv: Sequence[str],
        workdir: Path,
        env: Mapping[str, str],
        limits: Limits,
        *,
        pass_fds: Sequence[int] = (),
        writable: Sequence[str] | None = None,
    ) -> Outcome: ...

    def describe(self) -> str: ...

    def lease(self, prefer: int | None) -> AbstractContextManager[Slot | None]:
        """A uid of the pool (`prefer` when it is free) held for the runs of one kept workdir
        (Kept.slot); None when runs take autofix's own uid."""
        ...

    def cannot_share(self, tree: str) -> str | None:
        """Why the runs couldn't be kept from changing `tree` (a real path) if a workdir linked
        to it (one line), or None: then it may be shared instead of copied (Kept.shared)."""
        ...


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
# the sandboxes


def _normalize_readable(readable: Iterable[os.PathLike | str]) -> tuple[Path, ...]:
    """The paths a run may read, never a shared temp folder or one holding it (`/tmp` itself is on
    sys.path when autofix is started from a script there, `/` from one at the root): shown to
    the run, its bind would cover the run's own empty /tmp with the host's, everything another
    process left there included, read-only, so the run could neither write a temp file nor be
    kept from reading one. Paths inside them (a virtualenv in /tmp) are shown as any other."""
    out: list[Path] = []
    for p in readable:
        p = Path(os.path.abspath(os.fspath(p)))
        if any(within(shared, os.path.realpath(p)) for shared in SHARED_TMP):
            continue
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
    _shared_disks = SHARED_TMP  # where the run may fill the host's disk, beside its workdir
    _shares_host = False  # runs share the host's temp dirs and IPC: what the uid left is removed after
    _walls = False  # a bind or a ruleset keeps the workdir read-only, whoever owns its insides

    def __init__(self, readable: tuple[Path, ...], pool: tuple[int, ...] | None):
        self.readable = readable
        self.pool = pool  # the dedicated uids, or None (runs as autofix's uid)
        self.uid = pool[0] if pool else None  # the one a run takes when no other run is going
        self.limitations = ""
        self.declined = ""
        # realpaths of the readable paths, for access grants
        self._readable_real = sorted({os.path.realpath(p) for p in readable})
        # whole-run memory and process limits, where autofix can make cgroups
        self._cgroups, self._why_no_cgroup = cgroup_parent() if pool else (None, "")
        self._no_mqueue = False  # RLIMIT_MSGQUEUE 0: no queue it could not clean

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"

    def describe(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def cannot_share(self, tree: str) -> str | None:  # pragma: no cover - overridden
        raise NotImplementedError

    @contextmanager
    def lease(self, prefer: int | None) -> Iterator[Slot | None]:
        if self.pool is None:
            yield None
            return
        with Slot.claim(self.pool, prefer) as slot:
            yield slot

    def _pool_note(self) -> str:
        if self.pool is None or len(self.pool) == 1:
            return ""
        return f"concurrent runs take the next free uid down to {self.pool[-1]}"

    def _cgroup_note(self) -> str:
        if self.pool is None or self._cgroups:
            return ""
        return f"memory is limited per process, not per run (no cgroup: {self._why_no_cgroup})"

    # -- hooks
    def _command(
        self,
        argv: list[str],
        workdir: str,
        env: dict[str, str],
        limits: Limits,
        uid: int | None,
        shared: tuple[str, ...],
        writable: tuple[str, ...] | None,
    ) -> tuple[list[str], dict[str, str], str, list[int]]:
        return argv, env, workdir, []

    def _nproc(self, limits: Limits, uid: int | None) -> int:
        if uid is not None:
            return limits.processes
        # a shared uid: allow what it already runs, plus the run's share
        return len(pids_of(os.getuid())) + limits.processes

    # -- run
    def run(
        self,
        argv: Sequence[str],
        workdir: Path,
        env: Mapping[str, str],
        limits: Limits,
        *,
        pass_fds: Sequence[int] = (),
        writable: Sequence[str] | None = None,
    ) -> Outcome:
        """Run ``argv`` in ``workdir``; ``pass_fds`` are inherited by the command at the
        same numbers (on every tier), and no other descriptor of autofix is. A kept workdir
        (keep_workdir) is lent as Kept says.

        ``writable``: None, the workdir is the run's to change. A sequence of real paths inside
        it (files or folders; those that don't exist are left out, since the run can't make
        them): the run may change those alone (and its TMPDIR, HOME and /dev/shm), the rest of
        the workdir, its top included, is read-only to it (`_lend_only`): bwrap binds it
        read-only, Landlock grants it reading, and in a kept workdir ownership keeps it so on
        every tier (Kept). The process tier refuses it in a workdir that isn't kept; the `none`
        tier, and the process tier when autofix isn't root, keep nothing read-only."""
        argv = [os.fspath(a) for a in argv]
        if not argv:
            raise ValueError("empty argv")
        pass_fds = tuple(pass_fds)
        if any(not isinstance(fd, int) or fd < 3 for fd in pass_fds):
            raise ValueError(f"pass_fds must be descriptors above 2, not {pass_fds}")
        wd = os.path.realpath(os.fspath(workdir))
        if not os.path.isdir(wd):
            raise ValueError(f"workdir {wd} is not a directory")
        env = {str(k): str(v) for k, v in env.items()}
        lent = None if writable is None else _lend_only(wd, writable)
        kept = _kept.get(wd)
        leased, shared = (kept.slot, kept.shared) if kept else (None, ())
        if self.pool is None:
            with unshared_lock:
                return self._execute(argv, wd, env, limits, None, pass_fds, shared, lent)
        self._check_workdir(wd)
        if lent is not None and kept is None and not self._walls:
            raise ValueError(f"the {self.tier} tier keeps a workdir read-only only when it is kept (keep_workdir)")
        readable = [*self._readable_real, *shared]
        if leased is not None and os.path.exists(leased.journal) and not Workdir.recover(leased.uid, leased.journal):
            raise RuntimeError(f"processes of sandbox uid {leased.uid} survived SIGKILL")  # left by a run of the lease
        claimed: AbstractContextManager[Slot] = nullcontext(leased) if leased else Slot.claim(self.pool)
        with claimed as slot:
            work = Workdir(slot.uid, slot.journal)
            dirty = False
            # the workdir is handed back before the grants are: so the grants of the runs
            # still going close it (a sibling of their paths) with its own mode back
            with grants().held(slot.uid, [wd, *readable], readable):
                try:
                    # a workdir that isn't kept is lent whole: its insides aren't autofix's to
                    # make readable, and the bind or the ruleset keeps it read-only
                    work.give(wd, self.pool, lent if kept is not None else None)
                    dirty = True  # from here processes of the uid may exist
                    outcome = self._execute(argv, wd, env, limits, slot.uid, pass_fds, shared, lent)
                    dirty = False  # _execute returned: none is left
                finally:
                    work.undo(dirty)
                    if self._shares_host:  # after undo: the workdir may be in /tmp
                        clean_shared(slot.uid)
            return outcome

    def _check_workdir(self, wd: str) -> None:
        # the workdir is chowned to the sandbox uid for the run: never a
        # top-level directory, and never one holding a readable path (the
        # interpreter autofix itself runs must stay out of the sandbox's reach)
        if wd.count("/") < 2:
            raise ValueError(f"refusing to hand {wd} to the sandbox uid: use a dedicated directory")
        for r in self._readable_real:
            if within(r, wd):
                raise ValueError(f"workdir {wd} contains readable path {r}, which must stay read-only")

    def _confinement(
        self, workdir: str, env: Mapping[str, str], shared: tuple[str, ...], writable: tuple[str, ...] | None
    ) -> landlock.Confinement | None:
        return None  # the landlock tier's: what the run may read and write, built before the fork

    def _preexec(
        self, limits: Limits, uid: int | None, cgroup: RunCgroup | None, confined: landlock.Confinement | None = None
    ):
        rlimits = [
            (resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1)),
            (resource.RLIMIT_AS, _clamp(resource.RLIMIT_AS, limits.memory_mb * 2**20)),
            (resource.RLIMIT_FSIZE, _clamp(resource.RLIMIT_FSIZE, limits.file_size_mb * 2**20)),
            (resource.RLIMIT_NPROC, _clamp(resource.RLIMIT_NPROC, self._nproc(limits, uid))),
            (resource.RLIMIT_CORE, (0, 0)),
        ]
        hard_cpu = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if hard_cpu != resource.RLIM_INFINITY:
            rlimits[0] = (resource.RLIMIT_CPU, (min(limits.cpu_seconds, hard_cpu),) * 2)
        if uid is not None and self._no_mqueue:
            rlimits.append((resource.RLIMIT_MSGQUEUE, (0, 0)))
        # NO_NEW_PRIVS for a run under a uid of its own, and for any confined run (Landlock and
        # seccomp require it)
        no_new_privs = prctl if uid is not None or confined is not None else None

        def preexec() -> None:  # runs in the child, before exec
            if cgroup is not None:
                cgroup.join()  # while still root: the cgroup's files are root's
            if uid is not None:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
            # after the uid change: before it, a low RLIMIT_NPROC would fail the exec itself
            # when the uid already runs that many processes
            for rlimit, bounds in rlimits:
                resource.setrlimit(rlimit, bounds)
            if no_new_privs is not None:
                no_new_privs(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
            if confined is not None:
                confined.apply()

        return preexec

    def _execute(
        self,
        argv: list[str],
        workdir: str,
        env: dict[str, str],
        limits: Limits,
        uid: int | None,
        pass_fds: tuple[int, ...],
        shared: tuple[str, ...],
        writable: tuple[str, ...] | None,
    ) -> Outcome:
        cgroup = None
        if uid is not None and self._cgroups:
            cgroup = RunCgroup(self._cgroups, RunCgroup.name(uid), limits.memory_mb * 2**20, limits.processes)
        cmd, popen_env, cwd, own_fds = self._command(argv, workdir, env, limits, uid, shared, writable)
        try:
            confined = self._confinement(workdir, popen_env, shared, writable)
        except OSError as exc:
            for fd in own_fds:
                os.close(fd)
            return Outcome(126, f"autofix sandbox: cannot confine the run: {exc}\n", 0, 0.0, None)
        cap = Capture(limits.excerpt_bytes)
        r, w = os.pipe()
        try:
            fcntl.fcntl(r, fcntl.F_SETPIPE_SZ, 2**20)
        except (OSError, AttributeError):
            pass
        before = {pid for pid, p in scan_procs().items() if p.ppid == os.getpid()} if uid is None else set()
        disk = DiskUse([workdir, *self._shared_disks])
        start = time.monotonic()
        deadline = start + limits.wall_seconds
        killed: str | None = None
        with subreaper:
            try:
                try:
                    proc = subprocess.Popen(
                        cmd,
                        stdin=subprocess.DEVNULL,
                        stdout=w,
                        stderr=w,
                        env=popen_env,
                        cwd=cwd,
                        start_new_session=True,
                        close_fds=True,
                        pass_fds=(*own_fds, *pass_fds),
                        preexec_fn=self._preexec(limits, uid, cgroup, confined),
                    )
                finally:
                    if confined is not None:
                        confined.close()
                    os.close(w)
                    for fd in own_fds:
                        os.close(fd)
            except (OSError, subprocess.SubprocessError) as e:
                os.close(r)
                if cgroup is not None:
                    cgroup.remove()  # the child failed before exec and is reaped
                code = 127 if isinstance(e, FileNotFoundError) else 126
                msg = f"autofix sandbox: cannot execute {argv[0]!r}: {e}\n"
                return Outcome(code, msg, 0, time.monotonic() - start, None)
            try:
                killed = self._pump(proc, r, cap, limits, deadline, disk)
                if killed is None:
                    # it has exited; reaped now, a scan of the uid shows only the rest
                    # (the pidfd wakes us a moment before /proc shows a zombie)
                    proc.wait()
            finally:
                # whatever happened (even an exception here), nothing outlives run()
                if uid is not None:  # a live main process is the uid's too: swept with the rest
                    kill_uid(uid, uid, spare=proc.pid if proc.returncode is None else None)
                else:
                    kill_tree(proc, before)
                proc.wait()
                self._drain(r, cap)
                if cgroup is not None:
                    cgroup.remove()
        returncode = None if killed else proc.returncode
        return Outcome(returncode, cap.text(), cap.total, time.monotonic() - start, killed)

    @staticmethod
    def _pump(
        proc: subprocess.Popen, r: int, cap: Capture, limits: Limits, deadline: float, disk: DiskUse
    ) -> str | None:
        """Read output until the main process exits; the reason to kill, if any."""
        try:
            pidfd = os.pidfd_open(proc.pid)
        except (OSError, AttributeError):
            pidfd = None
        poller = select.poll()
        poller.register(r, select.POLLIN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        disk_limit = limits.disk_mb * 2**20
        look_at_disk = time.monotonic() + _DISK_POLL
        try:
            while True:
                now = time.monotonic()
                left = deadline - now
                if left <= 0:
                    return f"timed out after {limits.wall_seconds:g} s"
                wait = min(left, max(0.0, look_at_disk - now))
                if pidfd is None:
                    wait = min(wait, 0.02)  # no pidfd to wake us at the exit: look
                exited = False
                for fd, _ev in poller.poll(math.ceil(wait * 1000)):
                    if fd == r:
                        data = os.read(r, CHUNK)
                        if data:
                            cap.feed(data)
                        else:
                            poller.unregister(r)  # EOF: only the exit is left to wait for
                    else:
                        exited = True
                if cap.total > limits.output_bytes:
                    return f"output limit of {size(limits.output_bytes)} exceeded"
                exited = exited or (pidfd is None and proc.poll() is not None)
                # a few times a second, and once more at the exit (a quick writer is not missed)
                if exited or time.monotonic() >= look_at_disk:
                    if disk.grown() > disk_limit:
                        return f"wrote more than {size(disk_limit)} to disk"
                    look_at_disk = time.monotonic() + _DISK_POLL
                if exited:
                    return None
        finally:
            if pidfd is not None:
                os.close(pidfd)

    @staticmethod
    def _drain(r: int, cap: Capture) -> None:
        """Read what is left in the pipe; every writer is dead by now."""
        os.set_blocking(r, False)
        end = time.monotonic() + 2.0
        try:
            while time.monotonic() < end:
                try:
                    data = os.read(r, CHUNK)
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
        if self.pool is not None and _setgroups_denied():
            # A run drops autofix's groups before its uid: the child would fail with nothing but
            # "Exception occurred in preexec_fn".
            return SETGROUPS_DENIED
        tmp = tempfile.mkdtemp(prefix="autofix-probe-")
        try:
            out = self.run(["true"], Path(tmp), {"PATH": "/usr/bin:/bin"}, Limits(wall_seconds=20))
        except Exception as e:  # noqa: BLE001 - any failure means "unusable"
            return f"{type(e).__name__}: {e}".splitlines()[0]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if out.returncode == 0:
            return None
        lines = [ln for ln in out.output.splitlines() if ln.strip()]
        why = out.killed or (lines[-1] if lines else f"exit status {out.returncode}")
        return why.strip()


SETGROUPS_DENIED = (
    "a run can't drop autofix's groups: setgroups is denied in this user namespace (/proc/self/setgroups)"
)


def _setgroups_denied() -> bool:
    try:
        with open("/proc/self/setgroups", encoding="ascii") as file:
            return file.read().strip() == "deny"
    except OSError:  # no /proc, or a kernel before user namespaces could deny it
        return False


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _lend_only(workdir: str, writable: Sequence[str]) -> tuple[str, ...]:
    """The paths of `writable` a run may change, outermost only (one inside another adds
    nothing), those that exist; ValueError for one that isn't a real path strictly inside
    `workdir`: a link on the way could lend what lies elsewhere."""
    paths: set[str] = set()
    for path in writable:
        path = os.fspath(path)
        if os.path.realpath(path) != path or not within(path, workdir) or path == workdir:
            raise ValueError(f"writable path {path!r} is not a real path inside the workdir {workdir}")
        if os.path.lexists(path):
            paths.add(path)
    return tuple(sorted(p for p in paths if not any(o != p and within(p, o) for o in paths)))


def _writable_to(tree: str, uids: Sequence[int]) -> str | None:
    """Why one of `uids` could change `tree` (one line: a path of it, or a folder above it whose
    entries they could rename, that they may write), or None. A group-writable entry counts when
    its group is one of them or an ACL may name them; a sticky folder above the tree lets nobody
    rename what isn't theirs."""
    why = "is writable by the sandbox's uids"

    def open_to(info: os.stat_result, path: str) -> bool:
        if stat.S_ISLNK(info.st_mode):
            return False  # a link's own mode means nothing
        if info.st_uid in uids or info.st_mode & stat.S_IWOTH:
            return True
        return bool(info.st_mode & stat.S_IWGRP) and (info.st_gid in uids or _has_acl(path))

    for above in reversed(Path(tree).parents):
        info = os.lstat(above)
        if open_to(info, str(above)) and not info.st_mode & stat.S_ISVTX:
            return f"{above} {why}"
    if open_to(os.lstat(tree), tree):
        return f"{tree} {why}"
    for folder in walk(tree):
        if folder.error:
            return f"{tree}/{folder.rel} can't be read ({folder.error.strerror})"
        for entry in folder.entries:
            path = f"{tree}/{folder.rel_of(entry.name)}"
            if open_to(entry.stat(follow_symlinks=False), path):
                return f"{path} {why}"
    return None


def _has_acl(path: str) -> bool:
    try:
        return "system.posix_acl_access" in os.listxattr(path, follow_symlinks=False)
    except OSError:
        return True  # can't tell: assume the worst


class _NoneSandbox(_Base):
    tier = "none"
    network_isolated = False

    def __init__(self, readable: tuple[Path, ...]):
        super().__init__(readable, None)
        self.limitations = (
            "no isolation: same uid as autofix, host network and filesystem; "
            "only the environment, rlimits, output and time are limited"
        )

    def describe(self) -> str:
        return "none (NO isolation: same uid, host network and filesystem; rlimits only)"

    def cannot_share(self, tree: str) -> str | None:
        return "the none tier keeps nothing read-only"


class _ProcessSandbox(_Base):
    tier = "process"
    network_isolated = False
    _shares_host = True

    def __init__(self, readable: tuple[Path, ...], pool: tuple[int, ...] | None, why_not_bwrap: str = ""):
        super().__init__(readable, pool)
        if pool is not None:
            lim = "network NOT isolated; filesystem protected by permissions only (world-readable files are readable)"
            # queues it could not find to remove afterwards are not allowed at all
            self._no_mqueue = mqueue_dir() is None
            notes = [
                self._pool_note(),
                self._cgroup_note(),
                "POSIX message queues disabled (no mqueue filesystem to clean them from)" if self._no_mqueue else "",
            ]
            lim = "; ".join([lim, *filter(None, notes)])
        else:
            lim = (
                f"autofix is not root: runs as the same uid ({os.getuid()}) with rlimits and "
                "process-tree kill only; network and filesystem NOT isolated"
            )
        if why_not_bwrap:
            lim += f"; stronger tiers unusable: {why_not_bwrap}"
            self.declined = why_not_bwrap
        self.limitations = lim

    def describe(self) -> str:
        who = "a dedicated uid per run" if self.uid is not None else f"same uid {os.getuid()}"
        return f"process ({who}, rlimits; network NOT isolated)"

    def cannot_share(self, tree: str) -> str | None:
        """Only file permissions keep the run out: every uid of the pool must be unable to change
        the tree or rename it away."""
        if self.pool is None:
            return f"the tests run as autofix's own uid ({os.getuid()}), which may change it"
        return _writable_to(tree, self.pool)


class _LandlockSandbox(_ProcessSandbox):
    """The process tier, confined: Landlock (files; TCP from ABI 4; signals and abstract sockets
    from ABI 6) and a seccomp filter (no sockets but unix, no ptrace, no namespaces), for hosts
    where user namespaces are refused but Landlock works: a Docker container, first of all."""

    tier = "landlock"
    network_isolated = True
    _walls = True

    def __init__(self, readable: tuple[Path, ...], pool: tuple[int, ...] | None, why_not_bwrap: str = ""):
        super().__init__(readable, pool, why_not_bwrap)
        self.abi = landlock.abi_version()
        self.limitations = self.limitations.replace("network NOT isolated; ", "").replace(
            "network and filesystem NOT isolated", "filesystem views and network confined by Landlock and seccomp"
        )

    def describe(self) -> str:
        who = "a dedicated uid per run" if self.uid is not None else f"same uid {os.getuid()}"
        return f"landlock ({landlock.describe(self.abi)}; {who}, rlimits)"

    def cannot_share(self, tree: str) -> str | None:
        """Landlock grants the tree reading alone, whatever its permissions, unless it lies
        beneath a folder every run may write."""
        if within(tree, "/dev/shm"):
            return "it lies in /dev/shm, which every run may write"
        return None

    def _execute(
        self,
        argv: list[str],
        workdir: str,
        env: dict[str, str],
        limits: Limits,
        uid: int | None,
        pass_fds: tuple[int, ...],
        shared: tuple[str, ...],
        writable: tuple[str, ...] | None,
    ) -> Outcome:
        """The run gets a temporary folder of its own (HOME, TMPDIR): the shared ones stay out of
        its reach, and with them whatever else lies in /tmp, a work folder autofix copied included.
        It is the run's uid's (mode 0700): if autofix dies before removing it, the next run to
        clean up after that uid removes it with the rest of what the uid owns (clean_shared)."""
        private = tempfile.mkdtemp(prefix="autofix-tmp-")
        try:
            if uid is not None:
                os.chown(private, uid, uid)
            mine = {**env, "HOME": private, "TMPDIR": private}
            return super()._execute(argv, workdir, mine, limits, uid, pass_fds, shared, writable)
        finally:
            remove_tree(private)

    def _confinement(
        self, workdir: str, env: Mapping[str, str], shared: tuple[str, ...], writable: tuple[str, ...] | None
    ) -> landlock.Confinement | None:
        readable = [*self._readable_real, *shared, *([] if writable is None else [workdir])]
        mine = [workdir] if writable is None else list(writable)
        return landlock.confinement(readable, [*mine, env["TMPDIR"], "/dev/shm"])


class _BwrapSandbox(_Base):
    tier = "bwrap"
    network_isolated = True
    _shared_disks = ()  # its /tmp and /dev/shm are tmpfs of its own, bounded by --size
    _walls = True

    def __init__(self, bwrap: str, readable: tuple[Path, ...], pool: tuple[int, ...] | None):
        super().__init__(readable, pool)
        self.bwrap = bwrap
        try:
            helptext = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            helptext = ""
        self._disable_userns = "--disable-userns" in helptext
        self._has_size = "--size" in helptext  # bwrap >= 0.8
        self._has_perms = "--perms" in helptext  # bwrap >= 0.5
        self._env = "/usr/bin/env" if os.access("/usr/bin/env", os.X_OK) else None
        self._system, self._etc_copies = self._system_args()
        if pool is None:
            self.limitations = (
                f"autofix is not root: the sandbox is uid {os.getuid()} on the host "
                "and RLIMIT_NPROC is shared with autofix's own processes"
            )
        else:
            self.limitations = "; ".join(filter(None, [self._pool_note(), self._cgroup_note()]))

    def describe(self) -> str:
        who = "a dedicated uid per run" if self.uid is not None else f"host uid {os.getuid()}"
        return f"bwrap (no network, {who}, read-only system)"

    def cannot_share(self, tree: str) -> str | None:
        return None  # bound read-only at its own path, which the workdir's link names

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

    def _command(self, argv, workdir, env, limits, uid, shared, writable):
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
        args += [
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--remount-ro",
            "/dev",
            *size,
            "--tmpfs",
            "/dev/shm",
            *size,
            "--tmpfs",
            "/tmp",
        ]
        # readable paths read-only and the workdir read-write, each at its host
        # path, shallow ones first so a deeper mount lands on top
        mounts: list[tuple[str, str, str]] = []
        for p in self.readable:
            lit, real = str(p), os.path.realpath(p)
            if not any(r != real and within(real, r) for r in self._readable_real):
                mounts.append((real, "--ro-bind-try", real))  # (else shown by the outer bind)
            if lit != real:
                if os.path.islink(lit):
                    mounts.append((lit, "--symlink", os.readlink(lit)))
                else:
                    mounts.append((lit, "--ro-bind-try", real))
        for tree in shared:
            if not any(within(tree, r) for r in self._readable_real):
                mounts.append((tree, "--ro-bind", tree))
        if writable is None:
            mounts.append((workdir, "--bind", workdir))
        else:  # each writable path lies deeper than the workdir: its bind lands on top
            mounts.append((workdir, "--ro-bind", workdir))
            mounts += [(path, "--bind", path) for path in writable]
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
        raise ValueError(f"every uid of {_POOL[-1]}-{_POOL[0]} belongs to an account; pass a dedicated uid=...")
    return pool


def open_sandbox(requested: str = "auto", readable: Sequence[Path] = (), *, uid: int | None = None) -> Sandbox:
    """Detect (once) and return a sandbox; keep the object.

    ``auto`` runs a trivial command in bwrap and uses it if that works, else
    landlock, else the ``process`` tier; if none works, a UserError names each
    tier and why.  ``bwrap`` / ``landlock`` / ``process`` force a tier
    (ValueError, one line, if it does not work).  ``none`` only when asked explicitly: it
    warns with :class:`SandboxWarning` via ``warnings.warn``.

    ``readable``: host paths the command needs read-only (e.g. the Python
    prefixes and the interpreter's directory).  ``uid``: the one dedicated uid
    to use when autofix is root, so runs of this sandbox take turns (default:
    the pool from ``SANDBOX_UID`` down, one uid per concurrent run).
    """
    if requested not in SANDBOXES:
        raise ValueError(f"unknown sandbox tier {requested!r} (auto, bwrap, landlock, process or none)")
    paths = _normalize_readable(readable)
    if requested == "none":
        warnings.warn(
            "sandbox 'none': the tests run with autofix's own uid, network and "
            "filesystem (only env, rlimits, output and time are limited)",
            SandboxWarning,
            stacklevel=2,
        )
        return _NoneSandbox(paths)
    dedicated = _pick_pool(uid) if os.geteuid() == 0 else None
    refused: dict[str, str] = {}  # each tier tried and found unusable, with why
    if requested in ("auto", "bwrap"):
        bw = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None)
        if bw:
            sb = _BwrapSandbox(bw, paths, dedicated)
            err = sb._probe()
            if err is None:
                return sb
            refused["bwrap"] = err.removeprefix("bwrap: ")
        else:
            refused["bwrap"] = "bwrap not found"
        if requested == "bwrap":
            raise ValueError(f"bwrap sandbox unusable: {refused['bwrap']}")
    if requested in ("auto", "landlock"):
        reason = landlock.unusable()
        if reason is None:
            confined = _LandlockSandbox(paths, dedicated, _told(refused))
            reason = confined._probe()
            if reason is None:
                return confined
        if requested == "landlock":
            raise ValueError(f"landlock sandbox unusable: {reason}")
        refused["landlock"] = reason
    ps = _ProcessSandbox(paths, dedicated, _told(refused))
    err = ps._probe()
    if err is None:
        return ps
    if requested == "process":
        raise ValueError(f"process sandbox unusable: {err}")
    # `auto` named no tier: the host refused every one, not the caller's choice.
    refused["process"] = err
    raise UserError(f"no sandbox tier can run the tests here: {_told(refused)}")


def _told(refused: Mapping[str, str]) -> str:
    """Each tier and why, `bwrap: WHY; landlock: WHY`; tiers refused alike told once: `bwrap, landlock: WHY`."""
    tiers: dict[str, list[str]] = {}
    for tier, why in refused.items():
        tiers.setdefault(why, []).append(tier)
    return "; ".join(f"{', '.join(names)}: {why}" for why, names in tiers.items())
