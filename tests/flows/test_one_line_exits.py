"""Every way `autofix action` ends is one line and its exit code, as a runner's log shows it: the
real command in a process of its own (`python -m bot action`), so a traceback would reach its
stderr. The step's end (credentials back, workspace handed back, outputs and summary written) is
inside the same guard as the flow; a sandbox that can't start names each tier tried and why, and
the `sandbox` input only when it named that tier."""

import subprocess
import sys

import pytest
from action_world import labeled
from conftest import ROOT
from test_action_specs import spec_text

# In a user namespace whose root is the only uid and setgroups is denied (`unshare --map-root-user`,
# as rootless podman can start a container), no run can drop autofix's groups.
SETGROUPS = "a run can't drop autofix's groups: setgroups is denied in this user namespace (/proc/self/setgroups)"
IN_A_USER_NAMESPACE = ("unshare", "--user", "--map-root-user")
requires_userns = pytest.mark.skipif(
    subprocess.run([*IN_A_USER_NAMESPACE, "true"], capture_output=True).returncode != 0,
    reason="no user namespace for this uid here (`unshare --user --map-root-user true` is refused)",
)


def step(*prefix: str) -> subprocess.CompletedProcess[str]:
    """One `autofix action` step with the world's environment (the test's, as World set it)."""
    return subprocess.run(
        [*prefix, sys.executable, "-m", "bot", "action"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_an_event_file_and_outputs_mounted_elsewhere_end_in_one_line_each_and_exit_2(world, tmp_path):
    """act's self-hosted jobs run the action's container with the runner's paths, which the
    container lacks: the event can't be read, nor the output file written. (GitHub's runner mounts
    them under /github/: the other tests.)"""
    world.event("issues", labeled())
    elsewhere = tmp_path / "act" / "runner"  # not there: the host's path
    world.monkeypatch.setenv("GITHUB_EVENT_PATH", str(elsewhere / "event.json"))
    world.monkeypatch.setenv("GITHUB_OUTPUT", str(elsewhere / "output"))
    done = step()
    assert (done.returncode, done.stderr) == (2, "")
    assert done.stdout.splitlines()[-2:] == [
        f"::error::GITHUB_EVENT_PATH: cannot read the event payload {elsewhere}/event.json: "
        f"[Errno 2] No such file or directory: '{elsewhere}/event.json'",
        f"::error::{elsewhere}/output: No such file or directory",
    ]


def test_outputs_that_cannot_be_written_after_a_clean_end_fail_the_step_in_one_line(world, tmp_path):
    world.event("issues", labeled(label="bug"))  # ignored: exit 0 but for the outputs
    world.monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "nowhere" / "output"))
    done = step()
    assert (done.returncode, done.stderr) == (2, "")
    assert done.stdout.splitlines()[-2:] == [
        "autofix: ignored: label 'bug' is not 'autofix'",
        f"::error::{tmp_path}/nowhere/output: No such file or directory",
    ]


@pytest.fixture
def spec_world(world):
    """A scheduled run with one spec file: the step opens the sandbox before any model or API call."""
    world.commit_to_origin({".autofix/a.yml": spec_text("lib/a.py")})
    world.event("schedule", {"schedule": "17 3 * * *"})
    return world


@requires_userns
@pytest.mark.parametrize("requested", ["auto", None])
def test_no_tier_starting_under_auto_names_every_tier_and_blames_no_input(spec_world, requested):
    if requested is None:
        spec_world.monkeypatch.delenv("INPUT_SANDBOX")
    else:
        spec_world.input("sandbox", requested)
    done = step(*IN_A_USER_NAMESPACE)
    assert (done.returncode, done.stderr) == (2, "")
    last = done.stdout.splitlines()[-1]
    assert last == f"::error::no sandbox tier can run the tests here: bwrap, landlock, process: {SETGROUPS}"
    assert spec_world.outputs()["passed"] == "false"  # the step's end ran too


@requires_userns
@pytest.mark.parametrize("tier", ["bwrap", "landlock", "process"])
def test_a_tier_the_input_names_that_cannot_start_blames_the_input(spec_world, tier):
    spec_world.input("sandbox", tier)
    done = step(*IN_A_USER_NAMESPACE)
    assert (done.returncode, done.stderr) == (2, "")
    assert done.stdout.splitlines()[-1] == f"::error::input sandbox: {tier} sandbox unusable: {SETGROUPS}"
