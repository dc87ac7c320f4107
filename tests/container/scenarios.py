"""What the smoke test runs in the image, one runner's job each: the fake GitHub and the scripted
model server on the host, `autofix action` in the container, then what a user would check.

- hostile:   a labeled issue in a repository without `setup`; the first candidate tries to read
             the checkout's .git/config and to reach GitHub's port, the second passes;
- issue:     python-slugify, a labeled issue whose yaml block names the target and the tests;
- free-form: num2words, an issue in prose: localize, reproduce, repair;
- red CI:    inflect, a pull request that breaks one function, its failed workflow run;
- JS red CI: no-case from the npm registry, a pull request that breaks it, its failed Jest run;
- Go red CI: agnivade/levenshtein from the Go module proxy, a pull request that breaks it, its
             failed `go test` run.

The three Python repositories' `setup` installs them (editable for two) from the host's local
index; the JavaScript one's dependencies are installed by its workflow's `npm ci` before autofix
runs, as a real workflow does, from npm's cache alone (projects.fetch_npm filled it); the Go
one's `setup` is `go mod download`, from a module proxy the host serves beside the index
(projects.fetch_go filled it), run by the image's Go.
"""

from __future__ import annotations

import copy
import json
import re
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from action_world import REPO, labeled, payload, read_outputs
from fake_github import FakeGitHub
from fake_openai import Reply, ScriptedOpenAI
from projects import INFLECT, LEVENSHTEIN, NO_CASE, NPM_FLAGS, NUM2WORDS, SLUGIFY, Project, files_of
from runner import Done, Engine, World, chown_tree

ENV_LINE = "autofix: the tests run with .autofix/venv (Python 3.11"
# The image's Go: the release .github/image/go-toolchain.sum pins ("1.27.3").
IMAGE_GO = re.findall(
    r"^golang\.org/toolchain v0\.0\.1-go(\S+)\.linux-",
    (Path(__file__).resolve().parents[2] / ".github" / "image" / "go-toolchain.sum").read_text(),
    re.M,
)[0]


@dataclass(frozen=True)
class Context:
    engine: Engine
    index: str  # the local index's URL
    trees: dict[str, Path]  # each project's unpacked sdist


@dataclass(frozen=True)
class Scenario:
    name: str
    about: str
    run: Callable[[Context, Path], list[str]]  # what failed, one line each


# -- hostile: the sandbox holds in the container ------------------------------------------------

HOSTILE = """```python
import socket

def unique_items(items):
    found = []
    try:
        found.append("read:ok:" + open("/github/workspace/.git/config").read()[-60:])
    except OSError as error:
        found.append("read:" + type(error).__name__)
    try:
        socket.create_connection(("127.0.0.1", PORT), timeout=2)
        found.append("connect:ok")
    except OSError as error:
        found.append("connect:" + type(error).__name__)
    return found
```"""
RIGHT = "```python\ndef unique_items(items):\n    return list(dict.fromkeys(items))\n```"


def hostile(context: Context, tmp: Path) -> list[str]:
    world = World(tmp, {"README.md": b"# Hello-World\n"})
    # actions/checkout's default (persist-credentials: true): the token in the checkout's config.
    world.checkout({"http.https://github.com/.extraheader": "AUTHORIZATION: basic ..."})
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_issue(REPO, "unique_items loses the order", labeled()["issue"]["body"], user="Codertocat")
        script = [Reply(HOSTILE.replace("PORT", str(github.port)), 300, 90), Reply(RIGHT, 250, 60)]
        done, _ = act(context, world, github, "issues", labeled(), script)
        heads = [pull.head_ref for pull in github.pulls(REPO)]
    return everywhere(world, done) + failed({
        f"one pull request from autofix/issue-1, got {heads}": heads == ["autofix/issue-1"],
        "the log says why bwrap was not used": "autofix: sandbox: not stronger because bwrap: " in done.log,
        "the candidate could not read the checkout's .git/config":
            "read:PermissionError" in done.log and "read:ok" not in done.log,
        "the candidate could not reach GitHub's port": "connect:" in done.log and "connect:ok" not in done.log,
    })  # fmt: skip


# -- issue: python-slugify, a yaml block with the target and the tests ----------------------------

SLUGIFY_ISSUE = (
    "Since the upgrade every slug of text that ends in punctuation or an emoji ends in a dash: "
    "`slugify('I love 🦄!')` is `i-love-` (it was `i-love`), and `slugify('&#381;')` with "
    "`decimal=False` is `-381-`.\n\n"
    f"```yaml\ntarget: {SLUGIFY.bug.path}\ntests:\n  command: {SLUGIFY.tests}\n```\n"
)


def slugify_issue(context: Context, tmp: Path) -> list[str]:
    project, tree = SLUGIFY, context.trees[SLUGIFY.name]
    right = (tree / project.bug.path).read_text()
    world = World(tmp, planted(tree, project) | config(project, context.index))
    world.checkout()
    event = labeled(body=SLUGIFY_ISSUE)
    event["issue"]["title"] = "slugify leaves a dash at the end"
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_issue(REPO, event["issue"]["title"], SLUGIFY_ISSUE, user="Codertocat")
        done, _ = act(context, world, github, "issues", event, [Reply(f"```python\n{right}```", 3000, 1500)])
        pulls = github.pulls(REPO)
    heads = [pull.head_ref for pull in pulls]
    changed = world.show("diff", "--name-only", "master", "autofix/issue-1").splitlines()
    return everywhere(world, done, setup=True) + failed({
        f"one pull request from autofix/issue-1, got {heads}": heads == ["autofix/issue-1"],
        f"the pull request changes {project.bug.path} alone, got {changed}": changed == [project.bug.path],
        f"{project.bug.path} on autofix/issue-1 is the project's own": show_file(world, "autofix/issue-1",
                                                                               project.bug.path) == right,
        "the pull request says it fixes #1": bool(pulls) and "Fixes #1" in (pulls[0].body or ""),
    })  # fmt: skip


# -- free-form: num2words, an issue in prose -----------------------------------------------------

NUM2WORDS_ISSUE = (
    "`num2words(20, to='ordinal')` returns `twentith`; it should be `twentieth`. The same happens for "
    "every ordinal of a number ending in -ty: `num2words(42, to='ordinal')` is `forty-second`, fine, but "
    "`num2words(90, to='ordinal')` is `ninetith`."
)
REPRODUCTION = (
    "from num2words import num2words\n\n\n"
    "def test_ordinals_of_the_tens():\n"
    "    assert num2words(20, to='ordinal') == 'twentieth'\n"
    "    assert num2words(90, to='ordinal') == 'ninetieth'\n"
)


def num2words_freeform(context: Context, tmp: Path) -> list[str]:
    project, tree = NUM2WORDS, context.trees[NUM2WORDS.name]
    bug = project.bug
    world = World(tmp, planted(tree, project) | config(project, context.index, tests=True))
    world.checkout()
    event = labeled(body=NUM2WORDS_ISSUE)
    event["issue"]["title"] = "English ordinals of 20, 30, ... 90 are misspelled"
    script = {
        "localize": [Reply(f"```\n{bug.path}\nnum2words/base.py\n```", 2000, 20)],
        "reproduce": [Reply(f"```python\n{REPRODUCTION}```", 1500, 60)],
        "repair": [Reply(edit_block(bug.path, bug.wrong, bug.right), 3000, 80)],
    }
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_issue(REPO, event["issue"]["title"], NUM2WORDS_ISSUE, user="Codertocat")
        done, stages = act(context, world, github, "issues", event, script)
        pulls = github.pulls(REPO)
    heads = [pull.head_ref for pull in pulls]
    body = pulls[0].body or "" if pulls else ""
    changed = world.show("diff", "--name-only", "master", "autofix/issue-1").splitlines()
    wanted = [bug.path, "tests/autofix/test_issue_1.py"]
    return everywhere(world, done, setup=True) + failed({
        f"the model was asked localize, reproduce, repair; got {stages}": stages == ["localize", "reproduce", "repair"],
        f"one pull request from autofix/issue-1, got {heads}": heads == ["autofix/issue-1"],
        f"the pull request changes {wanted}, got {changed}": changed == wanted,
        f"{bug.path} on autofix/issue-1 is the project's own":
            show_file(world, "autofix/issue-1", bug.path) == (tree / bug.path).read_text(),
        "the reproduction is in the pull request as written":
            show_file(world, "autofix/issue-1", wanted[1]) == REPRODUCTION,
        "the pull request's proof: the reproduction failed before and passes after":
            "reproduction test: failed before, passes after" in body,
    })  # fmt: skip


# -- red CI: inflect, a pull request that breaks ordinal() ---------------------------------------

INFLECT_LOG = (
    "2026-05-01T10:00:00.0000000Z \x1b[31mFAILED\x1b[0m tests/test_inflections.py::test_ordinal - "
    "AssertionError: assert '11st' == '11th'\n"
    "2026-05-01T10:00:00.0000000Z \x1b[31mFAILED\x1b[0m tests/test_inflections.py::test_negative_ordinals - "
    "AssertionError: assert '-11st' == '-11th'\n"
    "2026-05-01T10:00:01.0000000Z ##[error]Process completed with exit code 1.\n"
)


def inflect_red_ci(context: Context, tmp: Path) -> list[str]:
    project, tree = INFLECT, context.trees[INFLECT.name]
    bug = project.bug
    world = World(tmp, files_of(tree) | config(project, context.index, tests=True))
    right = (tree / bug.path).read_text()
    head = world.commit({bug.path: bug.plant(right).encode()}, "Speed up ordinal suffixes", branch="feature")
    world.checkout()
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_branch(REPO, "feature", sha=head)
        pull = github.add_pull(REPO, head="feature", base="master", title="Speed up ordinal suffixes",
                               user="Codertocat")  # fmt: skip
        world.push_ref(head, f"refs/pull/{pull.number}/head")
        run = github.add_workflow_run(REPO, head_branch="feature", head_sha=head, event="pull_request",
                                      pull_requests=[pull.number])  # fmt: skip
        github.add_job(run, "test", log=INFLECT_LOG)
        event = failed_run(github, pull, run)
        fix = Reply(edit_block(bug.path, bug.wrong, bug.right), 4000, 90)
        done, _ = act(context, world, github, "workflow_run", event, [fix])
        fixes = [p for p in github.pulls(REPO) if p.number != pull.number]
        comments = [c.body for c in github.comments(REPO, pull.number)]
    branch = f"autofix/pr-{pull.number}"
    into = [(p.head_ref, p.base_ref) for p in fixes]
    changed = world.show("diff", "--name-only", head, branch).splitlines()
    return everywhere(world, done, setup=True) + failed({
        f"one pull request from {branch} into feature, got {into}": into == [(branch, "feature")],
        f"{branch} is one commit on the pull request's head": world.show("log", "-1", "--format=%P", branch) == head,
        f"the fix changes {bug.path} alone, got {changed}": changed == [bug.path],
        f"{bug.path} on {branch} is the project's own": show_file(world, branch, bug.path) == right,
        f"one comment on #{pull.number} proposing the fix": len(comments) == 1
            and f"**Next:** review #{fixes[0].number if fixes else '?'}, which goes into this branch" in comments[0],
    })  # fmt: skip


# -- JS red CI: no-case, a pull request that stops splitting camelCase --------------------------

# Jest's titles of the tests the bug fails, and its job's log: the default reporter's lines.
NO_CASE_FAILING = (
    "testString -> test string", "testString123 -> test string123", "testString_1_2_3 -> test string 1 2 3",
    "anHTMLTag -> an html tag", "ID123String -> id123 string", "Id123String -> id123 string", "a1bStar -> a1b star",
    "XMLHttpRequest -> xml http request", "IQueryAArgs -> i query a args", "camel2019 -> camel 2019",
    "minifyURLs -> minify urls",
)  # fmt: skip
NO_CASE_LOG = "".join(
    f"2026-05-01T10:00:02.0000000Z {line}\n"
    for line in (
        "> no-case@3.0.4 test", "> jest", "FAIL dist/index.spec.js",
        *(f"  \x1b[1m\x1b[31m  ● no case › {title}\x1b[39m\x1b[22m" for title in NO_CASE_FAILING),
        "Tests:       11 failed, 20 passed, 31 total", "##[error]Process completed with exit code 1.",
    )
)  # fmt: skip


def no_case_red_ci(context: Context, tmp: Path) -> list[str]:
    project, tree = NO_CASE, context.trees[NO_CASE.name]
    bug = project.bug
    config = f"tests:\n  command: {json.dumps(project.tests)}\nmax_attempts: 2\n"
    world = World(tmp, files_of(tree) | {".gitignore": b"node_modules\n", ".github/autofix.yml": config.encode()})
    right = (tree / bug.path).read_text()
    head = world.commit({bug.path: bug.plant(right).encode()}, "Simplify the camelCase split", branch="feature")
    world.checkout()
    # The workflow's step before autofix's: `npm ci` in the checkout, as the runner's user (here
    # root, then handed over), offline: every package is in npm's cache since projects.fetch_npm.
    installed = subprocess.run(["npm", "ci", "--offline", *NPM_FLAGS], cwd=world.workspace, capture_output=True,
                               text=True)  # fmt: skip
    if installed.returncode != 0:
        return [f"the workflow's npm ci exited {installed.returncode}: {installed.stderr[-2000:]}"]
    chown_tree(world.workspace, world.owner)
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_branch(REPO, "feature", sha=head)
        pull = github.add_pull(REPO, head="feature", base="master", title="Simplify the camelCase split",
                               user="Codertocat")  # fmt: skip
        world.push_ref(head, f"refs/pull/{pull.number}/head")
        run = github.add_workflow_run(REPO, head_branch="feature", head_sha=head, event="pull_request",
                                      pull_requests=[pull.number])  # fmt: skip
        github.add_job(run, "test", log=NO_CASE_LOG)
        event = failed_run(github, pull, run)
        fix = Reply(edit_block(bug.path, bug.wrong, bug.right, "javascript"), 4000, 90)
        done, _ = act(context, world, github, "workflow_run", event, [fix])
        fixes = [p for p in github.pulls(REPO) if p.number != pull.number]
        comments = [c.body for c in github.comments(REPO, pull.number)]
    branch = f"autofix/pr-{pull.number}"
    into = [(p.head_ref, p.base_ref) for p in fixes]
    body = fixes[0].body or "" if fixes else ""
    changed = world.show("diff", "--name-only", head, branch).splitlines()
    proof = next((line for line in body.splitlines() if line.startswith("**Proof**")), "")
    named = [f"`dist/index.spec.js::no case > {title}`" for title in NO_CASE_FAILING]
    return everywhere(world, done) + failed({
        "the log says the baseline ran the 31 tests, the 11 the job's log names failing in both runs":
            "autofix: baseline: 31 tests, 11 failing in both runs" in done.log,
        f"one pull request from {branch} into feature, got {into}": into == [(branch, "feature")],
        f"{branch} is one commit on the pull request's head": world.show("log", "-1", "--format=%P", branch) == head,
        f"the fix changes {bug.path} alone, got {changed}": changed == [bug.path],
        f"{bug.path} on {branch} is the project's own": show_file(world, branch, bug.path) == right,
        f"the pull request's proof: 11 of Jest's tests failed before, none after; got {proof!r}":
            "before the change, 11 failing (" in proof and all(name in proof for name in named)
            and "after it, 0 of them still failing, 0 new failures" in proof,
        "the pull request's test strength: Jest's suite killed both mutants of the line written":
            "(mutants of the code autofix wrote): tests killed 2 of 2 mutants" in body,
        f"one comment on #{pull.number} proposing the fix": len(comments) == 1
            and f"**Next:** review #{fixes[0].number if fixes else '?'}, which goes into this branch" in comments[0],
    })  # fmt: skip


# -- Go red CI: agnivade/levenshtein, a pull request that moves the uint16 path's bound --------------

LEVENSHTEIN_TITLE = "Take the uint16 path up to 65,536 runes"
# go test's lines for the test the bug fails, as its job's log has them.
LEVENSHTEIN_LOG = "".join(
    f"2026-05-01T10:00:02.0000000Z {line}\n"
    for line in (
        "--- FAIL: TestDistanceAboveUint16 (0.00s)", "    levenshtein_test.go:46: 65536: got 0, want 65536",
        "FAIL", f"FAIL\t{LEVENSHTEIN.name}\t0.011s", "FAIL", "##[error]Process completed with exit code 1.",
    )
)  # fmt: skip


def levenshtein_red_ci(context: Context, tmp: Path) -> list[str]:
    project, tree = LEVENSHTEIN, context.trees[LEVENSHTEIN.name]
    bug = project.bug
    # the host's module proxy: what the workflow's GOPROXY would be; `go version` says which go ran
    setup = f"GOPROXY={go_proxy(context)} go mod download && go version"
    config = f"setup: {json.dumps(setup)}\ntests:\n  command: {json.dumps(project.tests)}\nmax_attempts: 2\n"
    world = World(tmp, files_of(tree) | {".github/autofix.yml": config.encode()})
    right = (tree / bug.path).read_text()
    head = world.commit({bug.path: bug.plant(right).encode()}, LEVENSHTEIN_TITLE, branch="feature")
    world.checkout()
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_branch(REPO, "feature", sha=head)
        pull = github.add_pull(REPO, head="feature", base="master", title=LEVENSHTEIN_TITLE,
                               user="Codertocat")  # fmt: skip
        world.push_ref(head, f"refs/pull/{pull.number}/head")
        run = github.add_workflow_run(REPO, head_branch="feature", head_sha=head, event="pull_request",
                                      pull_requests=[pull.number])  # fmt: skip
        github.add_job(run, "test", log=LEVENSHTEIN_LOG)
        event = failed_run(github, pull, run)
        fix = Reply(edit_block(bug.path, bug.wrong, bug.right, "go"), 4000, 90)
        done, _ = act(context, world, github, "workflow_run", event, [fix])
        fixes = [p for p in github.pulls(REPO) if p.number != pull.number]
        comments = [c.body for c in github.comments(REPO, pull.number)]
    branch = f"autofix/pr-{pull.number}"
    into = [(p.head_ref, p.base_ref) for p in fixes]
    body = fixes[0].body or "" if fixes else ""
    changed = world.show("diff", "--name-only", head, branch).splitlines()
    proof = next((line for line in body.splitlines() if line.startswith("**Proof**")), "")
    return everywhere(world, done, setup=True) + failed({
        f"setup ran the image's go{IMAGE_GO}": f"go version go{IMAGE_GO} linux/" in done.log,
        f"one pull request from {branch} into feature, got {into}": into == [(branch, "feature")],
        f"{branch} is one commit on the pull request's head": world.show("log", "-1", "--format=%P", branch) == head,
        f"the fix changes {bug.path} alone, got {changed}": changed == [bug.path],
        f"{bug.path} on {branch} is the project's own": show_file(world, branch, bug.path) == right,
        "the log says the baseline ran the suite's 20 tests, the one the job's log names failing in both runs":
            "autofix: baseline: 20 tests, 1 failing in both runs" in done.log,
        f"the pull request's proof: go's test failed before, not after; got {proof!r}":
            "before the change, 1 failing (`.::TestDistanceAboveUint16`); after it, 0 of them still failing, "
            "0 new failures" in proof,
        "the pull request's test strength: go's suite killed 3 of the 4 mutants of the line written":
            "(mutants of the code autofix wrote): tests killed 3 of 4 mutants" in body,
        f"one comment on #{pull.number} proposing the fix": len(comments) == 1
            and f"**Next:** review #{fixes[0].number if fixes else '?'}, which goes into this branch" in comments[0],
    })  # fmt: skip


def go_proxy(context: Context) -> str:
    """The module proxy the host serves beside the index (smoke.py: projects.go_proxy's files)."""
    return context.index.removesuffix("/simple") + "/goproxy"


def failed_run(github: FakeGitHub, pull, run) -> dict:
    """The recorded `workflow_run` `completed` payload, made the failed run of `pull`."""
    event = copy.deepcopy(payload("workflow_run.completed.with-pull-requests"))
    listed = event["workflow_run"]["pull_requests"][0]
    listed.update(number=pull.number, url=f"{github.api_url}/repos/{REPO}/pulls/{pull.number}")
    listed["head"].update(ref=pull.head_ref, sha=pull.head_sha)
    event["workflow_run"].update(
        id=run.id, head_sha=run.head_sha, head_branch=run.head_branch, event="pull_request", conclusion="failure",
        html_url=f"{github.web_url}/{REPO}/actions/runs/{run.id}", pull_requests=[listed],
    )  # fmt: skip
    event["workflow_run"]["head_repository"].update(full_name=REPO, name=REPO.split("/")[1])
    event["workflow_run"]["head_repository"]["owner"]["login"] = REPO.split("/")[0]
    return event


# -- shared -------------------------------------------------------------------------------------


def planted(tree: Path, project: Project) -> dict[str, bytes]:
    files = files_of(tree)
    bug = project.bug
    files[bug.path] = bug.plant(files[bug.path].decode()).encode()
    return files


def config(project: Project, index: str, tests: bool = False) -> dict[str, bytes]:
    """.github/autofix.yml: the project's `setup` from the local index; its test command when the
    flow reads it there (free-form, red CI), not from an issue. JSON strings are YAML scalars."""
    lines = [f"setup: {json.dumps(project.setup.format(index=index))}", "max_attempts: 2"]
    lines += [f"tests:\n  command: {json.dumps(project.tests)}"] if tests else []
    return {".github/autofix.yml": "\n".join(lines).encode() + b"\n"}


def edit_block(path: str, search: str, replace: str, language: str = "python") -> str:
    return f"{path}\n```{language}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


def act(
    context: Context, world: World, github: FakeGitHub, event_name: str, event: dict, script: list | dict
) -> tuple[Done, list[str]]:
    """The job, with the model server playing `script`: what it did, and the stages it was asked."""
    with ScriptedOpenAI(script) as openai:
        done = world.act(context.engine, event_name, event, github.api_url, github.web_url, openai.base_url)
    # for --keep: what the model was told (the flow's account of what it refused), what GitHub got
    (world.tmp / "prompts.txt").write_text("\n\n-----\n\n".join(openai.prompts()))
    posted = [f"## #{p.number} {p.head_ref} -> {p.base_ref}: {p.title}\n\n{p.body}" for p in github.pulls(REPO)]
    posted += [f"## comment on #{c.issue_number}\n\n{c.body}" for c in github.comments(REPO)]
    (world.tmp / "github.md").write_text("\n\n".join(posted))
    return done, openai.stages()


def everywhere(world: World, done: Done, setup: bool = False) -> list[str]:
    """What every scenario must show: a clean exit, the landlock tier, the repository's
    environment where `setup` asks for one, a report the next step can read, and a workspace that
    is still the runner's."""
    outputs = read_outputs(world.mounts["file_commands"] / "set_output")
    report = outputs.get("report-path", "")
    found = world.workspace / report if report else None
    mode = found.stat().st_mode if found and found.exists() else 0
    readable = bool(found and found.exists()) and (
        (found.stat().st_uid == world.owner and bool(mode & stat.S_IRUSR)) or bool(mode & stat.S_IROTH)
    )
    foreign = world.foreign()
    return failed({
        f"autofix action exited {done.code}": done.code == 0,
        "the log names the landlock tier": "autofix: sandbox: landlock (" in done.log,
        f"the log says {ENV_LINE!r}...": not setup or ENV_LINE in done.log,
        f"report-path {report!r} is relative to the workspace": bool(report) and not report.startswith("/"),
        f"{report} is readable by the runner's user": readable,
        f"workspace entries not owned by uid {world.owner}: {foreign[:5]}": not foreign,
    })  # fmt: skip


def failed(checks: dict[str, bool]) -> list[str]:
    return [name for name, ok in checks.items() if not ok]


def show_file(world: World, branch: str, path: str) -> str:
    return world.show_raw("show", f"{branch}:{path}")


SCENARIOS = (
    Scenario("hostile", "a labeled issue; the first candidate reads .git/config and dials GitHub", hostile),
    Scenario("issue", f"{SLUGIFY.name} {SLUGIFY.version}, a labeled issue with a yaml block", slugify_issue),
    Scenario("free-form", f"{NUM2WORDS.name} {NUM2WORDS.version}, an issue in prose", num2words_freeform),
    Scenario("red-ci", f"{INFLECT.name} {INFLECT.version}, a pull request's failed run", inflect_red_ci),
    Scenario(
        "js-red-ci", f"{NO_CASE.name} {NO_CASE.version} from npm, a pull request's failed Jest run", no_case_red_ci
    ),
    Scenario(
        "go-red-ci",
        f"{LEVENSHTEIN.name} {LEVENSHTEIN.version} from the Go module proxy, a pull request's failed go test run",
        levenshtein_red_ci,
    ),
)
