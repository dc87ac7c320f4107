"""A uid of its own for the repository's `setup`: the one step with network, which runs before
any candidate but runs what the project's dependencies bring (install scripts, build backends).

In a container action autofix is root and PID 1, and /proc/1/environ keeps the token and the
model key the runner started it with. A process of another uid can't read a root process's
environ (the kernel's ptrace access check), nor the Docker socket the runner mounts into every
container action (root:docker, 0660: the setup's uid has no supplementary group), nor the runner's
file commands (GITHUB_ENV, GITHUB_OUTPUT: the runner's uid's). So `setup` runs as a uid of a pool
below the sandbox's, taken by its lock as the sandbox takes its own: the workspace, `.git` apart,
is lent to it for the run and handed back to its owner after, and when the command ends every
process of that uid is killed and what it left in the shared temporary folders is removed, so
no daemon it started watches the runs that follow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bot import safefs
from bot.sandbox.procs import kill_uid
from bot.sandbox.state import Slot, clean_shared, grants

SETUP_POOL = tuple(range(65501, 65485, -1))  # below the sandbox's pool (65533 .. 65502)
KEPT = ".git"  # never lent: its hooks and config are what autofix's own git runs as root


@dataclass(frozen=True)
class SetupUser:
    uid: int | None  # None: autofix isn't root and can't run it as another uid
    home: Path  # the command's HOME, its own and emptied after


@contextmanager
def setup_user(workspace: Path, readable: Sequence[str]) -> Iterator[SetupUser]:
    """A uid for the setup, the workspace lent to it, handed back however the block ends; the
    folders on the way to the workspace and `readable` (the interpreter, uv) opened to it as the
    sandbox opens its readable paths (state.grants)."""
    home = Path(tempfile.mkdtemp(prefix="autofix-setup-home-"))
    try:
        if os.geteuid() != 0:
            yield SetupUser(None, home)
            return
        trees = [os.path.realpath(path) for path in readable if os.path.exists(path)]
        with Slot.claim(SETUP_POOL) as slot, grants().held(slot.uid, [str(home), str(workspace), *trees], trees):
            uid = slot.uid
            owner = os.lstat(workspace)
            os.chown(home, uid, uid)
            try:
                lend(workspace, owner.st_uid, uid)
                yield SetupUser(uid, home)
            finally:
                kill_uid(uid, uid)
                # The workspace's first: clean_shared removes whatever the uid owns in /tmp, where
                # a workspace may lie (a self-hosted runner's, the tests').
                safefs.give_back(workspace, owner.st_uid, owner.st_gid, uid)
                clean_shared(uid)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def lend(workspace: Path, owner: int, uid: int) -> None:
    """What `owner` has in the workspace becomes `uid`'s, `.git` aside; links themselves, never
    what they point at."""
    for folder, subfolders, files in os.walk(workspace):
        if Path(folder) == workspace and KEPT in subfolders:
            subfolders.remove(KEPT)
        for name in [".", *subfolders, *files]:
            path = os.path.join(folder, name)
            try:
                if os.lstat(path).st_uid == owner:
                    os.chown(path, uid, uid, follow_symlinks=False)
            except OSError:
                continue  # gone meanwhile: nothing to lend


def run_as(
    user: SetupUser, argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """`argv` as the setup's uid (no supplementary group), in a session of its own, output
    merged. TimeoutExpired once `timeout` passes, the whole session killed."""
    uid = user.uid
    groups: list[int] | None = [] if uid is not None else None  # no supplementary group: not docker's
    with subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
        umask=0o022,
        user=uid,
        group=uid,
        extra_groups=groups,
    ) as process:
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.communicate()
            raise
    return subprocess.CompletedProcess(list(argv), process.returncode, output)
