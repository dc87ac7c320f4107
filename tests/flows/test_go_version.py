"""`go:` in .github/autofix.yml: another Go than the machine's, fetched during setup by go's own
toolchain switch (GOTOOLCHAIN) into the repository's environment's module cache, go and gofmt
linked into its bin (bot/github/environment.py); what setup's `go mod download` fetches lands in
that module cache too, which the test runs read with GOPROXY=off. Real go, one real download of
the go1.27.3 toolchain and of go-cmp from the Go module proxy (this machine's own go is another
release, asserted), the real sandbox and real `go test` runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

import pytest
from action_world import REPO, act, labeled

from bot.errors import UserError
from bot.github import environment
from bot.github.config import load_repo_config
from bot.judge.validate import open_test_sandbox
from bot.sandbox.tiers import Limits, allowed_environ

CONFIG = ".github/autofix.yml"
LIMITS = Limits(wall_seconds=120)
ASKED = "1.27.3"
TOOLCHAIN = f"golang.org/toolchain@v0.0.1-go{ASKED}.linux-amd64"
SETUP = "go mod download && go version > go.txt"
GO_MOD = "module example.com/grade\n\ngo 1.22\n\nrequire github.com/google/go-cmp v0.7.0\n"
GO_SUM = (
    "github.com/google/go-cmp v0.7.0 h1:wk8382ETsv4JYUZwIsn6YpYiWiBsYLSJiTsyBybVuN8=\n"
    "github.com/google/go-cmp v0.7.0/go.mod h1:pXiqmnSA92OHEEa9HXL2W4E7lf9JzCmGVUdgjX3N/iU=\n"
)
FIXED = """\
package grade

// Of gives an A from 90 up, a B from 80 up, else a C.
func Of(score int) string {
	if score >= 90 {
		return "A"
	}
	if score >= 80 {
		return "B"
	}
	return "C"
}
"""
BROKEN = FIXED.replace("score >= 90", "score > 90")
# The Go the runs use is part of the test, and so is go-cmp, which only setup's `go mod download`
# brought: on any other Go, or without that module cache, it fails whatever the code.
TESTS = """\
package grade

import (
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNinetyIsAnA(t *testing.T) {
	if runtime.Version() != "go1.27.3" {
		t.Fatalf("runs on %s", runtime.Version())
	}
	if diff := cmp.Diff("A", Of(90)); diff != "" {
		t.Errorf("Of(90) mismatch (-want +got):\\n%s", diff)
	}
}
"""
ISSUE = (
    "grade.Of(score) must give an A from 90 up, a B from 80 up, else a C.\n\n"
    "```yaml\ntarget: grade/grade.go\ntests:\n  command: go test ./...\nmax_attempts: 1\n```\n"
)


def module_files() -> dict[str, str]:
    return {"go.mod": GO_MOD, "go.sum": GO_SUM, "grade/grade.go": BROKEN, "grade/grade_test.go": TESTS}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One environment with go1.27.3, made by build() as the step makes it, `setup` downloading
    the module's dependencies and writing what go says of itself: (workspace, environment, its
    log, seconds)."""
    own = subprocess.run(["go", "version"], capture_output=True, text=True).stdout
    assert f"go{ASKED} " not in own, f"this machine's go is {own}: the test must ask for another release"
    work = tmp_path_factory.mktemp("go-version") / "work"
    for path, text in module_files().items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    said: list[str] = []
    started = time.monotonic()
    made = environment.build(work, None, SETUP, CONFIG, 600, said.append, tier="bwrap", go=ASKED)
    return work, made, "".join(said), time.monotonic() - started


def test_the_go_asked_for_is_fetched_and_setup_runs_it(built):
    work, made, log, seconds = built
    prefix = work / environment.ENV
    modules = prefix / environment.GO_MODULES
    assert made.go == f"go{ASKED}"
    assert made.versions() == f"{made.python_version()}, go{ASKED}"
    where = f"{environment.ENV}/{environment.GO_MODULES}/{TOOLCHAIN}"
    fetched = f"go: go{ASKED} fetched into {where} by go's toolchain switch (GOTOOLCHAIN=go{ASKED}), linked into "
    assert f"{fetched}{environment.ENV}/bin\n" in log, log
    assert (work / "go.txt").read_text() == f"go version go{ASKED} linux/amd64\n"
    assert [os.readlink(prefix / "bin" / name) for name in ("go", "gofmt")] == [
        f"../{environment.GO_MODULES}/{TOOLCHAIN}/bin/go", f"../{environment.GO_MODULES}/{TOOLCHAIN}/bin/gofmt",
    ]  # fmt: skip
    # go checked the toolchain against the checksum database (go-cmp it checked against go.sum)
    assert (modules / f"cache/download/sumdb/sum.golang.org/lookup/{TOOLCHAIN}").is_file()
    # setup's `go mod download` filled the environment's module cache, not its emptied HOME
    assert (modules / "github.com/google/go-cmp@v0.7.0/cmp/compare.go").is_file()
    print(f"go: {ASKED} fetched and linked in {seconds:.1f} s (the environment and setup included)")


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
def test_a_test_run_finds_that_go_and_the_modules_setup_fetched(built, tmp_path, tier):
    """A run as the tests run: in the step's sandbox, lent what the environment says, with its PATH
    and module cache (activated), offline: go finds go-cmp where setup fetched it."""
    work, made, _, _ = built
    shutil.copytree(work / "grade", tmp_path / "grade")
    for name in ("go.mod", "go.sum"):
        shutil.copy(work / name, tmp_path / name)
    sandbox = open_test_sandbox(tier, "input sandbox", print, also=made.readable())
    with environment.activated(made):
        modules = os.environ.get("GOMODCACHE", "")
    env = allowed_environ({"PATH": environment.tests_path(made.prefix), "GOMODCACHE": modules, "GOPROXY": "off"})
    assert modules == str(made.prefix / environment.GO_MODULES)
    listed = sandbox.run(["go", "list", "-f", "{{.Dir}}", "github.com/google/go-cmp/cmp"], tmp_path, env, LIMITS)
    assert (listed.returncode, listed.output) == (0, f"{modules}/github.com/google/go-cmp@v0.7.0/cmp\n")
    ran = sandbox.run(["go", "version"], tmp_path, env, LIMITS)
    assert (ran.returncode, ran.output) == (0, f"go version go{ASKED} linux/amd64\n")


def test_a_cached_environment_keeps_its_go_without_a_download(built):
    """The same request again (what actions/cache restored): go is asked, nothing is fetched."""
    work, made, _, _ = built
    said: list[str] = []
    again = environment.build(work, None, None, CONFIG, 600, said.append, tier="bwrap", go=ASKED)
    log = "".join(said)
    assert again.go == made.go
    assert f"go: go{ASKED} is in {environment.ENV} already, as `go: {ASKED}` asks" in log
    assert "downloading" not in log and "toolchain switch" not in log


def test_setup_runs_the_go_asked_for_alone(built):
    """With `go:` set, setup's go switches to no other release (GOTOOLCHAIN=local, as the runs):
    a go.mod asking for a later Go fails there, in go's words, instead of in every run."""
    work, _, _, _ = built
    (work / "later").mkdir()
    (work / "later" / "go.mod").write_text("module example.com/later\n\ngo 1.99.0\n")
    said: list[str] = []
    with pytest.raises(UserError) as refused:
        environment.build(work, None, "cd later && go mod download", CONFIG, 600, said.append, tier="bwrap", go=ASKED)
    assert str(refused.value) == f"{CONFIG}: setup: exited with code 1"
    assert f"go: go.mod requires go >= 1.99.0 (running go {ASKED}; GOTOOLCHAIN=local)" in "".join(said)


def test_a_go_suite_judged_by_autofix_runs_on_the_go_asked_for(built, world, github, capsys, monkeypatch, tmp_path):
    """`go:` and `setup` in the file; the workspace has the environment from the module's build, as
    actions/cache restores it. The suite's test passes only on go1.27.3 with go-cmp."""
    work, made, _, _ = built
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # this toolchain's warm cache: the test's own
    world.commit_to_origin({**module_files(), CONFIG: f'go: "{ASKED}"\nsetup: go mod download\ntimeout: 300\n'})
    shutil.copytree(work / ".autofix", world.workspace / ".autofix", symlinks=True)
    world.input("strength", "off")
    world.event("issues", labeled(body=ISSUE))
    code, out, openai = act(capsys, world, [f"Here is the code.\n\n```go\n{FIXED}```\n"])
    text = "\n".join(out)
    assert code == 0, text
    assert f"go: go{ASKED} is in {environment.ENV} already" in text
    python = made.python_version()
    assert f"autofix: the tests run with {environment.ENV} ({python}, go{ASKED}) first on their PATH" in out
    # the repository's code failed past the version's check, at go-cmp's diff (whose spaces go-cmp
    # draws at random, some no-break): the runs were go1.27.3's, with the module setup fetched
    failed = r'Of\(90\) mismatch \(-want \+got\):\s+string\(\s+-\s+"A",\s+\+\s+"B",'
    assert re.search(failed, openai.prompts()[0]) and "runs on" not in openai.prompts()[0]
    assert world.file_at("autofix/issue-1", "grade/grade.go") == FIXED


def test_a_go_release_the_proxy_does_not_have_is_one_line_naming_the_key(world, github, capsys):
    world.commit_to_origin({CONFIG: 'go: "1.27.99"\n'})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world)
    assert code == 2 and openai.requests == []
    said = f"{CONFIG}: go: go could not fetch Go 1.27.99 (GOTOOLCHAIN=go1.27.99): "
    assert out[-1].startswith(f"::error::{said}"), out[-3:]
    # the reason is go's last line (the proxy's answer); go's lines before it are in the setup's log
    assert out[-1] != f"::error::{said}" and "Traceback" not in "\n".join(out)
    assert "go: download go1.27.99" in "\n".join(out)
    assert said in github.comments(REPO, 1)[0].body


def test_an_unquoted_go_version_yaml_reads_as_a_number_is_refused_naming_the_line(world, github, capsys):
    world.commit_to_origin({CONFIG: "label: autofix\ngo: 1.27\n"})
    world.event("issues", labeled())
    code, out, _ = act(capsys, world)
    message = f'{CONFIG}:2: go: a version is text: write it quoted, go: "1.27"'
    assert (code, out[-1]) == (2, f"::error file={CONFIG},line=2::{message}")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ('"1.27"', 'a Go version is a release, "1.27.3" (or "1.27rc1"), got \'1.27\''),
        ('"go1.27.3"', 'a Go version is a release, "1.27.3" (or "1.27rc1"), got \'go1.27.3\''),
        ('"latest"', 'a Go version is a release, "1.27.3" (or "1.27rc1"), got \'latest\''),
        ('"1.27.3.1"', 'a Go version is a release, "1.27.3" (or "1.27rc1"), got \'1.27.3.1\''),
        ('">=1.22"', 'a Go version is a release, "1.27.3" (or "1.27rc1"), got \'>=1.22\''),
        ('"1.20.14"', "go's toolchain switch fetches Go 1.21.0 and later, got '1.20.14'"),
    ],
)
def test_only_a_release_from_1_21_on_is_a_go_version(tmp_path, value, said):
    (tmp_path / ".github").mkdir()
    (tmp_path / CONFIG).write_text(f"go: {value}\n")
    with pytest.raises(UserError) as refused:
        load_repo_config(tmp_path, CONFIG)
    assert str(refused.value) == f"{CONFIG}:1: go: {said}"


@pytest.mark.parametrize("value", ["1.27.3", '"1.27.3"', '"1.21.0"', '"1.27rc1"'])
def test_a_release_is_read(tmp_path, value):
    (tmp_path / ".github").mkdir()
    (tmp_path / CONFIG).write_text(f"go: {value}\n")
    assert load_repo_config(tmp_path, CONFIG).go == value.strip('"')
