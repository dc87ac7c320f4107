"""What a sandboxed run borrows from the host while it runs, each change journaled so that a
crash is undone by the next run: a uid from the pool, its workdir handed over, path grants
shared between runs, and what the uid leaves in shared places (temp files at any depth, POSIX
message queues, SysV IPC objects) removed after. docs/ARCHITECTURE.md explains the design."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import re
import stat
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from bot.sandbox.procs import kill_uid, libc, pids_of, remove_run_cgroup


def _ancestors(path: str) -> list[str]:
    out = []
    parent = os.path.dirname(path)
    while parent != path:
        out.append(parent)
        path, parent = parent, os.path.dirname(parent)
    return out[::-1]  # "/" first


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


class Slot:
    """One uid of the pool, claimed for one run by holding its flock."""

    def __init__(self, state_dir: str, uid: int):
        self.uid = uid
        self.lock = os.path.join(state_dir, f"uid-{uid}.lock")
        self.journal = os.path.join(state_dir, f"uid-{uid}.journal")
        self.fd = -1

    @staticmethod
    @contextmanager
    def claim(pool: Sequence[int], prefer: int | None = None) -> Iterator[Slot]:
        """The first free uid of ``pool`` (``prefer`` first, when it is of the pool), after
        recovering every crashed uid of it."""
        state_dir = _state_dir()
        names = set(os.listdir(state_dir))
        crashed = {uid for uid in pool if f"uid-{uid}.journal" in names}
        if prefer is not None and prefer in pool:
            pool = [prefer, *(uid for uid in pool if uid != prefer)]
        chosen: Slot | None = None
        try:
            for uid in pool:
                if chosen is not None and uid not in crashed:
                    continue
                slot = Slot(state_dir, uid)
                slot.fd = _open_lock(slot.lock)
                try:
                    if not _try_flock(slot.fd):
                        continue  # in use by a live run
                    # (the journal may be gone since the listing: that run ended well)
                    if uid in crashed and os.path.exists(slot.journal) and not Workdir.recover(uid, slot.journal):
                        continue  # its processes survived: not usable now
                    if uid not in crashed and pids_of(uid):
                        # Processes of the uid we hold no journal for: an autofix whose state we
                        # can't see (one in a container: the host sees its processes) or other
                        # software. The run's final kill(-1) as the uid would kill them too.
                        continue
                    if chosen is None:
                        chosen = slot
                finally:
                    if slot is not chosen:
                        os.close(slot.fd)
            if chosen is None:  # every uid busy: wait for the first
                chosen = Slot(state_dir, pool[0])
                chosen.fd = _open_lock(chosen.lock)
                fcntl.flock(chosen.fd, fcntl.LOCK_EX)
                if os.path.exists(chosen.journal) and not Workdir.recover(chosen.uid, chosen.journal):
                    raise RuntimeError(f"processes of sandbox uid {chosen.uid} survived SIGKILL")
            yield chosen
        finally:
            if chosen is not None:
                os.close(chosen.fd)  # releases the uid

    @staticmethod
    def live(state_dir: str, uid: int) -> bool:
        """Whether a run holds ``uid`` now (probing its lock never blocks)."""
        try:
            fd = os.open(os.path.join(state_dir, f"uid-{uid}.lock"), os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return False
        try:
            return not _try_flock(fd)
        finally:
            os.close(fd)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_OPEN_DIRS = 32  # a walk keeps this many directories open at most, whatever the depth


def _warn(message: str) -> None:
    warnings.warn(f"autofix sandbox: {message}", RuntimeWarning, stacklevel=3)


@dataclass
class _Frame:
    """A directory a walk is in."""

    fd: int  # -1 while closed (far above the deepest folder open)
    info: os.stat_result  # its lstat, to know it again when reopened
    name: str
    names: Iterator[str]  # its entries not walked yet


def _walk(
    top: int, descend: Callable[[os.stat_result], bool], errors: list[OSError]
) -> Iterator[tuple[int, str, os.stat_result, bool]]:
    """Every entry below the directory open as ``top``, depth first, symlinks never followed:
    ``(fd of its directory, name, lstat, False)``; a directory that ``descend`` accepts is
    walked at once and comes again as ``(..., True)`` after its entries.

    Iterative and fd-relative, so any depth and any name length work: only the deepest
    directories stay open, and one closed on the way down is reopened through ".." on the way
    up, checked to be the same directory (else the walk stops with an error: the tree moved).
    Only directories are ever opened (FIFOs and devices never are).  An entry that cannot be
    read is skipped, its error kept in ``errors``.
    """
    frames = [_Frame(top, os.fstat(top), "", iter(os.listdir(top)))]
    try:
        while True:
            frame = frames[-1]
            name = next(frame.names, None)
            if name is None:
                if len(frames) == 1:
                    return
                frames.pop()
                parent = frames[-1]
                if parent.fd < 0:
                    parent.fd = _reopen_parent(frame.fd, parent.info)
                os.close(frame.fd)
                yield parent.fd, frame.name, frame.info, True
                continue
            try:
                info = os.stat(name, dir_fd=frame.fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as exc:
                errors.append(exc)
                continue
            yield frame.fd, name, info, False
            if not (stat.S_ISDIR(info.st_mode) and descend(info)):
                continue
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=frame.fd)
            except FileNotFoundError:
                continue  # removed by the caller
            except OSError as exc:
                errors.append(exc)
                continue
            try:
                _check_same(child, info)
                frames.append(_Frame(child, info, name, iter(os.listdir(child))))
            except OSError as exc:
                os.close(child)
                errors.append(exc)
                continue
            far = len(frames) - 1 - _OPEN_DIRS
            if far >= 1 and frames[far].fd >= 0:
                os.close(frames[far].fd)
                frames[far].fd = -1
    finally:
        for frame in frames[1:]:
            if frame.fd >= 0:
                os.close(frame.fd)


def _check_same(fd: int, st: os.stat_result) -> None:
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
        raise OSError(errno.ESTALE, "a directory was replaced during the walk")


def _reopen_parent(child: int, st: os.stat_result) -> int:
    fd = os.open("..", _DIR_FLAGS, dir_fd=child)
    try:
        _check_same(fd, st)
    except OSError:
        os.close(fd)
        raise
    return fd


def _chown_tree(top: int, new_owner: Callable[[os.stat_result], tuple[int, int] | None], errors: list[OSError]) -> None:
    """chown every entry below ``top`` on its filesystem (a symlink itself, never its target)
    to ``new_owner(lstat)``, when that is not None.  A file with several hard links is chowned
    only at the last of its links found here: a link from outside the tree means never, so a
    link cannot give a file away, nor hand one made by the sandbox to root."""
    dev = os.fstat(top).st_dev
    links: dict[int, int] = {}
    for fd, name, st, leaving in _walk(top, lambda st: st.st_dev == dev, errors):
        if leaving or st.st_dev != dev:
            continue
        owner = new_owner(st)
        if owner is None or owner == (st.st_uid, st.st_gid):
            continue
        if st.st_nlink > 1 and not stat.S_ISDIR(st.st_mode):
            links[st.st_ino] = links.get(st.st_ino, 0) + 1
            if links[st.st_ino] < st.st_nlink:
                continue
        try:
            os.chown(name, *owner, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            pass
        except OSError as e:
            errors.append(e)


def _chown_path(
    path: str, new_owner: Callable[[os.stat_result], tuple[int, int] | None], errors: list[OSError]
) -> None:
    """chown the entry at ``path`` (a real path: no link on the way) to ``new_owner(lstat)``, and
    if it is a folder what it holds (_chown_tree); a file with several links is left alone."""
    try:
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            owner = new_owner(info)
            if owner is not None and info.st_nlink == 1:
                os.chown(path, *owner, follow_symlinks=False)
            return
        folder = os.open(path, _DIR_FLAGS)
    except FileNotFoundError:
        return
    except OSError as e:
        errors.append(e)
        return
    try:
        _check_same(folder, info)
        _chown_tree(folder, new_owner, errors)
        owner = new_owner(info)
        if owner is not None:
            os.fchown(folder, *owner)
    except OSError as e:
        errors.append(e)
    finally:
        os.close(folder)


def _failed(errors: list[OSError]) -> OSError:
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return OSError(f"{errors[0]}{more}")


class Workdir:
    """chown the workdir to the run's uid and close it to others; ``undo()``
    restores it.  Journaled in the uid's journal before anything changes, so
    that a run whose autofix died is undone by the next run (``recover``).

    Or lend it read-only (`lent`, for a kept workdir: a judge's scratch copy, whose insides are
    autofix's and readable by others, bot/judge/scratch.py): the top stays autofix's, its group
    becomes the run's with r-x alone (other uids stay out), and only the `lent` paths (real paths
    inside it, none inside another) are chowned to the uid, a folder with what it holds. No
    other folder of the workdir is the uid's, so it can create, rename or remove nothing there,
    and no file it doesn't own can it change. A file with several links is never lent (its
    other name would be too); a lent folder's files follow the rule of _chown_tree. Handed back:
    the top and the lent paths; a crashed run's recovery hands back the whole tree.

    The journal is a JSON header (workdir, owner, mode, lent), then one line per entry whose owner
    differs from the workdir's, ``[inode, uid, gid]``, appended before that entry is chowned.
    """

    def __init__(self, uid: int, journal: str):
        self.uid = self.gid = uid
        self.journal = journal
        self.workdir: str | None = None
        self.owner = (0, 0)
        self.owners: dict[int, tuple[int, int]] = {}  # by inode: a rename keeps its owner
        self.mode = 0  # the workdir's own mode before the run
        self.lent: tuple[str, ...] | None = None  # lent read-only, but for these paths; None: whole

    def _save(self) -> None:
        state = {"workdir": self.workdir, "owner": self.owner, "mode": self.mode, "lent": self.lent}
        _write_json(self.journal, state)

    def _load(self) -> None:
        with open(self.journal, "rb") as f:
            head, *lines = f.read().splitlines() or [b"{}"]
        state = json.loads(head)
        workdir, (uid, gid), mode = state["workdir"], state["owner"], state["mode"]
        lent = state.get("lent")
        if (
            not (workdir is None or isinstance(workdir, str))
            or not all(isinstance(v, int) for v in (uid, gid, mode))
            or not (lent is None or (isinstance(lent, list) and all(isinstance(p, str) for p in lent)))
        ):
            raise ValueError(f"malformed journal header {head[:200]!r}")
        self.workdir, self.owner, self.mode = workdir, (uid, gid), mode
        self.lent = None if lent is None else tuple(lent)
        for line in lines:
            try:
                ino, uid, gid = json.loads(line)
                self.owners[int(ino)] = (int(uid), int(gid))
            except (ValueError, TypeError):
                continue  # a line cut by the crash

    @classmethod
    def recover(cls, uid: int, journal: str) -> bool:
        """Undo a crashed run of ``uid``: its processes, its cgroup, its workdir, what it left
        in shared places.  False if its processes survived (the uid is not usable; the journal
        stays).  Anything else that fails is a warning, never an exception: whatever a
        candidate left, later runs go on."""
        try:
            kill_uid(uid, uid)
        except Exception as e:  # noqa: BLE001 - reported; the uid is skipped
            _warn(f"recovering uid {uid}: {e}")
            return False
        work = cls(uid, journal)
        try:
            work._load()
        except Exception as e:  # noqa: BLE001 - tampered or unreadable: nothing to hand back
            _warn(f"recovering uid {uid}: unreadable journal {journal}: {e}")
            work.workdir = None
        for what, step in (
            ("cgroup", lambda: remove_run_cgroup(uid)),
            ("workdir", lambda: work._hand_back(whole=True)),
            ("shared places", lambda: clean_shared(uid)),
        ):
            try:
                step()
            except Exception as e:  # noqa: BLE001 - reported; the rest is still undone
                _warn(f"recovering uid {uid}: {what}: {e}")
        _unlink(journal)
        return True

    def give(self, workdir: str, pool: Sequence[int], lent: tuple[str, ...] | None = None) -> None:
        """The whole workdir to the uid, or (`lent`) its top read-only and those paths alone."""
        top = os.open(workdir, _DIR_FLAGS)
        try:
            st = os.fstat(top)
            if st.st_uid in pool or st.st_gid in pool:
                raise ValueError(f"workdir {workdir} is in use by another sandbox run")
            self.workdir, self.owner, self.mode = workdir, (st.st_uid, st.st_gid), stat.S_IMODE(st.st_mode)
            self.lent = lent
            self._save()
            journal = os.open(self.journal, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)

            def new_owner(est: os.stat_result) -> tuple[int, int] | None:
                owner = (est.st_uid, est.st_gid)
                if owner == (self.uid, self.gid):
                    return None
                if owner != self.owner and est.st_ino not in self.owners:
                    self.owners[est.st_ino] = owner
                    os.write(journal, json.dumps([est.st_ino, *owner]).encode() + b"\n")
                return self.uid, self.gid

            errors: list[OSError] = []
            try:
                if lent is None:
                    _chown_tree(top, new_owner, errors)
                for path in lent or ():
                    _chown_path(path, new_owner, errors)
            finally:
                os.close(journal)
            if errors:
                raise _failed(errors)
            self._give_top(top)
        finally:
            os.close(top)

    def _give_top(self, top: int) -> None:
        # another run's uid may walk to here (the grants are shared): keep it out
        if self.lent is None:
            os.fchown(top, self.uid, self.gid)
            os.fchmod(top, self.mode & ~0o007)
        else:
            os.fchown(top, -1, self.gid)  # still autofix's: the run's group may look in, not write
            os.fchmod(top, self.mode & 0o700 | 0o050)

    def undo(self, dirty: bool) -> None:
        """Hand the workdir back.  ``dirty``: processes of the uid may be left,
        so the journal stays, emptied, for the next run to sweep the uid.  If the
        workdir cannot be handed back, a warning says so and the journal stays whole:
        the next run of the uid tries again."""
        try:
            self._hand_back(whole=self.lent is None)
        except OSError as e:
            _warn(f"handing {self.workdir} back from uid {self.uid}: {e}")
            return
        self.workdir = None
        if dirty:
            self._save()
        else:
            _unlink(self.journal)

    def _hand_back(self, whole: bool) -> None:
        """The workdir back to its owner: the top, and what the uid owns below it (``whole``) or
        in the lent paths."""
        if self.workdir is None:
            return
        try:
            top = os.open(self.workdir, _DIR_FLAGS)
        except (FileNotFoundError, NotADirectoryError):
            return  # gone since: nothing to hand back
        errors: list[OSError] = []
        try:
            st = os.fstat(top)
            # the top first: then a leftover walk cannot take it for the uid's (clean_shared)
            if st.st_uid == self.uid or st.st_gid == self.gid:
                os.fchown(top, *self.owner)
                os.fchmod(top, self.mode)

            def back(est: os.stat_result) -> tuple[int, int] | None:
                if est.st_uid == self.uid or est.st_gid == self.gid:
                    return self.owners.get(est.st_ino, self.owner)
                return None

            if whole:
                _chown_tree(top, back, errors)
            for path in () if whole else self.lent or ():
                _chown_path(path, back, errors)
        finally:
            os.close(top)
        if errors:
            raise _failed(errors)


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
        holders = {k: h for k, h in state["holders"].items() if Slot.live(self.state_dir, int(k))}
        had = {p: tuple(m) for p, m in state["modes"].items()}
        want = _plan(
            {p for h in holders.values() for p in h["walk"]}, {p for h in holders.values() for p in h["trees"]}, had
        )
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
            _unlink(self.path)  # every mode is back
        elif not journaled:
            _write_json(self.path, state)


def _plan(walk: set[str], trees: set[str], had: Mapping[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
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
        want.update(_open_tree(root, original))  # declared readable: wins over a mask
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
        return {}  # meant to be world-readable: trust its inside
    plan = {root: (mode, grant(kind, mode))}
    if stat.S_ISDIR(kind):
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                p = os.path.join(dirpath, name)
                kind, mode = original(p)
                if not stat.S_ISLNK(kind) and grant(kind, mode) != mode:
                    plan[p] = (mode, grant(kind, mode))
    return plan


# where any uid may create files; /var/lock is usually a link to /run/lock
SHARED_TMP = tuple(
    dict.fromkeys(os.path.realpath(d) for d in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock"))
)


def clean_shared(uid: int) -> None:
    """Delete what ``uid`` left in shared places: its files and folders at any depth of
    the shared temp dirs, its POSIX message queues, its SysV IPC objects.  The uid is
    dedicated, so all of it was made by its runs.  Problems are warnings."""
    errors: list[OSError] = []
    for d in SHARED_TMP:
        _remove_owned(d, uid, errors)
    queues = mqueue_dir()
    if queues:
        _remove_owned(queues, uid, errors)
    _remove_sysv_ipc(uid, errors)
    if errors:
        _warn(f"cleaning what uid {uid} left: {_failed(errors)}")


def _remove_owned(path: str, uid: int, errors: list[OSError]) -> None:
    """Remove what ``uid`` owns below ``path``, looking into every folder where anyone may
    write (on the same filesystem): a folder of the uid goes whole, whoever owns its insides."""
    try:
        top = os.open(path, _DIR_FLAGS)
    except OSError:
        return  # not on this machine
    try:
        dev = os.fstat(top).st_dev

        def shared(st: os.stat_result) -> bool:
            return st.st_dev == dev and bool(st.st_mode & stat.S_IWOTH) and st.st_uid != uid

        # others' folders may change while the walk looks through them: not the uid's business
        for fd, name, st, leaving in _walk(top, shared, []):
            if leaving or st.st_uid != uid:
                continue
            try:
                if stat.S_ISDIR(st.st_mode):
                    _remove_tree(fd, name, st, errors)
                else:
                    os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            except OSError as e:
                errors.append(e)
    except OSError as e:
        errors.append(e)
    finally:
        os.close(top)


def _remove_tree(parent: int, name: str, st: os.stat_result, errors: list[OSError]) -> None:
    """rm -r of the folder ``name`` in ``parent``, at any depth, never following a link."""
    top = os.open(name, _DIR_FLAGS, dir_fd=parent)
    try:
        _check_same(top, st)
        for fd, entry, est, leaving in _walk(top, lambda s: s.st_dev == st.st_dev, errors):
            try:
                if leaving:
                    os.rmdir(entry, dir_fd=fd)
                elif not stat.S_ISDIR(est.st_mode):
                    os.unlink(entry, dir_fd=fd)
            except FileNotFoundError:
                pass
            except OSError as e:
                errors.append(e)
    finally:
        os.close(top)
    os.rmdir(name, dir_fd=parent)


_MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 2, 4, 8
_mqueue_lock = threading.Lock()
_mqueue: list[str | None] = []


def mqueue_dir() -> str | None:
    """A mounted mqueue filesystem, where POSIX message queues show as files: one already
    mounted (/dev/mqueue), else one autofix mounts in its state dir, once (root only); None
    if there is none."""
    with _mqueue_lock:
        if not _mqueue:
            _mqueue.append(_find_mount("mqueue") or _mount_mqueue())
        return _mqueue[0]


def _find_mount(fstype: str) -> str | None:
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields, _, rest = line.partition(" - ")
                if rest.split()[:1] == [fstype]:
                    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields.split()[4])
    except OSError:
        pass
    return None


def _mount_mqueue() -> str | None:
    if os.geteuid() != 0 or libc is None:
        return None
    path = os.path.join(_state_dir(), "mqueue")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    if libc.mount(b"mqueue", path.encode(), b"mqueue", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None):
        return None
    return path


_IPC_RMID = 0


def _remove_sysv_ipc(uid: int, errors: list[OSError]) -> None:
    """IPC_RMID every SysV shared memory segment, semaphore set and message queue that ``uid``
    owns or created (an owner may give one away with IPC_SET; the creator stays)."""
    if libc is None:
        return
    removers = {
        "shm": lambda i: libc.shmctl(i, _IPC_RMID, None),
        "sem": lambda i: libc.semctl(i, 0, _IPC_RMID),
        "msg": lambda i: libc.msgctl(i, _IPC_RMID, None),
    }
    for kind, remove in removers.items():
        try:
            with open(f"/proc/sysvipc/{kind}", "rb") as f:
                header, *rows = f.read().splitlines()
        except OSError:
            continue
        columns = header.split()
        owner, creator = columns.index(b"uid"), columns.index(b"cuid")
        for row in rows:
            fields = row.split()
            if uid in (int(fields[owner]), int(fields[creator])) and remove(int(fields[1])) != 0:
                err = ctypes.get_errno()
                if err not in (errno.EINVAL, errno.EIDRM):  # gone already
                    errors.append(OSError(err, f"removing SysV {kind} {int(fields[1])}: {os.strerror(err)}"))


def grants() -> _Grants:
    return _Grants(_state_dir())
