"""Limits of the whole run, not of each process: memory and processes through a cgroup v2
where autofix can make one (else rlimits, and ``limitations`` says so), and the disk the run
fills."""

from __future__ import annotations

import os
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from test_sandbox import (  # noqa: F401 - private_tmp, workdir: fixtures
    ALL,
    ISOLATING,
    get_sandbox,
    private_tmp,
    workdir,
)

from bot.sandbox.procs import cgroup_parent
from bot.sandbox.tiers import Limits, allowed_environ

ROOT = os.geteuid() == 0


def py(sb, code: str, wd: Path, limits: Limits, *args: str):
    return sb.run([sys.executable, "-c", textwrap.dedent(code), *args], wd, allowed_environ(), limits)


def cgroup_v2_usable() -> bool:
    """What the detection should find, read independently: root, and a cgroup v2 whose root
    enables memory and pids for its children."""
    if not ROOT:
        return False
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields, _, rest = line.partition(" - ")
        if rest.split()[:1] == ["cgroup2"]:
            enabled = Path(fields.split()[4], "cgroup.subtree_control").read_text().split()
            if {"memory", "pids"} <= set(enabled):
                return True
    return False


# ---------------------------------------------------------------- memory and processes


def test_cgroup_detection_matches_the_machine():
    parent, why = cgroup_parent()
    assert (parent is not None) == cgroup_v2_usable(), why


@pytest.mark.skipif(cgroup_v2_usable(), reason="this machine has a cgroup v2 with memory and pids")
@pytest.mark.parametrize("tier", ISOLATING)
def test_without_a_cgroup_the_limitations_say_memory_is_per_process(tier):
    # the fallback is silent at run time, and named where the tier is described
    parent, why = cgroup_parent()
    assert parent is None and why
    sb = get_sandbox(tier)
    if ROOT:
        assert f"memory is limited per process, not per run (no cgroup: {why})" in sb.limitations
    assert "\n" not in sb.limitations


# ---------------------------------------------------------------- disk


WRITER = """
    import os, sys, time
    path, exit_at_once = sys.argv[1], sys.argv[2] == "exit"
    block = b"x" * 2**20
    with open(path, "wb") as f:
        for _ in range(128 if exit_at_once else 512):
            f.write(block)
            f.flush()
    print("WROTE", flush=True)
    if not exit_at_once:
        time.sleep(30)
"""


@pytest.mark.parametrize("tier", ALL)
def test_disk_cap_kills_a_writer(tier, workdir):
    out = py(get_sandbox(tier), WRITER, workdir, Limits(wall_seconds=60, disk_mb=16), "big", "stay")
    assert out.killed == "wrote more than 16 MiB to disk", out.output
    assert out.returncode is None
    assert out.seconds < 10
    assert (workdir / "big").stat().st_size < 512 * 2**20


@pytest.mark.parametrize("tier", ALL)
def test_disk_cap_catches_a_writer_that_exits_at_once(tier, workdir):
    out = py(get_sandbox(tier), WRITER, workdir, Limits(wall_seconds=60, disk_mb=16), "big", "exit")
    assert out.killed == "wrote more than 16 MiB to disk", out.output
    assert out.returncode is None


@pytest.mark.parametrize("tier", ["process", "none"])
def test_disk_cap_counts_the_shared_temp_dirs(tier, workdir):
    path = f"/dev/shm/autofix-test-{uuid.uuid4().hex}"
    try:
        out = py(get_sandbox(tier), WRITER, workdir, Limits(wall_seconds=60, disk_mb=16), path, "stay")
        assert out.killed == "wrote more than 16 MiB to disk", out.output
    finally:
        if os.path.exists(path):
            os.unlink(path)
