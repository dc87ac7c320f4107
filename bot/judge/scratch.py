"""The scratch copy a judge runs candidates in: copied once per judge, put back between runs.

A fresh copy of the work folder for every run cost what the folder holds (20,000 small files:
9 s a run). A Scratch copies it once, and after each run puts back only what the run changed:

- Every entry autofix made is remembered by its path and its lstat: type, mode, owner, inode,
  size, mtime and ctime. No process can choose a ctime (a write, chmod, chown, link, rename or
  utime sets it to the clock), so a file changed and given its old size and mtime back still
  differs. Before each run autofix waits until the file system's clock has passed every ctime
  it remembers: nothing the run does can carry one of them.
- After the run one walk (safefs's: fd-relative, never following a link) compares the entries.
  find(1) first names every entry whose ctime is past the latest remembered (changes.py); the
  walk then compares only the folders holding one (a removal or rename changes its folder's
  ctime) and goes only where they lie. If the clock was set back during the run, a change could
  carry an old ctime, and every entry is compared. What the run added goes; a file it changed,
  and anything it replaced or removed, is copied again from the original; a folder whose own
  metadata changed gets its mode and owner back and loses the extended attributes (ACLs) a run
  may set. Protected paths among them are hashed first and compared with the original's
  (integrity.tampering). What can't be put back entry by entry is copied afresh, whole.
- The insides are autofix's, and readable by others (o+r, and o+x on folders and on what its
  owner may execute: `open_to_others`, before the lstat is remembered). A judgement leases a
  uid of the pool (Sandbox.lease; the copy's last when it is free), and a run that says what it
  writes is lent the top read-only and those paths alone (Kept; Workdir.give): the judged tree
  is read-only to it by ownership, on every tier. Between runs the copy's parent folder lets
  nobody but root in, and during one the top lets only the run's group in. Judgements going at
  once (the strength check's mutants) each take a copy of their own (Copies), with a uid of its
  own.
- Virtual environments (a folder holding pyvenv.cfg) and node_modules are not copied where the
  sandbox keeps every run from changing them (Sandbox.cannot_share): the copy holds a link to
  the original tree, which the runs see read-only.

A Validator's copy is of the work folder as its first run found it (a file the original changed
since makes the copy afresh when a run's change has to be put back from it). A gate's copy
(`follow`) takes in before each run what changed in the folder, which the model edits in place;
it shares nothing, since the model could edit a shared tree.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from bot import safefs
from bot.judge import changes, integrity
from bot.sandbox.tiers import Kept, Sandbox, keep_workdir, within

VIRTUALENV_MARK = "pyvenv.cfg"  # what every virtual environment holds, whatever its folder is called
SHARED_NAMES = frozenset({"node_modules"})
RUN_XATTRS = ("user.", "system.posix_acl_")  # the extended attributes a run's uid may set on what it owns
CLOCK_STEP = 0.001  # seconds between looks at the file system's clock
CLOCK_PATIENCE = 2.0  # seconds it may take to pass the last ctime remembered (a clock set back: copy afresh)
CLOCK_JITTER = 100_000  # ns: how far two readings of clock_offset may differ with no one setting the clock

Key = tuple[int, int, int, int, int, int, int]  # an lstat: mode, inode, uid, gid, size, mtime and ctime (ns)
FOLDER: Key = (stat.S_IFDIR, 0, 0, 0, 0, 0, 0)  # an original's folder: what it holds is compared instead
Diverter = Callable[[str, int, os.DirEntry], str | None]


def key_of(info: os.stat_result) -> Key:
    return (info.st_mode, info.st_ino, info.st_uid, info.st_gid, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def source_key(info: os.stat_result) -> Key:
    return FOLDER if stat.S_ISDIR(info.st_mode) else key_of(info)


def is_folder(key: Key | None) -> bool:
    return key is not None and stat.S_ISDIR(key[0])


class Copies:
    """The scratch copies of one judge: one for each judgement going at once, made when first
    needed, each for the first uid of the pool free then."""

    def __init__(
        self,
        original: Path,
        sandbox: Sandbox,
        protected: tuple[str, ...],
        exempt: tuple[str, ...] = (),
        *,
        target: str | None = None,
        follow: bool = False,
        leave_out: frozenset[str] = frozenset(),
    ):
        self.original = original
        self.make = partial(
            Scratch, original, sandbox, protected, exempt, target=target, follow=follow, leave_out=leave_out
        )
        self.idle: list[Scratch] = []
        self.lock = threading.Lock()

    def prepare(self) -> list[str]:
        """A copy made now (before any model call); what the log should say about it."""
        with self.borrowed() as scratch:
            return scratch.prepare()

    @contextmanager
    def use(self) -> Iterator[Scratch]:
        """A copy as the original holds it, for one judgement (Scratch.use)."""
        with self.borrowed() as scratch, scratch.use():
            yield scratch

    @contextmanager
    def borrowed(self) -> Iterator[Scratch]:
        with self.lock:
            scratch = self.idle.pop() if self.idle else self.make()
        try:
            yield scratch
        finally:
            with self.lock:
                self.idle.append(scratch)


class Scratch:
    """One copy of `original`, for one judgement at a time (module docstring). `target`: the
    file candidates write, whose tree is never shared. `leave_out`: paths of the original no copy
    ever holds (what other steps left in the Action's workspace), nor a tree shared with it."""

    def __init__(
        self,
        original: Path,
        sandbox: Sandbox,
        protected: tuple[str, ...],
        exempt: tuple[str, ...] = (),
        *,
        target: str | None = None,
        follow: bool = False,
        leave_out: frozenset[str] = frozenset(),
    ):
        self.original = original
        self.leave_out = leave_out
        self.home = os.path.realpath(original)
        self.sandbox = sandbox
        self.protected, self.exempt = protected, exempt
        self.rules = integrity.Protection(protected, exempt)
        self.target = target
        self.follow = follow
        self.uid: int | None = None  # the uid its last judgement leased, taken again when free
        self.folder: Path | None = None  # holds `work` and the clock; root's alone
        self.top: Key = FOLDER  # the copy's top, as autofix left it
        self.entries: dict[str, dict[str, Key]] = {}  # folder -> name -> its lstat, as autofix left them
        self.sources: dict[str, dict[str, Key]] = {}  # the original's folders, as copied
        self.digests: dict[str, str] = {}  # the protected paths, as copied (integrity.snapshot)
        self.shared: dict[str, str] = {}  # where the copy links to a tree of the original -> that tree
        self.declined: dict[str, str] = {}  # a tree that could have been shared -> why it was copied
        self.latest = 0  # the latest ctime remembered (ns)
        self.finder = changes.Finder()
        self.clock_offset = clock_offset
        self.run_offset = 0  # clock_offset as the last run began
        self.dirty = False  # a run may have changed the copy since it was put back

    @property
    def work(self) -> Path:
        assert self.folder is not None  # prepare() made it
        return self.folder / "work"

    def prepare(self) -> list[str]:
        """The copy, made once, for the first uid free; what the log should say about it."""
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="autofix-"))
            weakref.finalize(self, safefs.remove_tree, self.folder)
            (self.folder / "clock").touch()
            with self.sandbox.lease(None) as slot:
                self.uid = slot.uid if slot else None
                self.dirty = True  # until the copy is whole
                self.copy()
                self.dirty = False
        shared = [f"shared read-only, not copied: {', '.join(sorted(self.shared))}"] if self.shared else []
        return shared + [f"copied {rel} rather than sharing it read-only: {why}" for rel, why in self.declined.items()]

    @contextmanager
    def use(self) -> Iterator[Path]:
        """The copy as the original holds it, for one judgement; `restore` (else leaving) puts
        back what its runs changed."""
        self.prepare()
        with self.sandbox.lease(self.uid) as slot:
            if self.dirty:  # the last judgement's runs were never put back (it raised on the way)
                self.copy()
            self.uid = slot.uid if slot else None
            if self.follow:
                self.take_in()
            keep_workdir(self.work, Kept(slot, tuple(sorted(self.shared.values())), self.home))
            self.wait_for_clock()
            self.dirty = True
            try:
                yield self.work
            finally:
                try:
                    if self.dirty:
                        self.restore()
                finally:
                    keep_workdir(self.work, None)

    def write(self, rel: str, text: str) -> None:
        """`text` as the file at rel (the candidate's target), autofix's like the rest; never
        written through a link that stands there."""
        path = self.work / rel
        if path.is_symlink() or path.exists():
            path.unlink()
        fd = os.open(path, safefs.WRITE_FLAGS, 0o666)
        with open(fd, "w", encoding="utf-8") as file:
            os.fchmod(fd, open_to_others(os.fstat(fd).st_mode))
            file.write(text)

    def restore(self) -> list[tuple[str, str]]:
        """Put back what the runs changed. What they changed of the protected paths comes back,
        as integrity.tampering says it."""
        before = self.digests
        after = dict(before)
        if not self.put_back(after):
            self.copy()
        self.dirty = False
        return integrity.tampering(before, after)

    # -- the whole copy

    def copy(self) -> None:
        """The copy afresh, of what the original holds now."""
        safefs.remove_tree(self.work)
        self.latest = 0
        safefs.copy_tree(self.original, self.work, integrity.IGNORED_DIRS, None, self.divert, self.leave_out)
        self.absolute_links()
        self.top = key_of(os.lstat(self.work))
        self.entries = {}
        self.remember(self.work, "")
        self.sources = {}
        self.take_sources(self.original, "")
        self.digests = integrity.snapshot(self.work, self.protected, self.exempt)

    def absolute_links(self) -> None:
        """A node_modules the work folder holds as a relative link (to a workspace's hoisted
        packages) leads nowhere from the copy: there it leads where the original's leads."""
        for name in SHARED_NAMES:
            original, copied = Path(self.original) / name, self.work / name
            if original.is_symlink() and not os.path.isabs(os.readlink(original)) and copied.is_symlink():
                copied.unlink()
                os.symlink(os.path.realpath(original), copied)

    def divert(self, rel: str, folder_fd: int, entry: os.DirEntry) -> str | None:
        """The tree to link to instead of copying the folder at rel, or None (copy_tree's `divert`)."""
        if rel in self.shared:
            return self.shared[rel]
        if self.follow or rel in self.declined or not read_only_kind(folder_fd, entry.name):
            return None
        tree = f"{self.home}/{rel}"
        why: str | None
        if self.target and within(self.target, rel):
            why = "the target lies in it"
        elif self.out_below(rel):
            why = "it holds files left out of the copy"
        else:
            why = self.sandbox.cannot_share(tree)
        if why:
            self.declined[rel] = why
            return None
        self.shared[rel] = tree
        return tree

    def below(self, rel: str) -> Diverter:
        return lambda sub, folder_fd, entry: self.divert(integrity.joined(rel, sub), folder_fd, entry)

    def out_below(self, rel: str) -> frozenset[str]:
        """What `leave_out` names inside the folder at rel, from that folder."""
        return frozenset(path[len(rel) + 1 :] for path in self.leave_out if within(path, rel) and path != rel)

    def remember(self, where: safefs.Where, rel: str) -> None:
        """The lstat of everything in the folder at `where` (rel in the copy), as it is now, once
        readable by others."""
        for folder in safefs.walk(where):
            if folder.error:
                raise folder.error
            assert folder.fd is not None  # only a folder with an error has none
            keys = {entry.name: key_of(readable(folder.fd, entry.name)) for entry in folder.entries}
            self.entries[integrity.joined(rel, folder.rel)] = keys
            self.latest = max([self.latest, *(key[6] for key in keys.values())])

    def take_sources(self, where: safefs.Where, rel: str) -> None:
        for folder in safefs.walk(where):
            if folder.error:
                raise folder.error
            here = integrity.joined(rel, folder.rel)
            self.sources[here] = self.listing(folder, here)

    def listing(self, folder: safefs.Folder, rel: str) -> dict[str, Key]:
        """What of an original's folder the copy holds, by name; the walk goes on into the
        subfolders copied, not those shared."""
        found: dict[str, Key] = {}
        below = []
        for entry in folder.entries:
            if entry.name in integrity.IGNORED_DIRS:
                continue
            kind = safefs.kind_of(entry)
            if kind == stat.S_IFDIR:
                found[entry.name] = FOLDER
                if integrity.joined(rel, entry.name) not in self.shared:
                    below.append(entry)
            elif kind in (stat.S_IFREG, stat.S_IFLNK):
                found[entry.name] = key_of(entry.stat(follow_symlinks=False))
        folder.entries = below
        return found

    # -- after a run

    def put_back(self, after: dict[str, str]) -> bool:
        """Walk the copy and put back every entry the runs changed, noting in `after` the
        digests of the protected ones. False when something couldn't be put back."""
        whole = self.top_back()
        again: set[str] = set()  # folders whose metadata was put back: their lstat is new
        assert self.folder is not None
        set_back = self.clock_offset() < self.run_offset - CLOCK_JITTER
        narrowed = None if set_back else self.finder.where(self.work, self.entries, self.latest, self.folder / "clock")
        examine, route = narrowed if narrowed else (set(), None)
        for folder in safefs.walk(self.work):
            if route is not None and folder.rel not in examine and folder.rel not in again:
                folder.entries = [entry for entry in folder.entries if folder.rel_of(entry.name) in route]
                continue
            if folder.fd is None:  # only when autofix isn't root: a folder it can't read any more
                for name, made in self.entries.get(folder.rel, {}).items():
                    forget(after, folder.rel_of(name), made)
                whole = False
                continue
            expected = self.entries.get(folder.rel, {})
            below, changed = [], []
            for entry in folder.entries:  # the hot loop: an lstat per entry, and little else
                now = key_of(entry.stat(follow_symlinks=False))
                if now != expected.get(entry.name):
                    changed.append((entry.name, now))
                elif entry.is_dir(follow_symlinks=False) and (route is None or folder.rel_of(entry.name) in route):
                    below.append(entry)
            touched = bool(changed) or len(folder.entries) != len(expected)  # else every name is one expected
            if touched:
                names = {entry.name for entry in folder.entries}
                for name, state in [*changed, *((name, None) for name in expected.keys() - names)]:
                    try:
                        whole = self.put_back_entry(folder, name, state, after, again) and whole
                    except OSError:
                        whole = False
                below += [entry for entry in folder.entries if folder.rel_of(entry.name) in again]
            if (touched or folder.rel in again) and folder.rel:
                self.keep(folder.rel, os.fstat(folder.fd))
            folder.entries = below
        return whole

    def put_back_entry(
        self, folder: safefs.Folder, name: str, now: Key | None, after: dict[str, str], again: set[str]
    ) -> bool:
        """The entry `name` of `folder`, which the runs changed (`now`: its lstat; None: gone),
        as autofix made it. False when it couldn't be."""
        assert folder.fd is not None  # put_back skips a folder it couldn't open
        rel = folder.rel_of(name)
        was = self.entries.get(folder.rel, {}).get(name)
        if was is not None and now is not None and is_folder(was) and is_folder(now):
            folder_back(folder.fd, name, was)
            again.add(rel)
            return True
        forget(after, rel, was)
        if now is not None:
            self.note(after, folder.fd, name, rel)
            safefs.remove_tree((folder.fd, name))
        self.drop(rel, was)
        return was is None or self.copy_back(folder.fd, name, rel)

    def top_back(self) -> bool:
        """The top's mode, owner and attributes as autofix left them (the run had it as its own)."""
        try:
            mode, _, uid, gid = self.top[:4]
            os.chown(self.work, uid, gid, follow_symlinks=False)
            os.chmod(self.work, stat.S_IMODE(mode))
            top = os.open(self.work, safefs.DIR_FLAGS)
        except OSError:
            return False
        try:
            clear_run_xattrs(top)
        finally:
            os.close(top)
        return True

    def note(self, digests: dict[str, str], folder_fd: int, name: str, rel: str) -> None:
        """The digests of the protected paths at rel, and in it if it is a folder."""
        if self.rules.covers(rel):
            digests[rel] = integrity.digest(folder_fd, name)
        if stat.S_ISDIR(os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mode):
            digests.update(integrity.snapshot((folder_fd, name), self.protected, self.exempt, under=rel))

    def copy_back(self, folder_fd: int, name: str, rel: str) -> bool:
        """The entry at rel again as the original holds it, into the copy's folder folder_fd.
        False when the original changed since it was copied (the whole copy is then made anew)."""
        parent_rel = rel.rpartition("/")[0]
        if rel in self.shared:
            os.symlink(self.shared[rel], name, dir_fd=folder_fd)
        else:
            parent = self.open_original(parent_rel)
            try:
                info = os.stat(name, dir_fd=parent, follow_symlinks=False)
                if not self.follow and not self.as_copied(parent, name, rel, info):
                    return False
                if stat.S_ISDIR(info.st_mode):
                    where = (parent, name)
                    safefs.copy_tree(
                        where, (folder_fd, name), integrity.IGNORED_DIRS, None, self.below(rel), self.out_below(rel)
                    )
                    self.take_sources(where, rel)
                else:
                    safefs.copy_entry(name, stat.S_IFMT(info.st_mode), parent, folder_fd)
                self.sources[parent_rel][name] = source_key(info)
            finally:
                os.close(parent)
        self.keep(rel, readable(folder_fd, name))
        if is_folder(self.entries[parent_rel][name]):
            self.remember((folder_fd, name), rel)
        return True

    def as_copied(self, parent: int, name: str, rel: str, info: os.stat_result) -> bool:
        """Whether the original's entry at rel (and what it holds) is still what was copied."""
        if self.sources.get(rel.rpartition("/")[0], {}).get(name) != source_key(info):
            return False
        if not stat.S_ISDIR(info.st_mode):
            return True
        for folder in safefs.walk((parent, name)):
            here = integrity.joined(rel, folder.rel)
            if folder.error or self.listing(folder, here) != self.sources.get(here):
                return False
        return True

    def keep(self, rel: str, info: os.stat_result) -> None:
        parent, _, name = rel.rpartition("/")
        self.entries.setdefault(parent, {})[name] = key_of(info)
        self.latest = max(self.latest, info.st_ctime_ns)

    def drop(self, rel: str, was: Key | None) -> None:
        """Forget what autofix had made at rel (and in it)."""
        parent, _, name = rel.rpartition("/")
        self.entries.get(parent, {}).pop(name, None)
        if is_folder(was):
            for folder in [f for f in self.entries if within(f, rel)]:
                del self.entries[folder]

    def open_original(self, rel: str) -> int:
        """The original's folder at rel, opened name by name, never through a link."""
        fd = safefs.open_folder(self.original)
        for name in rel.split("/") if rel else ():
            try:
                child = os.open(name, safefs.DIR_FLAGS, dir_fd=fd)
            finally:
                os.close(fd)
            fd = child
        return fd

    def wait_for_clock(self) -> None:
        """Return once the file system's clock is past every ctime remembered: a change the run
        makes can't look like none."""
        assert self.folder is not None
        clock = self.folder / "clock"
        patience = time.monotonic() + CLOCK_PATIENCE
        while True:
            os.utime(clock)
            if os.stat(clock).st_ctime_ns > self.latest:
                self.run_offset = self.clock_offset()
                return
            if time.monotonic() > patience:  # the clock was set back: what is remembered can't be told apart
                self.copy()
                patience = time.monotonic() + CLOCK_PATIENCE
            time.sleep(CLOCK_STEP)

    # -- before a run of a gate's copy

    def take_in(self) -> None:
        """Bring into the copy what changed in the original since the last run."""
        try:
            self.take_in_changes()
        except OSError:
            self.copy()

    def take_in_changes(self) -> None:
        with safefs.Descent(self.work) as mirror:
            for folder in safefs.walk(self.original):
                if folder.error:
                    raise folder.error
                if folder.depth:
                    mirror.up_to(folder.depth - 1)
                    mirror.down(folder.name)
                was = self.sources.get(folder.rel, {})
                entries = {entry.name: entry for entry in folder.entries}
                now = self.listing(folder, folder.rel)
                if now == was:
                    continue
                folder.entries = [entry for entry in folder.entries if is_folder(was.get(entry.name))]
                for name in sorted(was.keys() | now.keys()):
                    if was.get(name) != now.get(name):
                        self.take_in_entry(folder, mirror.fd, name, entries.get(name), now.get(name))
                self.sources[folder.rel] = now
                if folder.rel:
                    self.keep(folder.rel, os.fstat(mirror.fd))

    def take_in_entry(
        self, folder: safefs.Folder, mirror_fd: int, name: str, entry: os.DirEntry | None, source: Key | None
    ) -> None:
        """The copy's entry `name` made what the original's is now (`source`; None: gone)."""
        assert folder.fd is not None  # take_in_changes raised for a folder it couldn't open
        rel = folder.rel_of(name)
        made = self.entries.get(folder.rel, {}).get(name)
        forget(self.digests, rel, made)
        if made is not None:
            safefs.remove_tree((mirror_fd, name))
            self.drop(rel, made)
        if is_folder(self.sources.get(folder.rel, {}).get(name)):
            for below in [f for f in self.sources if within(f, rel)]:
                del self.sources[below]
        if entry is None or source is None or rel in self.leave_out:
            return
        if is_folder(source):
            out = self.out_below(rel)
            safefs.copy_tree((folder.fd, name), (mirror_fd, name), integrity.IGNORED_DIRS, leave_out=out)
            self.take_sources((folder.fd, name), rel)
        else:
            safefs.copy_entry(name, safefs.kind_of(entry), folder.fd, mirror_fd)
        self.keep(rel, readable(mirror_fd, name))
        if is_folder(source):
            self.remember((mirror_fd, name), rel)
        self.note(self.digests, mirror_fd, name, rel)


def clock_offset() -> int:
    """The real-time clock (which file times follow) less the monotonic one, in ns: it falls only
    when someone sets the clock back."""
    return time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def forget(digests: dict[str, str], rel: str, was: Key | None) -> None:
    """Take out the digests of rel and, if it was a folder, of what it held."""
    digests.pop(rel, None)
    if is_folder(was):
        for path in [path for path in digests if within(path, rel)]:
            del digests[path]


def read_only_kind(folder_fd: int, name: str) -> bool:
    """Whether the folder `name` is one the tests only read: node_modules, or a virtual environment."""
    if name in SHARED_NAMES:
        return True
    try:
        folder = os.open(name, safefs.DIR_FLAGS, dir_fd=folder_fd)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.stat(VIRTUALENV_MARK, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False
    finally:
        os.close(folder)


def open_to_others(mode: int) -> int:
    """`mode` with o+r, and o+x for a folder or what its owner may execute: the run's uid reads
    the copy as others do, and owns none of it."""
    more = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) or mode & stat.S_IXUSR else 0)
    return stat.S_IMODE(mode) | more


def readable(folder_fd: int, name: str) -> os.stat_result:
    """The lstat of the entry `name`, made readable by others first (a link's own mode means nothing)."""
    info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode) or open_to_others(info.st_mode) == stat.S_IMODE(info.st_mode):
        return info
    os.chmod(name, open_to_others(info.st_mode), dir_fd=folder_fd)  # not a link (lstat), and no run goes now
    return os.stat(name, dir_fd=folder_fd, follow_symlinks=False)


def folder_back(parent: int, name: str, was: Key) -> None:
    """The folder's owner and mode as remembered, and none of the attributes a run may set."""
    os.chown(name, was[2], was[3], dir_fd=parent, follow_symlinks=False)
    os.chmod(name, stat.S_IMODE(was[0]), dir_fd=parent)  # a folder now (lstat): nothing to follow
    folder = os.open(name, safefs.DIR_FLAGS, dir_fd=parent)
    try:
        clear_run_xattrs(folder)
    finally:
        os.close(folder)


def clear_run_xattrs(fd: int) -> None:
    try:
        for attribute in os.listxattr(fd):
            if attribute.startswith(RUN_XATTRS):
                os.removexattr(fd, attribute)
    except OSError as exc:
        if exc.errno != errno.ENOTSUP:  # a file system without them: nothing to clear
            raise
