"""The process tier leaves nothing of a run behind: no file of its uid in any shared temp dir
(at any depth), no POSIX shared memory, semaphore or message queue, no SysV IPC object, no
process.  (bwrap needs no cleanup: its /tmp, /dev/shm and IPC namespace die with it.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

from test_sandbox import private_tmp, python_readable, requires_root, workdir  # noqa: F401

from bot.sandbox.state import SHARED_TMP, mqueue_dir
from bot.sandbox.tiers import Limits, _ProcessSandbox, allowed_environ, open_sandbox

pytestmark = requires_root

LEAVE_EVERYTHING = """
    import ctypes, ctypes.util, json, os, sys, _multiprocessing, _posixshmem
    token, shared = sys.argv[1:]
    libc = ctypes.CDLL(None, use_errno=True)
    IPC_PRIVATE, IPC_CREAT, IPC_SET, IPC_STAT = 0, 0o1000, 1, 2
    made = {}
    made["shm"] = libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o600)
    made["sem"] = libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600)
    made["msg"] = libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)
    # a queue given away to root (IPC_SET of its owner): its creator is still the run's uid
    made["msg given away"] = libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)
    perm = ctypes.create_string_buffer(256)
    assert libc.msgctl(made["msg given away"], IPC_STAT, perm) == 0
    ctypes.c_uint32.from_buffer(perm, 4).value = 0          # struct ipc_perm: key, uid, ...
    assert libc.msgctl(made["msg given away"], IPC_SET, perm) == 0
    assert all(v >= 0 for v in made.values()), made
    _posixshmem.shm_open(f"/{token}-shm", os.O_CREAT | os.O_RDWR, 0o600)
    _multiprocessing.SemLock(1, 1, 1, f"/{token}-sem", False)    # /dev/shm/sem.*, kept
    mq_open = getattr(libc, "mq_open", None) or ctypes.CDLL(ctypes.util.find_library("rt")).mq_open
    made["mq"] = mq_open(f"/{token}-mq".encode(), os.O_CREAT | os.O_RDWR, 0o600, None)
    os.makedirs(f"/tmp/{token}/x/y/z")
    open(f"/tmp/{token}/x/y/z/f", "w").write("x")
    os.makedirs(f"{shared}/a/b/c")                  # deep in a world-writable folder of root
    open(f"{shared}/a/b/c/f", "w").write("x")
    open(f"{shared}/top-file", "w").write("x")
    open(f"/dev/shm/{token}-file", "w").write("x")
    open(f"/run/lock/{token}", "w").write("x")
    open(f"/var/tmp/{token}", "w").write("x")
    os.mkfifo(f"/tmp/{token}-fifo")
    print(json.dumps({"uid": os.getuid(), **made}), flush=True)
    if os.fork() == 0:                              # and a process that would stay
        os.setsid()
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", token])
"""


def sysv_of(uid: int) -> list[str]:
    found = []
    for kind in ("shm", "sem", "msg"):
        header, *rows = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        columns = header.split()
        for row in rows:
            fields = dict(zip(columns, row.split(), strict=False))
            if str(uid) in (fields["uid"], fields["cuid"]):
                found.append(f"{kind} {row}")
    return found


def files_of(uid: int, places) -> list[bytes]:
    # The uid (no groups) makes files only in world-writable folders and its own: find prunes
    # the rest, or it would walk every other test's temp files under /tmp.
    closed = ["-type", "d", "!", "-perm", "-o+w", "!", "-uid", str(uid), "-prune"]
    argv = ["find", *places, "-xdev", "(", *closed, ")", "-o", "-uid", str(uid), "-print0"]
    found = subprocess.run(argv, capture_output=True).stdout
    return [p for p in found.split(b"\0") if p]


def procs_of(uid: int) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                found.append(pid)
        except FileNotFoundError:  # another process that ended since the listing: not the uid's
            continue
    return found


def test_process_tier_leaves_nothing_of_the_run_behind(workdir):
    uid = 64980  # a uid of its own: nothing else on the machine uses it
    sb = open_sandbox("process", python_readable(), uid=uid)
    token = f"autofix-test-{uuid.uuid4().hex}"
    shared = Path(f"/tmp/{token}-shared")  # as a sticky /tmp/.X11-unix is
    shared.mkdir()
    shared.chmod(0o1777)
    try:
        out = sb.run(
            [sys.executable, "-c", textwrap.dedent(LEAVE_EVERYTHING), token, str(shared)],
            workdir,
            allowed_environ(),
            Limits(wall_seconds=30),
        )
        assert out.returncode == 0, out.output
        made = json.loads(out.output)
        assert made["uid"] == uid and made["mq"] >= 0, made
        queues = mqueue_dir()
        assert queues is not None  # found or mounted (autofix is root)
        places = [*SHARED_TMP, queues]
        assert files_of(uid, places) == []
        assert sysv_of(uid) == []
        assert procs_of(uid) == []
        assert shared.is_dir() and list(shared.iterdir()) == []  # root's folder stays
    finally:
        subprocess.run(["rm", "-rf", "--", str(shared)], check=True)


MQ_OPEN = """
    import ctypes, ctypes.util, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    mq_open = getattr(libc, "mq_open", None) or ctypes.CDLL(ctypes.util.find_library("rt"),
                                                           use_errno=True).mq_open
    fd = mq_open(f"/{sys.argv[1]}".encode(), os.O_CREAT | os.O_RDWR, 0o600, None)
    print("OPENED" if fd >= 0 else os.strerror(ctypes.get_errno()))
"""


def test_without_an_mqueue_filesystem_no_queue_can_be_made(workdir):
    # where autofix finds no mqueue filesystem to clean (and may not mount one), a queue
    # it could not remove must not be made at all
    sb = open_sandbox("process", python_readable(), uid=64981)
    sb._no_mqueue = True  # as when mqueue_dir() found none
    token = f"autofix-test-{uuid.uuid4().hex}"
    out = sb.run(
        [sys.executable, "-c", textwrap.dedent(MQ_OPEN), token], workdir, allowed_environ(), Limits(wall_seconds=20)
    )
    assert out.returncode == 0, out.output
    assert out.output.strip() == os.strerror(24), out.output  # EMFILE: RLIMIT_MSGQUEUE
    assert not os.path.exists(os.path.join(mqueue_dir(), f"{token}"))


def test_a_uid_running_processes_autofix_did_not_start_is_passed_over(workdir):
    """An autofix in a container keeps its uid locks where the host's can't see them, but the
    host sees its processes: a host run that took the same uid would kill them all at its end
    (kill(-1) as the uid). Seen as spurious SIGKILLs of a container's checks while the host's
    test suite ran. The host passes such a uid over; the other process lives on."""
    foreign_uid, free_uid = 61_017, 61_016  # outside the default pool: no other test takes them
    foreign = subprocess.Popen(["sleep", "60"], user=foreign_uid, group=foreign_uid)
    try:
        sandbox = _ProcessSandbox(tuple(Path(p) for p in python_readable()), (foreign_uid, free_uid))
        outcome = sandbox.run(["id", "-u"], workdir, allowed_environ(), Limits(wall_seconds=20))
        assert (outcome.returncode, outcome.output.strip()) == (0, str(free_uid))
        assert foreign.poll() is None  # still running: never swept with the run's uid
    finally:
        foreign.kill()
        foreign.wait()


LEAVE_IPC = """
    import ctypes, json, os, sys, _posixshmem
    token = sys.argv[1]
    libc = ctypes.CDLL(None, use_errno=True)
    IPC_PRIVATE, IPC_CREAT = 0, 0o1000
    made = {
        "shm": libc.shmget(IPC_PRIVATE, 64 * 2**20, IPC_CREAT | 0o600),
        "sem": libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600),
        "msg": libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600),
    }
    assert all(v >= 0 for v in made.values()), made
    _posixshmem.shm_open(f"/{token}-shm", os.O_CREAT | os.O_RDWR, 0o600)
    open(f"/dev/shm/{token}-file", "w").write("x")
    print(json.dumps({"uid": os.getuid(), **made}), flush=True)
    if os.fork() == 0:  # and a process that would stay
        os.setsid()
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", token])
"""


def test_landlock_tier_leaves_no_ipc_object_file_or_process_behind(workdir):
    """Landlock shares the host's IPC namespace and /dev/shm as the process tier does: a 64 MiB
    SysV segment, a semaphore set, a message queue, a POSIX shm and a file stayed otherwise."""
    uid = 64982
    sb = open_sandbox("landlock", python_readable(), uid=uid)
    token = f"autofix-test-{uuid.uuid4().hex}"
    out = sb.run(
        [sys.executable, "-c", textwrap.dedent(LEAVE_IPC), token], workdir, allowed_environ(), Limits(wall_seconds=30)
    )
    assert out.returncode == 0, out.output
    made = json.loads(out.output)
    assert made["uid"] == uid, made
    assert sysv_of(uid) == []
    assert files_of(uid, SHARED_TMP) == []
    assert procs_of(uid) == []
