"""What `make act` runs: the README's workflows under nektos/act (act_workflow.py), one job each,
against the fake GitHub and the scripted model server on the host's loopback, then what a user
would check on GitHub and in the step's outputs.

- issue:   a labeled issue (autofix-issues.yml), the first candidate passes: a pull request;
- failing: the same issue, every candidate fails: one comment on the issue, the step exits 1;
- red-ci:  inflect's real suite (its PyPI sdist), `setup: pip install -e '.[test]'` from the local
           index, a pull request's failed `workflow_run` (autofix-red-ci.yml): the fix proposed
           into the pull request's branch;
- comment: `/autofix` commented on the issue (autofix-issues.yml's `issue_comment`): a pull request.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from act_workflow import ACTION, Run, act, workflow
from action_world import ISSUE_BODY, REPO, labeled, payload
from fake_github import FakeGitHub
from fake_openai import Reply, ScriptedOpenAI
from projects import INFLECT, files_of
from runner import World, chown_tree
from scenarios import ENV_LINE, INFLECT_LOG, RIGHT, Scenario, config, edit_block, failed, failed_run, show_file

WRONG = "```python\ndef unique_items(items):\n    return sorted(set(items))\n```"
TITLE = "unique_items loses the order"


@dataclass(frozen=True)
class Context:
    action: Path  # the action as the checkout holds it: action.yml, the Dockerfile, what it copies
    platform: str  # the job's image (`runs-on: ubuntu-latest`)
    docker_host: str  # podman's API
    userns: str  # every container's user namespace (act_service.shifted_userns)
    index: str  # the local package index's URL
    inflect: Path  # inflect's unpacked sdist


def issue(context: Context, tmp: Path) -> list[str]:
    world = checkout(context, World(tmp, {"README.md": b"# Hello-World\n"}))
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_issue(REPO, TITLE, ISSUE_BODY, user="Codertocat")
        run = job(context, world, github, "issues", labeled(), "autofix-issues.yml", [Reply(RIGHT, 250, 60)])
        pulls, comments = github.pulls(REPO), [c.body for c in github.comments(REPO, 1)]
    return opened(world, run, pulls, comments, "1")


def failing(context: Context, tmp: Path) -> list[str]:
    files = {"README.md": b"# Hello-World\n", ".github/autofix.yml": b"max_attempts: 2\n"}
    world = checkout(context, World(tmp, files))
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_issue(REPO, TITLE, ISSUE_BODY, user="Codertocat")
        script = [Reply(WRONG, 250, 60), Reply(WRONG, 250, 60)]
        run = job(context, world, github, "issues", labeled(), "autofix-issues.yml", script)
        pulls, comments = github.pulls(REPO), [c.body for c in github.comments(REPO, 1)]
    return everywhere(world, run, passed=False) + failed({
        f"act exited {run.code}, not 1 (the job failed)": run.code == 1,
        "the autofix step exited 1": "exit with `FAILURE`: 1" in run.log,
        f"no pull request, got {[p.head_ref for p in pulls]}": not pulls,
        f"one comment on #1, got {len(comments)}": len(comments) == 1,
        f"outputs: 2 attempts, no pull request, got {run.outputs}": run.outputs.get("attempts") == "2"
            and run.outputs.get("pr-operation") == "none" and run.outputs.get("pr-number") == "",
    })  # fmt: skip


def red_ci(context: Context, tmp: Path) -> list[str]:
    bug, tree = INFLECT.bug, context.inflect
    world = World(tmp, files_of(tree) | config(INFLECT, context.index, tests=True))
    right = (tree / bug.path).read_text()
    head = world.commit({bug.path: bug.plant(right).encode()}, "Speed up ordinal suffixes", branch="feature")
    checkout(context, world)
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_branch(REPO, "feature", sha=head)
        pull = github.add_pull(REPO, head="feature", base="master", title="Speed up ordinal suffixes",
                               user="Codertocat")  # fmt: skip
        world.push_ref(head, f"refs/pull/{pull.number}/head")
        ci = github.add_workflow_run(REPO, head_branch="feature", head_sha=head, event="pull_request",
                                     pull_requests=[pull.number])  # fmt: skip
        github.add_job(ci, "test", log=INFLECT_LOG)
        fix = Reply(edit_block(bug.path, bug.wrong, bug.right), 4000, 90)
        run = job(context, world, github, "workflow_run", failed_run(github, pull, ci), "autofix-red-ci.yml", [fix])
        fixes = [p for p in github.pulls(REPO) if p.number != pull.number]
        comments = [c.body for c in github.comments(REPO, pull.number)]
    branch = f"autofix/pr-{pull.number}"
    into = [(p.head_ref, p.base_ref) for p in fixes]
    changed = world.show("diff", "--name-only", head, branch).splitlines()
    number = str(fixes[0].number) if fixes else "?"
    return everywhere(world, run, passed=True) + failed({
        f"act exited {run.code}": run.code == 0,
        f"the log says {ENV_LINE!r}... (setup ran)": ENV_LINE in run.log,
        f"one pull request from {branch} into feature, got {into}": into == [(branch, "feature")],
        f"the fix changes {bug.path} alone, got {changed}": changed == [bug.path],
        f"{bug.path} on {branch} is the project's own": show_file(world, branch, bug.path) == right,
        f"one comment on #{pull.number} proposing #{number}":
            len(comments) == 1 and f"**Next:** review #{number}, which goes into this branch" in comments[0],
        f"outputs: the pull request created, its comment's file, got {run.outputs}":
            run.outputs.get("pr-operation") == "created" and run.outputs.get("pr-number") == number
            and run.outputs.get("comment-path", "").startswith(".autofix/"),
    })  # fmt: skip


def comment(context: Context, tmp: Path) -> list[str]:
    world = checkout(context, World(tmp, {"README.md": b"# Hello-World\n"}))
    with FakeGitHub() as github:
        github.add_repo(REPO, default_branch="master")
        github.add_issue(REPO, TITLE, ISSUE_BODY, user="Codertocat")
        asked = github.add_comment(REPO, 1, "/autofix", user="Codertocat")
        event = payload("issue_comment.created")
        event["comment"].update(id=asked.id, body="/autofix")
        event["issue"].update(number=1, title=TITLE, body=ISSUE_BODY)
        event["sender"].update(login="Codertocat", type="User")
        run = job(context, world, github, "issue_comment", event, "autofix-issues.yml", [Reply(RIGHT, 250, 60)])
        pulls = github.pulls(REPO)
        comments = [c.body for c in github.comments(REPO, 1) if c.id != asked.id]
    asker = "autofix: issue #1, /autofix by @Codertocat (admin)"
    return opened(world, run, pulls, comments, "1") + failed({"the log says who asked": asker in run.log})


# -- shared -------------------------------------------------------------------------------------


def checkout(context: Context, world: World) -> World:
    """The runner's checkout, with the action in it (untracked, ignored by git: never committed).
    The action's files stay root's: act reads them out of the job's container, and podman's copier
    can't map the runner's uid into a namespace it didn't make (shifted_userns) — it refuses them."""
    world.checkout()
    with (world.workspace / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(f"/{ACTION}/\n")
    shutil.copytree(context.action, world.workspace / ACTION)
    chown_tree(world.workspace / ACTION, 0)
    return world


def job(context: Context, world: World, github: FakeGitHub, event_name: str, event: dict, workflow_name: str,
        script: list) -> Run:  # fmt: skip
    """The workflow's job under act, the model server playing `script`."""
    with ScriptedOpenAI(script) as openai:
        run = act(event_name=event_name, event=event, workflow_text=workflow(workflow_name, openai.base_url),
                  workdir=world.workspace, tmp=world.tmp, platform=context.platform,
                  docker_host=context.docker_host, userns=context.userns, mounts=[world.origin], api_url=github.api_url,
                  web_url=github.web_url)  # fmt: skip
    # for --keep: what GitHub got
    posted = [f"## #{p.number} {p.head_ref} -> {p.base_ref}: {p.title}\n\n{p.body}" for p in github.pulls(REPO)]
    posted += [f"## comment on #{c.issue_number}\n\n{c.body}" for c in github.comments(REPO)]
    (world.tmp / "github.md").write_text("\n\n".join(posted))
    return run


def opened(world: World, run: Run, pulls: list, comments: list[str], number: str) -> list[str]:
    """An issue's job that passed: its pull request, and the one comment linking it."""
    heads = [pull.head_ref for pull in pulls]
    pr = str(pulls[0].number) if pulls else "?"
    changed = world.show("diff", "--name-only", "master", "autofix/issue-1").splitlines()
    return everywhere(world, run, passed=True) + failed({
        f"act exited {run.code}": run.code == 0,
        f"one pull request from autofix/issue-{number}, got {heads}": heads == [f"autofix/issue-{number}"],
        f"the pull request says it fixes #{number}": bool(pulls) and f"Fixes #{number}" in (pulls[0].body or ""),
        f"the pull request adds unique.py alone, got {changed}": changed == ["unique.py"],
        f"one comment on #{number}, linking #{pr}": len(comments) == 1 and f"#{pr}" in comments[0],
        f"outputs: 1 attempt, #{pr} created, got {run.outputs}": run.outputs.get("attempts") == "1"
            and run.outputs.get("pr-operation") == "created" and run.outputs.get("pr-number") == pr
            and run.outputs.get("pr-url", "").endswith(f"/{REPO}/pull/{pr}"),
    })  # fmt: skip


def everywhere(world: World, run: Run, passed: bool) -> list[str]:
    """What every job must show: the landlock tier, `passed` in the outputs and in the report the
    next step read (relative to the workspace, as actions/upload-artifact takes it), and a
    workspace that is still the runner's."""
    foreign = [path for path in world.foreign() if not path.startswith(f"workspace/{ACTION}")]  # root's: checkout()
    report = run.outputs.get("report-path", "")
    return failed({
        "the log names the landlock tier": "autofix: sandbox: landlock (" in run.log,
        f"outputs: passed {str(passed).lower()}, got {run.outputs}": run.outputs.get("passed") == str(passed).lower(),
        f"report-path {report!r} is under .autofix/out/": report.startswith(".autofix/out/"),
        f"the next step read the report: passed {passed} on landlock, got {run.report}":
            run.report.get("passed") is passed and str(run.report.get("sandbox")).startswith("landlock ("),
        f"workspace entries not owned by uid {world.owner}: {foreign[:5]}": not foreign,
    })  # fmt: skip


SCENARIOS = (
    Scenario("issue", "a labeled issue, the first candidate passes", issue),
    Scenario("failing", "a labeled issue, both candidates fail", failing),
    Scenario("red-ci", f"{INFLECT.name} {INFLECT.version}, a pull request's failed run", red_ci),
    Scenario("comment", "/autofix on an issue", comment),
)
