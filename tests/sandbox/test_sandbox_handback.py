"""The workdir is handed back, and a crashed run undone, whatever shape the candidate left.

A candidate has read autofix's source: it knows the workdir is chowned back after the run.
A deep tree and long names crashed that walk (RecursionError, ENAMETOOLONG), leaving the
workdir and the uid's journal behind, and the next run's recovery crashed too; the other
shapes guard what the walk must never do (open a FIFO, follow a link, lose a name that is not
UTF-8, hand a hard-linked file to root).  Tree checks use find(1) and rm(1), which handle
any depth, as independent witnesses.

Runs use a dedicated uid per test (a pool of one, outside the default pool), so the uid's
journal and files can be checked without other runs on the machine taking that uid.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import uuid
from pathlib import Path

import pytest
from test_sandbox import (  # noqa: F401 - private_tmp, workdir: fixtures
    ISOLATING,
    private_tmp,
    python_readable,
    requires_root,
    token_procs,
    wait_until,
    workdir,
)

from bot.sandbox.state import _state_dir
from bot.sandbox.tiers import Limits, allowed_environ, open_sandbox

pytestmark = requires_root

_sandboxes: dict[str, object] = {}


def dedicated(tier: str, test: str):
    """A sandbox of ``tier`` with a uid of its own for ``test``, the same in every process
    (pytest -n runs these tests side by side)."""
    key = f"{tier} {test}"
    if key not in _sandboxes:
        uid = 64900 + sorted(USES).index(key)
        _sandboxes[key] = open_sandbox(tier, python_readable(), uid=uid)
    return _sandboxes[key]


def journal(sb) -> Path:
    return Path(_state_dir()) / f"uid-{sb.uid}.journal"


def not_ours(path: Path) -> list[bytes]:
    """Every entry below ``path`` (itself included) not owned by autofix's uid and gid."""
    found = subprocess.run(
        ["find", str(path), "(", "!", "-uid", str(os.getuid()), "-o", "!", "-gid", str(os.getgid()), ")", "-print0"],
        capture_output=True,
        check=True,
    ).stdout
    return [p for p in found.split(b"\0") if p]


def count(path: Path) -> int:
    return subprocess.run(["find", str(path), "-printf", "."], capture_output=True, check=True).stdout.count(b".")


def run_py(sb, code: str, wd: Path, *args: str, limits: Limits | None = None):
    if limits is None:
        limits = Limits(wall_seconds=30)
    return sb.run([sys.executable, "-c", textwrap.dedent(code), *args], wd, allowed_environ(), limits)


SHAPES = {
    # 1,500 nested folders: os.walk recursed once per level
    "deep": """
        import os
        for _ in range(1500):
            os.mkdir("d")
            os.chdir("d")
        open("leaf", "w").write("x")
    """,
    # 20 nested folders of 250-character names: paths far beyond PATH_MAX
    "long names": """
        import os
        for i in range(20):
            name = f"{i:03d}" + "n" * 247
            os.mkdir(name)
            os.chdir(name)
        open("leaf", "w").write("x")
    """,
    "not UTF-8": """
        import os
        os.mkdir(b"\\xff\\xfe-folder")
        open(b"\\xff\\xfe-folder/\\xc3\\x28-file", "w").write("x")
        os.symlink(b"/etc/\\xff", b"link-\\xff")
    """,
    # never opened: an open would block on the FIFO, or fail on the socket
    "FIFO and socket": """
        import os, stat
        os.mkdir("sub")
        os.mkfifo("fifo")
        os.mkfifo("sub/fifo")
        os.mknod("sock", 0o600 | stat.S_IFSOCK)  # a socket's file, as bind() leaves it (landlock refuses socket())
    """,
}


USES = {
    f"{tier} {test}"
    for tier in ("bwrap", "landlock", "process")
    for test in ("crash", "mount", *(f"shape {shape}" for shape in SHAPES))
}
USES |= {"process launder", "process root link", "process journal", "process lent crash"}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("tier", ISOLATING)
def test_any_tree_shape_is_handed_back(tier, shape, workdir):
    sb = dedicated(tier, "shape " + shape)
    result = []
    runner = threading.Thread(target=lambda: result.append(run_py(sb, SHAPES[shape], workdir)), daemon=True)
    runner.start()
    runner.join(60)
    assert not runner.is_alive(), "run() hangs on the tree the candidate left"
    (out,) = result
    assert out.returncode == 0, out.output
    assert count(workdir) > 3  # the shape is there...
    assert not_ours(workdir) == []  # ...and all of it is autofix's again
    assert not journal(sb).exists()  # the run is over: nothing left to recover


LAUNDER = """
    import os, sys
    outside = sys.argv[1]
    open(outside, "w").write("planted")           # the run's own file, outside the workdir
    os.link(outside, "laundered")                 # and a second name for it in the workdir
    print("LINKED", os.getuid())
"""


def test_a_hard_link_cannot_hand_a_file_of_the_run_to_root(workdir):
    # Were "laundered" chowned back to root, the file in /tmp would be root's: the cleanup
    # (of the uid's files) would leave it, and it would outlive the run, owned by root.
    sb = dedicated("process", "launder")
    outside = Path(f"/tmp/autofix-test-{uuid.uuid4().hex}")
    try:
        out = run_py(sb, LAUNDER, workdir, str(outside))
        assert out.output.startswith("LINKED"), out.output
        assert not outside.exists() or outside.stat().st_uid != 0
        assert (workdir / "laundered").stat().st_uid != 0
    finally:
        outside.unlink(missing_ok=True)


def test_a_root_file_linked_from_outside_stays_root_and_unchanged(workdir, tmp_path):
    secret = tmp_path / "root-owned.txt"
    secret.write_text("root's")
    secret.chmod(0o644)
    os.link(secret, workdir / "linked")
    sb = dedicated("process", "root link")
    out = run_py(
        sb,
        """
        import os
        try:
            open("linked", "w").write("pwned")
            print("WRITTEN")
        except OSError as e:
            print(type(e).__name__)
    """,
        workdir,
    )
    assert out.output == "PermissionError\n", out.output
    st = secret.stat()
    assert (st.st_uid, st.st_gid) == (0, 0) and secret.read_text() == "root's"


@pytest.mark.parametrize("tier", ISOLATING)
def test_another_filesystem_mounted_in_the_workdir_is_left_alone(tier, workdir):
    mounted = workdir / "mnt"
    mounted.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=755", "tmpfs", str(mounted)], check=True)
    try:
        (mounted / "file").write_text("root's")
        out = run_py(
            dedicated(tier, "mount"),
            """
            for path in ("mnt/file", "mnt/new"):
                try:
                    open(path, "w").write("pwned")
                    print("WRITTEN", path)
                except OSError as e:
                    print(type(e).__name__)
        """,
            workdir,
        )
        assert out.output == "PermissionError\nPermissionError\n", out.output
        assert (mounted / "file").read_text() == "root's"
        assert not_ours(mounted) == []
    finally:
        subprocess.run(["umount", str(mounted)], check=True)


CRASHING_AUTOFIX = """
import sys
from pathlib import Path
from bot.sandbox.tiers import Limits, allowed_environ, open_sandbox
tier, uid, workdir, token, code, *readable = sys.argv[1:]
sb = open_sandbox(tier, readable, uid=int(uid))
sb.run([sys.executable, "-c", code, token], Path(workdir), allowed_environ(), Limits())
"""

# every shape side by side, then the run hangs until autofix dies
ALL_SHAPES = (
    "import os, time\ntop = os.getcwd()\n"
    + "".join(textwrap.dedent(code) + "os.chdir(top)\n" for code in SHAPES.values())
    + 'open("started", "w").write("yes")\ntime.sleep(60)\n'
)


@pytest.mark.parametrize("tier", ISOLATING)
def test_a_crashed_run_with_any_tree_is_undone_by_the_next(tier, workdir):
    sb = dedicated(tier, "crash")
    token = f"autofix-test-{uuid.uuid4().hex}"
    autofix = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CRASHING_AUTOFIX,
            tier,
            str(sb.uid),
            str(workdir),
            token,
            ALL_SHAPES,
            *python_readable(),
        ],
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert wait_until(lambda: (workdir / "started").exists() or autofix.poll() is not None, 60)
        assert autofix.poll() is None
    finally:
        autofix.kill()  # autofix dies mid-run
        autofix.wait()
    assert journal(sb).exists() and not_ours(workdir) != []
    fresh = workdir.parent / "fresh"
    fresh.mkdir()
    out = sb.run(["/bin/sh", "-c", "echo ok"], fresh, allowed_environ(), Limits())
    assert out.returncode == 0 and out.output == "ok\n", out.output
    assert not_ours(workdir) == [] and count(workdir) > 1500
    assert not journal(sb).exists()
    assert token_procs(token) == []


def test_recovery_goes_on_past_a_journal_it_cannot_use(workdir, tmp_path):
    # A journal that names a symlink for the workdir (never followed), then one that is not
    # JSON (reported): neither blocks the runs after it.
    sb = dedicated("process", "journal")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "inside").write_text("x")
    for p in (victim, victim / "inside"):
        os.chown(p, sb.uid, sb.uid)
    (tmp_path / "link").symlink_to(victim)
    journal(sb).write_text(json.dumps({"workdir": str(tmp_path / "link"), "owner": [0, 0], "mode": 0o755}) + "\n")
    out = sb.run(["/bin/true"], workdir, allowed_environ(), Limits())
    assert out.returncode == 0, out.output
    assert {p.stat().st_uid for p in (victim, victim / "inside")} == {sb.uid}
    assert not journal(sb).exists()
    journal(sb).write_bytes(b"\xff not json")
    with pytest.warns(RuntimeWarning, match="unreadable journal"):
        out = sb.run(["/bin/true"], workdir, allowed_environ(), Limits())
    assert out.returncode == 0, out.output
    assert not journal(sb).exists()


CRASHING_LENDER = """
import sys
from pathlib import Path
from bot.sandbox.tiers import Kept, Limits, allowed_environ, keep_workdir, open_sandbox
uid, workdir, code, *readable = sys.argv[1:]
sb = open_sandbox("process", readable, uid=int(uid))
with sb.lease(None) as slot:  # as a judge keeps its scratch copy
    keep_workdir(Path(workdir), Kept(slot))
    sb.run([sys.executable, "-c", code], Path(workdir), allowed_environ(), Limits(), writable=[workdir + "/out"])
"""


def test_a_crashed_read_only_run_is_undone_by_the_next(private_tmp):
    """Its journal names what was lent: the top's group and mode and the lent folder come back."""
    sb = dedicated("process", "lent crash")
    work = private_tmp / "work"
    (work / "out").mkdir(parents=True)
    (work / "mod.py").write_text("VALUE = 1\n")
    hang = "import time\nopen('out/made', 'w').write('x')\nopen('out/started', 'w').write('yes')\ntime.sleep(60)\n"
    autofix = subprocess.Popen(
        [sys.executable, "-c", CRASHING_LENDER, str(sb.uid), str(work), hang, *python_readable()],
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert wait_until(lambda: (work / "out" / "started").exists() or autofix.poll() is not None, 60)
        assert autofix.poll() is None
        assert (work.stat().st_uid, work.stat().st_gid, work.stat().st_mode & 0o777) == (0, sb.uid, 0o750)
    finally:
        autofix.kill()  # autofix dies mid-run
        autofix.wait()
    assert journal(sb).exists() and sorted(not_ours(work)) == sorted(
        os.fsencode(p) for p in (work, work / "out", work / "out" / "made", work / "out" / "started")
    )
    fresh = private_tmp / "fresh"
    fresh.mkdir()
    out = sb.run(["/bin/sh", "-c", "echo ok"], fresh, allowed_environ(), Limits())
    assert out.returncode == 0 and out.output == "ok\n", out.output
    assert not_ours(work) == [] and work.stat().st_mode & 0o777 == 0o755
    assert not journal(sb).exists()
