"""safefs: walking, reading, copying and removing trees a hostile process shaped, bounded in time."""

import os
import resource
import signal
import socket
import stat
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from bot import safefs


class Overdue(Exception):
    pass


@contextmanager
def deadline(seconds: int):
    """Fail instead of hanging: SIGALRM interrupts even a blocking open()."""

    def overdue(signum, frame):
        raise Overdue(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, overdue)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def nest(top: Path, names: list[str | bytes]) -> bytes:
    """Create folders inside each other, relative to descriptors (the path may pass PATH_MAX);
    the deepest one's path, as bytes."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)
    return os.fsencode(top) + b"".join(b"/" + os.fsencode(name) for name in names)


def write_at(folder_path: bytes, name: str, data: bytes) -> None:
    """Write a file in a folder whose path may be too long to open in one go."""
    fd = open_folder(folder_path)
    try:
        out = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, data)
        os.close(out)
    finally:
        os.close(fd)


def open_folder(path: bytes) -> int:
    fd = os.open(b"/", os.O_RDONLY | os.O_DIRECTORY)
    for part in path.strip(b"/").split(b"/"):
        child = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    return fd


def listing(root: Path) -> dict[str, tuple]:
    """rel -> (kind, what it holds) for everything under root, through safefs.walk."""
    found = {}
    for folder in safefs.walk(root):
        assert folder.error is None
        for entry in folder.entries:
            info = entry.stat(follow_symlinks=False)
            rel = folder.rel_of(entry.name)
            if stat.S_ISREG(info.st_mode):
                found[rel] = ("file", safefs.read_regular((folder.fd, entry.name), 1 << 20), stat.S_IMODE(info.st_mode))
            elif stat.S_ISLNK(info.st_mode):
                found[rel] = ("link", os.readlink(entry.name, dir_fd=folder.fd))
            else:
                found[rel] = (stat.S_IFMT(info.st_mode),)
    return found


@contextmanager
def limited_descriptors(count: int):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def as_nobody(function, *args):
    """`function(*args)` in a child process running as uid and gid 65534; what it returned or
    the repr of what it raised."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            try:
                result = repr(function(*args))
            except BaseException as exc:  # noqa: BLE001 - reported to the parent
                result = f"raised {exc!r}"
            os.write(write, result.encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        result = pipe.read().decode()
    os.waitpid(pid, 0)
    return result


@pytest.fixture
def deep_tmp(tmp_path):
    """tmp_path, emptied afterwards by remove_tree: pytest's own cleanup recurses."""
    yield tmp_path
    for entry in tmp_path.iterdir():
        safefs.remove_tree(entry)


@pytest.fixture
def shared_tmp():
    """A folder uid 65534 owns and can reach (pytest's tmp_path is root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="safefs-"))
    os.chown(path, 65534, 65534)
    yield path
    safefs.remove_tree(path)


def test_shown_escapes_bytes_that_are_not_utf8():
    assert safefs.shown(os.fsdecode(b"tests/\xff\xfe.py")) == "tests/\\xff\\xfe.py"
    assert safefs.shown(b"caf\xc3\xa9 \x80") == "café \\x80"
    assert safefs.shown("\ud800 lone") == "\\ud800 lone"
    assert safefs.shown("plain é") == "plain é"


def test_walk_goes_1500_folders_deep_with_few_descriptors(deep_tmp):
    bottom = nest(deep_tmp, ["d"] * 1500)
    write_at(bottom, "leaf.py", b"deep")
    with limited_descriptors(128), deadline(30):
        folders = list(safefs.walk(deep_tmp))
    assert [folder.depth for folder in folders] == list(range(1501))
    assert folders[-1].rel == "/".join(["d"] * 1500)
    assert [entry.name for entry in folders[-1].entries] == ["leaf.py"]


def test_walk_reopens_a_folder_whose_descriptor_it_closed(deep_tmp):
    middle = nest(deep_tmp, [f"m{i}" for i in range(100)])
    nest(Path(os.fsdecode(middle)), ["a"] * 200)
    nest(Path(os.fsdecode(middle)), ["b"])
    write_at(middle + b"/b", "late.py", b"found after coming back up")
    with limited_descriptors(128), deadline(30):
        contents = {}
        for folder in safefs.walk(deep_tmp):
            for entry in folder.entries:
                if entry.name == "late.py":
                    contents[folder.rel_of(entry.name)] = safefs.read_regular((folder.fd, entry.name), 100)
    assert contents == {"/".join([f"m{i}" for i in range(100)] + ["b", "late.py"]): b"found after coming back up"}


def test_names_beyond_path_max_and_not_utf8(deep_tmp):
    names = [chr(ord("a") + i) * 250 for i in range(20)]
    bottom = nest(deep_tmp, [*names, b"\xff\xfe"])
    write_at(bottom, "x.py", b"far")
    assert len(bottom) > os.pathconf("/", "PC_PATH_MAX")
    with deadline(30):
        found = listing(deep_tmp)
        safefs.copy_tree(deep_tmp, deep_tmp.parent / "copy")
        copied = listing(deep_tmp.parent / "copy")
        safefs.remove_tree(deep_tmp.parent / "copy")
    leaf = "/".join([*names, os.fsdecode(b"\xff\xfe"), "x.py"])
    assert found[leaf] == ("file", b"far", 0o644)
    assert copied == found
    assert not (deep_tmp.parent / "copy").exists()


def test_walk_never_follows_a_link_not_even_its_root(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "secret").write_text("x")
    (tmp_path / "link").symlink_to("real")
    folders = list(safefs.walk(tmp_path / "link"))
    assert [(folder.rel, folder.entries, folder.fd) for folder in folders] == [("", [], None)]
    assert isinstance(folders[0].error, OSError)


def test_a_fifo_is_never_opened(tmp_path):
    fifo = tmp_path / "test_fifo.py"
    os.mkfifo(fifo)
    writer_done = threading.Event()

    def writer():  # opening a FIFO to write waits until someone opens it to read
        with open(fifo, "wb"):
            writer_done.set()

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    with deadline(10):
        assert safefs.read_regular(fifo, 100) is None
        assert safefs.read_regular((os.open(tmp_path, os.O_RDONLY), "test_fifo.py"), 100) is None
        assert not writer_done.wait(0.3)  # read_regular never opened it
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # let the writer go
        thread.join()


def test_something_swapped_in_after_the_look_is_neither_waited_on_nor_followed(tmp_path, monkeypatch):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "real.txt").write_text("secret")
    (tmp_path / "link").symlink_to("real.txt")
    regular = os.stat(tmp_path / "real.txt")
    monkeypatch.setattr(safefs.os, "stat", lambda *args, **kwargs: regular)  # the look says: a file
    with deadline(10):
        assert safefs.read_regular(tmp_path / "fifo", 100) is None
        assert safefs.read_regular(tmp_path / "link", 100) is None


def test_read_regular_reads_at_most_the_cap(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 5_000_000)
    assert safefs.read_regular(tmp_path / "big", 3_000_001) == b"x" * 3_000_001
    assert safefs.read_regular(tmp_path / "missing", 10) is None
    assert safefs.read_regular(tmp_path, 10) is None


def test_copy_tree_keeps_links_and_modes_and_leaves_out_fifos_sockets_devices(tmp_path, monkeypatch):
    src = tmp_path / "src"
    (src / "pkg" / "__pycache__").mkdir(parents=True)
    (src / "pkg" / "__pycache__" / "m.pyc").write_bytes(b"cache")
    (src / "pkg" / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(src / "pkg" / "run.sh", 0o755)
    (src / "suid").write_text("x")
    os.chmod(src / "suid", 0o4755)
    os.utime(src / "suid", ns=(1, 1_000_000_007))
    (src / "env").symlink_to("/proc/self/environ")
    (src / "dangling").symlink_to("nowhere")
    (src / "loop").symlink_to("loop")
    os.mkfifo(src / "fifo")
    os.mknod(src / "null", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    monkeypatch.chdir(src)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("sock")
        with deadline(10):
            safefs.copy_tree(src, tmp_path / "dst", skip_names={"__pycache__"})
    assert listing(tmp_path / "dst") == {
        "pkg": (stat.S_IFDIR,),
        "pkg/run.sh": ("file", b"#!/bin/sh\n", 0o755),
        "suid": ("file", b"x", 0o755),
        "env": ("link", "/proc/self/environ"),
        "dangling": ("link", "nowhere"),
        "loop": ("link", "loop"),
    }
    assert os.stat(tmp_path / "dst" / "suid").st_mtime_ns == 1_000_000_007


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
def test_copy_tree_gives_the_copy_to_its_owner_and_links_what_it_diverts(tmp_path):
    src = tmp_path / "src"
    (src / "app" / ".venv" / "lib").mkdir(parents=True)
    (src / "app" / ".venv" / "lib" / "site.py").write_text("x")
    (src / "app" / "main.py").write_text("main")
    (src / "app" / "link").symlink_to("main.py")
    diverted = []

    def divert(rel, folder_fd, entry):
        diverted.append((rel, stat.S_ISDIR(os.stat(entry.name, dir_fd=folder_fd).st_mode)))
        return "/the/original/app/.venv" if entry.name == ".venv" else None

    top = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        safefs.copy_tree((top, "src"), (top, "dst"), owner=(65531, 65530), divert=divert)
    finally:
        os.close(top)
    assert diverted == [("app", True), ("app/.venv", True)]  # folders only, and none below a diverted one
    assert listing(tmp_path / "dst") == {
        "app": (stat.S_IFDIR,),
        "app/.venv": ("link", "/the/original/app/.venv"),
        "app/main.py": ("file", b"main", 0o644),
        "app/link": ("link", "main.py"),
    }
    copied = [tmp_path / "dst", *(tmp_path / "dst").rglob("*")]
    assert {(os.lstat(path).st_uid, os.lstat(path).st_gid) for path in copied} == {(65531, 65530)}


def test_remove_tree_by_its_folder_and_name(tmp_path):
    (tmp_path / "gone").mkdir()
    nest(tmp_path / "gone", ["d"] * 200)
    top = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        safefs.remove_tree((top, "gone"))
        safefs.remove_tree((top, "missing"))
    finally:
        os.close(top)
    assert list(tmp_path.iterdir()) == []


def test_copy_tree_keeps_holes(tmp_path):
    (tmp_path / "src").mkdir()
    with open(tmp_path / "src" / "sparse", "wb") as out:
        out.truncate(2 * 2**30)
        out.seek(2**30)
        out.write(b"middle")
    with deadline(20):
        safefs.copy_tree(tmp_path / "src", tmp_path / "dst")
    copied = os.stat(tmp_path / "dst" / "sparse")
    assert copied.st_size == 2 * 2**30 and copied.st_blocks * 512 < 2**20
    with open(tmp_path / "dst" / "sparse", "rb") as copy:
        copy.seek(2**30 - 2)
        assert copy.read(10) == b"\0\0middle\0\0"


def test_copy_tree_refuses_a_folder_it_cannot_read(shared_tmp):
    (shared_tmp / "src" / "locked").mkdir(parents=True)
    os.chown(shared_tmp / "src", 65534, 65534)
    os.chmod(shared_tmp / "src" / "locked", 0)
    result = as_nobody(safefs.copy_tree, shared_tmp / "src", shared_tmp / "dst")
    assert result == "raised PermissionError(13, 'Permission denied')"


def test_walk_reports_a_folder_it_cannot_open(shared_tmp):
    (shared_tmp / "locked").mkdir()
    os.chmod(shared_tmp / "locked", 0)
    result = as_nobody(lambda: [(f.rel, f.fd is None, f.error and f.error.errno) for f in safefs.walk(shared_tmp)])
    assert result == repr([("", False, None), ("locked", True, 13)])


def test_remove_tree_at_any_depth(tmp_path):
    nest(tmp_path, ["d"] * 1500)
    nest(tmp_path, [chr(ord("a") + i) * 250 for i in range(20)])
    with limited_descriptors(128), deadline(60):
        safefs.remove_tree(tmp_path)
    assert not tmp_path.exists()


def test_remove_tree_opens_up_folders_a_candidate_locked(shared_tmp):
    top = shared_tmp / "work"
    for locked in ("none", "read-only"):
        (top / locked / "inner").mkdir(parents=True)
        (top / locked / "inner" / "f").write_text("x")
    for path in [top, *top.rglob("*")]:
        os.chown(path, 65534, 65534)
    os.chmod(top / "none", 0)
    os.chmod(top / "read-only", 0o500)
    os.chmod(top, 0o500)
    assert as_nobody(safefs.remove_tree, top) == "None"
    assert not top.exists()


def test_remove_tree_of_a_file_a_link_or_nothing(tmp_path):
    (tmp_path / "target").write_text("kept")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    safefs.remove_tree(tmp_path / "link")
    safefs.remove_tree(tmp_path / "missing")
    assert [p.name for p in tmp_path.iterdir()] == ["target"]
    safefs.remove_tree(tmp_path / "target")
    assert list(tmp_path.iterdir()) == []


def test_give_back_changes_the_owner_of_what_is_ours_and_never_follows_a_link(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("not in the workspace")
    work = tmp_path / "work"
    (work / ".git" / "objects").mkdir(parents=True)
    (work / ".git" / "objects" / "ab").write_text("object")
    (work / "target.py").write_text("code")
    (work / "link").symlink_to(outside)
    os.chown(work / "target.py", 1001, 1001)  # already the owner's: left alone
    assert safefs.give_back(work, 1001, 1002, os.geteuid()) == 5  # work, .git, objects, ab, link
    owners = {path.name: (os.lstat(path).st_uid, os.lstat(path).st_gid) for path in [work, *work.rglob("*")]}
    assert set(owners.values()) == {(1001, 1002), (1001, 1001)}
    assert os.stat(outside).st_uid == os.geteuid()  # the link's target is not the workspace's


def test_read_text_is_a_regular_file_s_utf_8_text_within_its_cap(tmp_path):
    (tmp_path / "a.txt").write_text("héllo")
    (tmp_path / "b.bin").write_bytes(b"\xff\xfe")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link").symlink_to(tmp_path / "a.txt")
    assert safefs.read_text(str(tmp_path / "a.txt"), 6) == "héllo"  # 6 bytes in UTF-8
    assert safefs.read_text(str(tmp_path / "a.txt"), 5) is None
    assert [safefs.read_text(str(tmp_path / name), 100) for name in ("b.bin", "fifo", "link", "none")] == [None] * 4
