"""What a sandboxed run borrows from the host while it runs, each change journaled so that a
crash is undone by the next run: a uid from the pool, its workdir handed over, path grants
shared between runs, the shared /tmp cleaned after. bot/sandbox.py explains the design."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from typing import Iterable, Iterator, Mapping, Sequence

from bot.sandbox_procs import kill_uid


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


class Slot:
    """One uid of the pool, claimed for one run by holding its flock."""

    def __init__(self, state_dir: str, uid: int):
        self.uid = uid
        self.lock = os.path.join(state_dir, f"uid-{uid}.lock")
        self.journal = os.path.join(state_dir, f"uid-{uid}.journal")
        self.fd = -1

    @staticmethod
    @contextmanager
    def claim(pool: Sequence[int]) -> Iterator["Slot"]:
        """The first free uid of ``pool``, after recovering every crashed uid of it."""
        state_dir = _state_dir()
        names = set(os.listdir(state_dir))
        crashed = {uid for uid in pool if f"uid-{uid}.journal" in names}
        chosen: Slot | None = None
        try:
            for uid in pool:
                if chosen is not None and uid not in crashed:
                    continue
                slot = Slot(state_dir, uid)
                slot.fd = _open_lock(slot.lock)
                try:
                    if not _try_flock(slot.fd):
                        continue               # in use by a live run
                    if uid in crashed:
                        Workdir.recover(uid, slot.journal)
                    if chosen is None:
                        chosen, slot = slot, None
                finally:
                    if slot is not None:
                        os.close(slot.fd)
            if chosen is None:                 # every uid busy: wait for the first
                chosen = Slot(state_dir, pool[0])
                chosen.fd = _open_lock(chosen.lock)
                fcntl.flock(chosen.fd, fcntl.LOCK_EX)
                if os.path.exists(chosen.journal):
                    Workdir.recover(chosen.uid, chosen.journal)
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


class Workdir:
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
        kill_uid(uid, uid)
        if work.workdir is not None and not os.path.isdir(work.workdir):
            work.workdir = None
        work.undo(dirty=False)
        clean_shared_tmp(uid)     # after undo: the workdir itself may be at the top

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
        holders = {k: h for k, h in state["holders"].items() if Slot.live(self.state_dir, int(k))}
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


def clean_shared_tmp(uid: int) -> None:
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


def grants() -> _Grants:
    return _Grants(_state_dir())
