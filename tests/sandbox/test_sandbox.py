"""Attacks on bot.sandbox with real processes (no mocks, no sleeps to wait).

Each test fails when the guard it attacks is taken out of bot/sandbox/
(checked by mutating the module).  Kill tests use small limits so the file
stays fast.  Runs of the sandbox go in parallel, each as its own uid.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
import warnings
from pathlib import Path

import pytest

from bot.sandbox.tiers import (
    Limits,
    SandboxWarning,
    allowed_environ,
    open_sandbox,
)

ROOT = os.geteuid() == 0
requires_root = pytest.mark.skipif(not ROOT, reason="a dedicated uid needs root")

# tiers whose isolation rests on the dedicated uid need root for the process tier
ISOLATING = ["bwrap", "landlock", pytest.param("process", marks=requires_root)]
ALL = ["bwrap", "landlock", "process", "none"]


def python_readable() -> list[str]:
    """What the validator passes: the Python prefixes, sys.path, the interpreter's dir."""
    paths = {sys.prefix, sys.base_prefix, os.path.dirname(sys.executable)}
    paths.update(p for p in sys.path if p and os.path.exists(p))
    return sorted(paths)


_sandboxes: dict[str, object] = {}


def get_sandbox(tier: str):
    if tier not in _sandboxes:
        if tier == "none":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SandboxWarning)
                _sandboxes[tier] = open_sandbox("none", python_readable())
        else:
            _sandboxes[tier] = open_sandbox(tier, python_readable())
    return _sandboxes[tier]


@pytest.fixture
def private_tmp():
    """A private temp dir (mode 700), as autofix makes them.  Not pytest's tmp_path: a pytest
    session starting elsewhere on the machine strips the o+x that a run was granted on
    /tmp/pytest-of-<user>, and the run could no longer reach its paths."""
    top = Path(tempfile.mkdtemp(prefix="autofix-test-"))
    yield top
    subprocess.run(["rm", "-rf", "--", str(top)], check=True)  # any depth a run left


@pytest.fixture
def workdir(private_tmp: Path) -> Path:
    wd = private_tmp / "work"
    wd.mkdir()
    return wd


def py(sb, code: str, wd: Path, limits: Limits | None = None, *args: str, env=None):
    if limits is None:
        limits = Limits(wall_seconds=20)
    argv = [sys.executable, "-c", textwrap.dedent(code), *args]
    return sb.run(argv, wd, allowed_environ() if env is None else env, limits)


def live_procs(pred) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as f:
                status = f.read()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        fields = dict(line.split(b":", 1) for line in status.splitlines() if b":" in line)
        if fields[b"State"].split()[0] in (b"Z", b"X"):
            continue
        uids = [int(x) for x in fields[b"Uid"].split()]
        if pred(uids, cmdline):
            found.append(int(name))
    return found


def sandbox_children() -> list[int]:
    """Children of this process (alive, exiting or zombie) that run as another uid."""
    me, uid, found = os.getpid(), os.getuid(), []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            owner = os.stat(f"/proc/{name}").st_uid
        except (OSError, ValueError):
            continue
        if int(stat[stat.rfind(b")") + 2 :].split()[1]) == me and owner != uid:
            found.append(int(name))
    return found


def token_procs(token: str) -> list[int]:
    return live_procs(lambda uids, cmd: token.encode() in cmd)


def wait_until(pred, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


# ---------------------------------------------------------------- environment


SECRETS = {
    "OPENAI_API_KEY": "sk-planted-openai",
    "GITHUB_TOKEN": "ghp_planted",
    "ACTIONS_RUNTIME_TOKEN": "planted-actions",
    "AWS_SECRET_ACCESS_KEY": "planted-aws",
    "SOME_PRIVATE_KEY": "planted-key",
    "LD_PRELOAD": "/tmp/planted.so",
    "PYTHONPATH": "/planted",
}


def test_allowed_environ_is_an_allowlist(monkeypatch):
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("LANG", "C.UTF-8")
    env = allowed_environ({"AUTOFIX_SPEC": "1"})
    assert set(env) <= {
        "PATH",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TZ",
        "TERM",
        "HOME",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED",
        "AUTOFIX_SPEC",
    }
    assert env["PATH"] == "/usr/bin:/bin" and env["LANG"] == "C.UTF-8"
    assert env["HOME"] == "/tmp"
    assert env["PYTHONDONTWRITEBYTECODE"] == env["PYTHONUNBUFFERED"] == "1"
    assert env["AUTOFIX_SPEC"] == "1"


@pytest.mark.parametrize("tier", ALL)
def test_command_gets_exactly_the_given_env(tier, workdir, monkeypatch):
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("LANG", "C.UTF-8")  # no locale coercion adding LC_CTYPE
    env = allowed_environ({"AUTOFIX_SPEC": "yes"})
    out = py(get_sandbox(tier), "import json, os; print(json.dumps(dict(os.environ)))", workdir, env=env)
    assert out.returncode == 0, out.output
    seen = json.loads(out.output)
    if tier == "landlock":  # a temporary folder of its own, and nothing else added
        private = seen.pop("TMPDIR")
        assert private.startswith("/tmp/autofix-tmp-") and seen["HOME"] == private
        seen["HOME"] = env["HOME"]
    assert seen == env
    for v in SECRETS.values():
        assert v not in out.output


# ---------------------------------------------------------------- network


@pytest.mark.parametrize("tier", ["bwrap", "landlock", "process"])
def test_loopback_listener_of_the_host(tier, workdir):
    sb = get_sandbox(tier)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        out = py(
            sb,
            """
            import socket, sys
            try:
                socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
                print("CONNECTED")
            except OSError as e:
                print("FAILED", e)
        """,
            workdir,
            Limits(wall_seconds=20),
            str(port),
        )
    assert out.returncode == 0, out.output
    if tier in ("bwrap", "landlock"):
        assert sb.network_isolated
        assert "FAILED" in out.output
    else:  # the flag is honest
        assert not sb.network_isolated
        assert "CONNECTED" in out.output


# ---------------------------------------------------------------- filesystem


@pytest.mark.parametrize("tier", ISOLATING)
def test_writes_land_only_in_workdir(tier, workdir, private_tmp):
    other = private_tmp / "other"
    other.mkdir()
    existing = other / "existing.txt"
    existing.write_text("original")
    host_target = Path("/work") / f"autofix-sandbox-test-{uuid.uuid4().hex}"
    venv_target = Path(sys.prefix) / f"autofix-sandbox-test-{uuid.uuid4().hex}"
    targets = [other / "pwned", existing, private_tmp / "pwned", host_target, venv_target]
    try:
        out = py(
            get_sandbox(tier),
            """
            import json, sys
            res = {}
            for p in sys.argv[1:] + ["inside.txt"]:
                try:
                    with open(p, "w") as f:
                        f.write("pwned")
                    res[p] = "written"
                except OSError as e:
                    res[p] = type(e).__name__
            print(json.dumps(res))
        """,
            workdir,
            Limits(wall_seconds=20),
            *map(str, targets),
        )
        assert out.returncode == 0, out.output
        assert json.loads(out.output)["inside.txt"] == "written"
        assert (workdir / "inside.txt").read_text() == "pwned"
        assert existing.read_text() == "original"
        for p in (other / "pwned", private_tmp / "pwned", host_target, venv_target):
            assert not p.exists(), f"sandbox wrote {p}"
    finally:
        for p in (host_target, venv_target):
            if p.exists():
                p.unlink()
    # the workdir and what the run created in it belong to the caller again
    for p in [workdir, *workdir.rglob("*")]:
        st = p.lstat()
        assert (st.st_uid, st.st_gid) == (os.getuid(), os.getgid()), p


@pytest.mark.parametrize("tier", ISOLATING)
def test_shared_temp_dirs_are_left_clean(tier, workdir):
    token = f"autofix-test-{uuid.uuid4().hex}"
    out = py(
        get_sandbox(tier),
        """
        import os, sys
        os.makedirs(f"/tmp/{sys.argv[1]}/deep")
        open(f"/tmp/{sys.argv[1]}/deep/f", "w").write("x")
        open(f"/tmp/{sys.argv[1]}.txt", "w").write("x")
        print("WROTE")
    """,
        workdir,
        Limits(wall_seconds=20),
        token,
    )
    if tier == "landlock":  # the shared folders are out of its reach: it has a folder of its own
        assert "PermissionError" in out.output and "WROTE" not in out.output, out.output
    else:
        assert out.output == "WROTE\n", out.output
    assert not Path(f"/tmp/{token}").exists() and not Path(f"/tmp/{token}.txt").exists()


@pytest.mark.parametrize("tier", ISOLATING)
def test_links_in_workdir_do_not_reach_out(tier, workdir, private_tmp):
    victim = private_tmp / "victim.txt"
    victim.write_text("victim")
    linked = private_tmp / "linked.txt"
    linked.write_text("linked")
    (workdir / "link").symlink_to(victim)  # chown must not follow it
    os.link(linked, workdir / "hardlink")  # nor give away a file linked from outside
    (workdir / "twin1").write_text("twin")
    os.link(workdir / "twin1", workdir / "twin2")  # linked only inside: the run's to write
    out = py(
        get_sandbox(tier),
        """
        for p in ("link", "hardlink", "twin2"):
            try:
                with open(p, "w") as f:
                    f.write("pwned")
                print(p, "written")
            except OSError as e:
                print(p, type(e).__name__)
    """,
        workdir,
    )
    assert out.returncode == 0, out.output
    assert victim.read_text() == "victim" and linked.read_text() == "linked"
    assert victim.stat().st_uid == os.getuid() and linked.stat().st_uid == os.getuid()
    assert "hardlink written" not in out.output
    assert "twin2 written" in out.output and (workdir / "twin1").read_text() == "pwned"
    if tier == "process":  # (in bwrap the link dangles into the sandbox's own /tmp)
        assert "link written" not in out.output


@pytest.mark.parametrize("tier", ISOLATING)
def test_host_secrets_outside_readable_are_unreachable(tier, workdir, private_tmp):
    private = private_tmp / "private"
    private.mkdir(mode=0o700)
    (private / "secret.txt").write_text("TOPSECRET-private")
    (private / "secret.txt").chmod(0o600)
    # world-readable, but in a directory others could not enter before the run
    shared = private_tmp / "shared"
    shared.mkdir(mode=0o755)
    (shared / "note.txt").write_text("TOPSECRET-note")
    (shared / "note.txt").chmod(0o644)
    candidates = [
        private / "secret.txt",
        shared / "note.txt",
        "/etc/shadow",
        "/root/.bash_history",
        "/root/.gitconfig",
        "/root/.bashrc",
    ]
    # (not /root: runs of other processes on this machine may hold it open)
    watched = [private_tmp, shared, shared / "note.txt", private]
    before = {p: os.stat(p).st_mode for p in watched}
    out = py(
        get_sandbox(tier),
        """
        import sys
        for p in sys.argv[1:]:
            try:
                with open(p) as f:
                    print("READ", p, f.read()[:40].replace("\\n", " "))
            except OSError as e:
                print("DENIED", p, type(e).__name__)
    """,
        workdir,
        Limits(wall_seconds=20),
        *map(str, candidates),
    )
    assert out.returncode == 0, out.output
    assert "READ" not in out.output
    assert "TOPSECRET" not in out.output
    # the access granted for the run is taken back
    assert {p: os.stat(p).st_mode for p in before} == before


@pytest.mark.parametrize("tier", ISOLATING)
def test_machine_python_runs_only_with_its_prefixes_readable(tier, workdir, private_tmp):
    sb = get_sandbox(tier)
    code = "import sys, pytest; print(sys.prefix)"
    out = py(sb, code, workdir)
    assert out.returncode == 0, out.output
    assert out.output.strip() == sys.prefix
    # a tool in a private tree (as the interpreter under /root is) is out of reach unless
    # declared readable.  (Not the interpreter itself: a concurrent run on this machine may
    # hold /root open for its own readable prefixes.)
    tool = private_tmp / "private" / "tools" / "hello.sh"
    tool.parent.mkdir(parents=True)
    tool.write_text("echo TOOL-RAN\n")
    (private_tmp / "private").chmod(0o700)
    argv = ["/bin/sh", str(tool)]
    bare = open_sandbox(tier, readable=())
    assert bare.tier == tier
    out = bare.run(argv, workdir, allowed_environ(), Limits(wall_seconds=20))
    assert out.returncode != 0 and "TOOL-RAN" not in out.output, out.output
    declared = open_sandbox(tier, readable=[tool.parent])
    out = declared.run(argv, workdir, allowed_environ(), Limits(wall_seconds=20))
    assert out.returncode == 0 and out.output == "TOOL-RAN\n", out.output


# ---------------------------------------------------------------- resources


@pytest.mark.parametrize("tier", ISOLATING)
def test_process_limit(tier, workdir):
    token = f"autofix-test-{uuid.uuid4().hex}"
    out = py(
        get_sandbox(tier),
        """
        import os, time
        n = 0
        try:
            for _ in range(200):
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
                n += 1
        except OSError as e:
            print("LIMIT", n, flush=True)
        else:
            print("NOLIMIT", n, flush=True)
    """,
        workdir,
        Limits(wall_seconds=20, processes=24),
        token,
    )
    assert out.returncode == 0, out.output
    word, n = out.output.split()
    assert word == "LIMIT" and int(n) < 24
    assert token_procs(token) == []  # the sleeping children died with the run


@pytest.mark.parametrize("tier", ISOLATING)
def test_fork_bomb_is_contained(tier, workdir):
    token = f"autofix-test-{uuid.uuid4().hex}"
    out = py(
        get_sandbox(tier),
        """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """,
        workdir,
        Limits(wall_seconds=1.5, processes=64),
        token,
    )
    assert out.killed == "timed out after 1.5 s"
    assert out.returncode is None
    assert out.seconds < 1.5 + 3
    assert token_procs(token) == []


@pytest.mark.parametrize("tier", ISOLATING)
def test_memory_bomb_fails(tier, workdir):
    out = py(
        get_sandbox(tier),
        """
        import sys
        hoard = []
        try:
            for _ in range(32):                      # 2 GiB at most
                hoard.append(bytearray(64 * 2**20))
        except MemoryError:
            print("MEMORYERROR", len(hoard))
            sys.exit(3)
        print("ALLOCATED")
    """,
        workdir,
        Limits(wall_seconds=20, memory_mb=256),
    )
    assert "MEMORYERROR" in out.output, out.output
    assert out.returncode == 3


@pytest.mark.parametrize("tier", ALL)
def test_infinite_loop_is_killed_at_wall_timeout(tier, workdir):
    out = py(get_sandbox(tier), "while True: pass", workdir, Limits(wall_seconds=1))
    assert out.returncode is None
    assert out.killed == "timed out after 1 s"
    assert 1 <= out.seconds < 1 + 3


@pytest.mark.parametrize("tier", ALL)
def test_output_flood_is_cut_and_killed(tier, workdir):
    out = py(
        get_sandbox(tier),
        """
        import sys
        line = b"x" * 1023 + b"\\n"
        block = line * 1024
        for _ in range(200):                         # 200 MiB
            sys.stdout.buffer.write(block)
        print("END")
    """,
        workdir,
        Limits(wall_seconds=20, output_bytes=2**20, excerpt_bytes=4096),
    )
    assert out.killed == "output limit of 1 MiB exceeded"
    assert out.returncode is None
    assert out.output_bytes > 2**20
    assert len(out.output) <= 4096 + 100
    assert "END" not in out.output
    assert out.seconds < 5


def test_excerpt_keeps_a_short_head_and_a_long_tail(workdir):
    out = py(
        get_sandbox("none"),
        """
        for i in range(20000):
            print(f"line {i:05d}")
    """,
        workdir,
        Limits(wall_seconds=20, excerpt_bytes=4096),
    )
    assert out.returncode == 0 and out.killed is None
    assert out.output_bytes == 20000 * 11
    text = out.output
    assert len(text) <= 4096 + 100
    head, rest = text.split("[... ", 1)
    cut, tail = rest.split(" bytes cut ...]\n", 1)
    assert head.startswith("line 00000\n")
    assert tail.endswith("line 19999\n")
    assert len(tail) > 4 * len(head)
    assert len(head.encode()) + int(cut) + len(tail.encode()) == out.output_bytes
    small = py(get_sandbox("none"), "print('hello')", workdir)
    assert small.output == "hello\n" and small.output_bytes == 6


# ---------------------------------------------------------------- nothing outlives run()


GRANDCHILDREN = """
    import os, subprocess, sys, time
    token, mode = sys.argv[1], sys.argv[2]
    # a child in its own session
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", token],
                     start_new_session=True, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    # a classic daemon: double fork + setsid, re-parented away from us
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(w, b"x")
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", token])
        os._exit(0)
    os.read(r, 1)
    open("started", "w").write("yes")
    print("STARTED", flush=True)
    if mode == "hang":
        time.sleep(60)
"""


@pytest.mark.parametrize("mode", ["exit", "hang"])
@pytest.mark.parametrize("tier", ALL)
def test_detached_grandchildren_do_not_survive(tier, mode, workdir):
    token = f"autofix-test-{uuid.uuid4().hex}"
    out = py(get_sandbox(tier), GRANDCHILDREN, workdir, Limits(wall_seconds=1.5), token, mode)
    assert "STARTED" in out.output and (workdir / "started").exists(), out.output
    if mode == "exit":
        assert out.returncode == 0 and out.killed is None
    else:
        assert out.killed == "timed out after 1.5 s"
    assert token_procs(token) == []  # already gone when run() returns
    assert sandbox_children() == []  # not even exiting, nor a zombie left to reap
    assert not wait_until(lambda: token_procs(token) != [], 0.2)


CONCURRENT = """
    import json, os, subprocess, sys, time
    token, other = sys.argv[1], sys.argv[2]
    start = time.time()
    if token.endswith("-a"):   # a detached grandchild: it must die with this run, and only then
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", token + "-orphan"],
                         start_new_session=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    open("started", "w").write("yes")
    deadline = time.monotonic() + 30
    while not os.path.exists("go") and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        open(other).read()
        peek = "READ"
    except OSError as e:
        peek = type(e).__name__
    # a fresh interpreter needs the way to the Python prefixes open now
    fresh = subprocess.run([sys.executable, "-c", "print('fresh')"], capture_output=True,
                           text=True).stdout.strip()
    print(json.dumps({"uid": os.getuid(), "go": os.path.exists("go"), "peek": peek,
                      "fresh": fresh, "start": start, "end": time.time()}))
"""


@pytest.mark.parametrize("tier", ISOLATING)
def test_concurrent_runs_overlap_and_keep_to_their_own(tier, private_tmp):
    # Two runs from two threads; each waits for a "go" file that is written only once both
    # have started, so they can only finish if they run at the same time.  A ends first: its
    # detached grandchild dies with it while B runs on, then B still starts a fresh
    # interpreter (the grants it uses outlive A's end) and ends normally.
    sb = get_sandbox(tier)
    token = f"autofix-test-{uuid.uuid4().hex}"
    workdirs = {name: private_tmp / name for name in "ab"}
    for wd in workdirs.values():
        wd.mkdir()
    results = {}

    def go(name: str) -> None:
        other = workdirs["b" if name == "a" else "a"] / "started"
        results[name] = py(sb, CONCURRENT, workdirs[name], Limits(wall_seconds=60), f"{token}-{name}", str(other))

    threads = {name: threading.Thread(target=go, args=(name,)) for name in "ab"}
    for t in threads.values():
        t.start()
    try:
        assert wait_until(lambda: all((wd / "started").exists() for wd in workdirs.values()), 30)
        assert wait_until(lambda: token_procs(f"{token}-a-orphan") != [], 10)
        (workdirs["a"] / "go").write_text("")
        threads["a"].join(30)
        assert not threads["a"].is_alive()
        assert token_procs(f"{token}-a-orphan") == []  # gone with A...
        assert threads["b"].is_alive() and token_procs(f"{token}-b") != []  # ...B runs on
    finally:
        for wd in workdirs.values():
            (wd / "go").write_text("")
        for t in threads.values():
            t.join(60)
    for name in "ab":
        assert results[name].returncode == 0 and results[name].killed is None, results[name]
    a, b = (json.loads(results[name].output) for name in "ab")
    assert a["go"] and b["go"]
    assert max(a["start"], b["start"]) < min(a["end"], b["end"])  # the runs overlapped
    if ROOT:
        assert a["uid"] != b["uid"]  # each run has a uid of its own
    assert a["peek"] != "READ" and b["peek"] != "READ"  # and cannot look into the other's workdir
    assert a["fresh"] == b["fresh"] == "fresh"


@requires_root
def test_a_uid_of_an_account_is_refused():
    with pytest.raises(ValueError, match="belongs to"):
        open_sandbox("process", uid=0)


# ---------------------------------------------------------------- opening


def test_open_sandbox_choices():
    with pytest.raises(ValueError):
        open_sandbox("docker")
    with pytest.warns(SandboxWarning):
        none = open_sandbox("none")
    assert none.tier == "none" and not none.network_isolated
    if shutil.which("bwrap"):
        auto = open_sandbox("auto", python_readable())
        assert auto.tier == "bwrap" and auto.network_isolated
    for tier in ("bwrap", "process", "none"):
        sb = get_sandbox(tier)
        line = sb.describe()
        assert line.startswith(tier) and "\n" not in line
        assert isinstance(sb.limitations, str)


@requires_root
def test_workdir_holding_a_readable_path_is_refused(tmp_path):
    lib = tmp_path / "work" / "lib"
    lib.mkdir(parents=True)
    sb = open_sandbox("process", readable=[lib])
    with pytest.raises(ValueError):
        sb.run(["true"], tmp_path / "work", allowed_environ(), Limits())
    assert (tmp_path / "work").stat().st_uid == os.getuid()  # never handed over


# `started` appears whole, by a rename: the test reads the run's TMPDIR from it as soon as it exists.
CRASHING_AUTOFIX = """
import sys
from pathlib import Path
from bot.sandbox.tiers import Limits, allowed_environ, open_sandbox
tier, workdir, token = sys.argv[1:]
sb = open_sandbox(tier)
sb.run(["/bin/sh", "-c", 'echo "$TMPDIR" > starting; mv starting started; sleep 60', token], Path(workdir),
       allowed_environ(), Limits())
"""


@pytest.mark.parametrize("tier", ISOLATING)
def test_crashed_runs_are_undone_by_the_next(tier, private_tmp):
    # Two autofix processes die mid-run at once, so on two uids; one later run undoes both.
    # (system binaries only: this test grants nothing on shared paths like /root)
    token = f"autofix-test-{uuid.uuid4().hex}"
    mode = private_tmp.stat().st_mode
    crashed = [private_tmp / f"crashed{i}" for i in range(2)]
    autofixes = []
    try:
        for wd in crashed:
            wd.mkdir()
            autofixes.append(
                subprocess.Popen(
                    [sys.executable, "-c", CRASHING_AUTOFIX, tier, str(wd), token],
                    cwd=Path(__file__).resolve().parents[2],
                )
            )
        for wd, autofix in zip(crashed, autofixes, strict=True):
            assert wait_until(
                lambda wd=wd, autofix=autofix: (wd / "started").exists() or autofix.poll() is not None, 20
            )
            assert autofix.poll() is None
            assert wd.stat().st_uid != os.getuid()  # handed to a sandbox uid
        assert crashed[0].stat().st_uid != crashed[1].stat().st_uid
        assert private_tmp.stat().st_mode != mode  # and opened for them
        # landlock: each run's temporary folder of its own, in /tmp, which nobody removed
        temporary = [Path(text) for wd in crashed if (text := (wd / "started").read_text().strip()).startswith("/")]
        assert len(temporary) == (2 if tier == "landlock" else 0) and all(p.is_dir() for p in temporary)
        for autofix in autofixes:
            autofix.kill()  # autofix dies mid-run
            autofix.wait()
        if tier == "bwrap":  # --die-with-parent: the sandbox dies with autofix, at once
            assert wait_until(lambda: token_procs(token) == [], 5)
    finally:
        for autofix in autofixes:
            autofix.kill()
            autofix.wait()
        # the next run, in any workdir, undoes what the dead ones left
        fresh = private_tmp / "fresh"
        fresh.mkdir()
        out = open_sandbox(tier).run(["/bin/sh", "-c", "echo ok"], fresh, allowed_environ(), Limits())
    assert out.returncode == 0, out.output

    def undone() -> bool:
        return (
            all(p.stat().st_uid == os.getuid() for wd in crashed for p in (wd, wd / "started"))
            and private_tmp.stat().st_mode == mode
            and token_procs(token) == []
            and not any(p.exists() for p in temporary)
        )

    # (if a run of another process on this machine takes a crashed uid first, that run is
    # the one that undoes it, at the same moment: hence the wait)
    assert wait_until(undone, 30)


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
@pytest.mark.parametrize("shown", ["/tmp", "/"])
def test_a_shared_temp_folder_or_the_root_among_the_readable_paths_is_not_shown(tier, shown, workdir):
    """`/tmp` is on sys.path when autofix is started from a script there (`/` from one at the root):
    shown read-only, the host's /tmp would cover the run's own, so the run could write no temp
    file and could read what other processes left there."""
    note = Path(tempfile.mkstemp(prefix="autofix-host-note-", dir="/tmp")[1])
    try:
        note.write_text("TOPSECRET-left-in-tmp")
        note.chmod(0o644)
        sandbox = open_sandbox(tier, readable=[*python_readable(), shown])
        out = py(
            sandbox,
            """
            import sys, tempfile
            with tempfile.NamedTemporaryFile("w") as f:
                f.write("mine")
                print("WROTE", f.name)
            try:
                print("READ", open(sys.argv[1]).read())
            except OSError as e:
                print("DENIED", type(e).__name__)
            """,
            workdir,
            Limits(wall_seconds=20),
            str(note),
        )
    finally:
        note.unlink()
    assert out.returncode == 0, out.output
    assert "WROTE" in out.output and "DENIED" in out.output and "TOPSECRET" not in out.output
