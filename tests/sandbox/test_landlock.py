"""The landlock tier's guards, each alone: a child confined as a test run is (Landlock, the seccomp
filter, or both) tries what a candidate who has read autofix's source would. The child runs as
root, so no file permission or uid stands in for the guard: taking the guard away lets it through.
"""

import ctypes
import errno
import os
import socket
import subprocess
import sys
import uuid
from dataclasses import replace

import pytest
from test_sandbox import private_tmp  # noqa: F401 - a fixture

from bot.judge.validate import python_paths
from bot.sandbox import landlock
from bot.sandbox.tiers import Limits, allowed_environ, open_sandbox

PR_SET_NO_NEW_PRIVS = 38
PTRACE_ATTACH, PTRACE_DETACH = 16, 17
CLONE_NEWUSER = 0x10000000
libc = ctypes.CDLL(None, use_errno=True)


def in_child(confined, action) -> str:
    """`action` in a forked child under `confined` (None: unconfined): "allowed", or the errno's name."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report and leave, whatever happens
        try:
            os.close(read)
            libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
            if confined is not None:
                confined.apply()
            try:
                action()
                said = "allowed"
            except OSError as exc:
                said = errno.errorcode.get(exc.errno or 0, str(exc))
        except BaseException as exc:  # noqa: BLE001 - a forked child never returns into pytest
            said = f"broken: {exc!r}"
        os.write(write, said.encode())
        os._exit(0)
    os.close(write)
    try:
        return os.read(read, 1000).decode()
    finally:
        os.close(read)
        os.waitpid(pid, 0)


@pytest.fixture
def rules(tmp_path):
    """What a run of the tier gets: its work folder writable, the original checkout out of reach."""
    work = tmp_path / "work"
    work.mkdir()
    original = tmp_path / "original"
    (original / ".git").mkdir(parents=True)
    (original / ".git" / "config").write_text("[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n")
    confined = landlock.confinement([str(path) for path in python_paths()], [str(work)])
    yield confined, work, original
    confined.close()


def landlock_only(confined):
    return replace(confined, fprog=None)


def seccomp_only(confined):
    return replace(confined, ruleset_fd=None)


def test_this_kernel_has_landlock():
    assert landlock.unusable() is None and landlock.abi_version() >= 6  # the CI machine: ABI 7


def test_the_original_checkout_and_its_credentials_are_unreadable(rules):
    confined, work, original = rules
    steal = (original / ".git" / "config").read_text
    assert in_child(None, steal) == "allowed"
    assert in_child(confined, steal) == "EACCES"
    assert in_child(seccomp_only(confined), steal) == "allowed"  # only Landlock guards files
    assert in_child(confined, lambda: (work / "out.txt").write_text("mine")) == "allowed"


def test_no_connection_reaches_a_listener_on_the_loopback(rules):
    confined = rules[0]
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        connect = lambda: socket.create_connection(("127.0.0.1", port), timeout=5).close()  # noqa: E731
        assert in_child(None, connect) == "allowed"
        assert in_child(confined, connect) == "EAFNOSUPPORT"  # no socket but unix at all
        assert in_child(landlock_only(confined), connect) == "EACCES"  # ABI 4: TCP connect refused
        assert in_child(seccomp_only(confined), connect) == "EAFNOSUPPORT"
        udp = lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", port))  # noqa: E731
        assert in_child(confined, udp) == "EAFNOSUPPORT"  # what Landlock leaves open, the filter closes


@pytest.fixture
def service(private_tmp):
    """A root service's unix socket, mode 0666, where any uid may reach it (as in /tmp or /run)."""
    path = private_tmp / "service.sock"
    private_tmp.chmod(0o755)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        path.chmod(0o666)
        listener.listen(8)
        listener.settimeout(0)
        yield str(path), listener


def test_no_unix_socket_reaches_a_service_that_listens_by_path(rules, service):
    """Landlock doesn't mediate connect() on a pathname socket: only the filter, which refuses
    socket() itself for AF_UNIX, keeps the run from it."""
    confined = rules[0]
    path, _ = service

    def connect(kind=socket.SOCK_STREAM) -> None:
        with socket.socket(socket.AF_UNIX, kind) as client:
            client.connect(path)

    assert in_child(None, connect) == "allowed"
    assert in_child(landlock_only(confined), connect) == "allowed"  # what Landlock leaves open
    assert in_child(confined, connect) == "EPERM"
    for kind in (socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
        assert in_child(confined, lambda kind=kind: connect(kind)) == "EPERM"


def test_a_socketpair_and_a_multiprocessing_pipe_still_work(rules):
    confined = rules[0]

    def pair() -> None:
        import multiprocessing

        left, right = socket.socketpair()
        left.sendall(b"ping")
        assert right.recv(4) == b"ping"
        one, other = multiprocessing.Pipe()  # a socketpair beneath
        one.send({"a": 1})
        assert other.recv() == {"a": 1}

    assert in_child(confined, pair) == "allowed"


def test_autofix_cannot_be_signalled(rules):
    confined = rules[0]
    parent = os.getpid()
    signal = lambda: os.kill(parent, 0)  # noqa: E731
    assert in_child(None, signal) == "allowed"
    assert in_child(confined, signal) == "EPERM"  # ABI 6: signals scoped to the run's own processes
    assert in_child(seccomp_only(confined), signal) == "allowed"


def test_no_process_can_be_traced_or_read(rules):
    confined = rules[0]
    victim = subprocess.Popen(["sleep", "60"])
    try:

        def attach() -> None:
            if libc.ptrace(PTRACE_ATTACH, victim.pid, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "ptrace")
            libc.ptrace(PTRACE_DETACH, victim.pid, 0, 0)

        assert in_child(None, attach) == "allowed"
        assert in_child(confined, attach) == "EPERM"
        # Each guard alone holds: Landlock keeps ptrace inside the run's domain, the filter refuses it.
        assert in_child(landlock_only(confined), attach) == "EPERM"
        assert in_child(seccomp_only(confined), attach) == "EPERM"
    finally:
        victim.kill()
        victim.wait()


def test_namespaces_are_refused(rules):
    confined = rules[0]

    def unshare() -> None:
        if libc.unshare(CLONE_NEWUSER) != 0:
            raise OSError(ctypes.get_errno(), "unshare")

    assert in_child(confined, unshare) == "EPERM"
    assert in_child(landlock_only(confined), unshare) == "allowed"


AS_IN_A_CONTAINER = """
import ctypes, sys
from dataclasses import replace
from bot.judge.validate import python_paths
from bot.sandbox import landlock
from bot.sandbox.tiers import open_sandbox
# What Docker's default seccomp profile does to autofix: no user namespaces (this filter refuses
# unshare and clone with CLONE_NEW*), and Landlock allowed.
ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)
replace(landlock.confinement([], []), ruleset_fd=None).apply()
sandbox = open_sandbox("auto", readable=python_paths())
print(sandbox.tier)
print(sandbox.declined)
print(sandbox.describe())
"""


def test_auto_takes_landlock_where_user_namespaces_are_refused_and_says_why():
    done = subprocess.run([sys.executable, "-c", AS_IN_A_CONTAINER], capture_output=True, text=True, timeout=60)
    tier, declined, described = done.stdout.splitlines()
    assert tier == "landlock", done.stderr
    assert declined.startswith("bwrap: No permissions to create new namespace")  # bwrap's own words
    assert described.startswith("landlock (ABI 7: files and TCP restricted; signals and abstract sockets scoped; ")


CLIENT = """
import errno, multiprocessing, socket, sys
try:
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(sys.argv[1])
        print("connected")
except OSError as exc:
    print("refused:", errno.errorcode[exc.errno])
left, right = socket.socketpair()
left.sendall(b"ping")
one, other = multiprocessing.Pipe()
one.send(right.recv(4))
print("pipes:", other.recv().decode())
"""


def test_a_landlock_run_cannot_reach_a_root_service_in_tmp_and_its_pipes_work(private_tmp):
    path = f"/tmp/autofix-test-{uuid.uuid4().hex}.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(path)
        try:
            os.chmod(path, 0o666)
            listener.listen(8)
            work = private_tmp / "work"
            work.mkdir()
            sandbox = open_sandbox("landlock", readable=python_paths())
            outcome = sandbox.run(
                [sys.executable, "-c", CLIENT, path], work, allowed_environ(), Limits(wall_seconds=20)
            )
        finally:
            os.unlink(path)
    assert outcome.returncode == 0, outcome.output
    assert outcome.output.splitlines() == ["refused: EPERM", "pipes: ping"]
