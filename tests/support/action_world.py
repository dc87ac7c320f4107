"""A GitHub Actions runner's world for `autofix action`: a fake GitHub API, a bare git `origin`,
a checked-out workspace, the real webhook payloads and the environment of a container action."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

from fake_github import FIXTURES_DIR, FakeGitHub
from fake_openai import ScriptedOpenAI

from bot.github.dispatch import main
from bot.github.forge import Forge, Pacing

EVENTS = FIXTURES_DIR / "events"
REPO = "Codertocat/Hello-World"  # the repository of the recorded payloads
TOKEN = "ghs_plantedGitHubToken0123456789"
API_KEY = "sk-planted-openai-key-0123456789"
# GitHub calls against the local fake: no pacing, and retries after hundredths of a second.
FAST = Pacing(between_requests=None, between_writes=None, timeout=5, retries=3, first_wait=0.01, budget=1.0)
CHECKS = """\
assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2], "order"
assert unique_items([]) == [], "empty"
assert unique_items([5, 5, 5]) == [5], "duplicates"
assert unique_items(["b", "a", "b"]) == ["b", "a"], "strings"
"""
ISSUE_BODY = (
    "Remove duplicates from a list, keeping the first-seen order.\n\n```yaml\ntarget: unique.py\ntests:\n  code: |\n"
    + "".join(f"    {line}\n" for line in CHECKS.splitlines())
    + "```\n"
)
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Mona", "GIT_AUTHOR_EMAIL": "mona@example.com",
    "GIT_COMMITTER_NAME": "Mona", "GIT_COMMITTER_EMAIL": "mona@example.com",
}  # fmt: skip


def payload(name: str) -> dict:
    return json.loads((EVENTS / f"{name}.json").read_text())


def labeled(
    label: str = "autofix", sender: str = "Codertocat", sender_type: str = "User", body: str = ISSUE_BODY
) -> dict:
    """The recorded `issues` `labeled` payload, with our label, sender and issue text."""
    event = payload("issues.labeled")
    event["label"]["name"] = label
    event["sender"].update(login=sender, type=sender_type)
    event["issue"].update(number=1, title="unique_items loses the order", body=body)
    return event


class World:
    def __init__(self, tmp: Path, monkeypatch, github: FakeGitHub, openai_url: str | None = None):
        self.tmp, self.monkeypatch, self.github = tmp, monkeypatch, github
        self.inputs: dict[str, str] = {}
        self.origin = tmp / "origin.git"
        self.workspace = tmp / "workspace"
        self.temp = tmp / "runner-temp"
        self.temp.mkdir()
        self.output = self.temp / "output"
        self.summary = self.temp / "summary.md"
        github.add_repo(REPO, default_branch="master")
        github.add_issue(REPO, "unique_items loses the order", ISSUE_BODY, user="Codertocat")
        monkeypatch.setenv(
            "GIT_CONFIG_GLOBAL", str(tmp / "gitconfig")
        )  # the world's own git: not the developer's config
        monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        self.git("init", "--quiet", "--bare", "--initial-branch=master", str(self.origin), cwd=tmp)
        seed = tmp / "seed"
        self.git("clone", "--quiet", str(self.origin), str(seed), cwd=tmp)
        (seed / "README.md").write_text("# Hello-World\n")
        self.git("add", ".", cwd=seed)
        self.git("commit", "--quiet", "-m", "initial", cwd=seed)
        self.git("push", "--quiet", "origin", "master", cwd=seed)
        self.seed = seed
        self.checkout()
        inputs = {
            "github-token": TOKEN, "openai-api-key": API_KEY, "model": "m", "api": "", "base-url": openai_url or "",
            "max-attempts": "", "label": "", "config": ".github/autofix.yml", "specs": "", "spec": "",
            "draft": "", "sandbox": "auto", "plan": "false", "workflow-token": TOKEN,
        }  # fmt: skip
        for name, value in inputs.items():
            self.input(name, value)
        for name, value in {
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_API_URL": github.api_url,
            "GITHUB_SERVER_URL": github.web_url,
            "GITHUB_OUTPUT": str(self.output),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "RUNNER_TEMP": str(self.temp),
        }.items():
            monkeypatch.setenv(name, value)
        for name in ("GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT"):  # no run: no progress shown, unless a test gives one
            monkeypatch.delenv(name, raising=False)

    def git(self, *args: str, cwd: Path | None = None) -> str:
        done = subprocess.run(["git", *args], cwd=cwd or self.workspace, env={**_base_env(), **GIT_IDENTITY},
                              capture_output=True, text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    def commit_to_origin(self, files: dict[str, str]) -> None:
        """A maintainer's commit on master, then a fresh checkout of it."""
        self.git("pull", "--quiet", "origin", "master", cwd=self.seed)
        for relpath, text in files.items():
            (self.seed / relpath).parent.mkdir(parents=True, exist_ok=True)
            (self.seed / relpath).write_text(text)
        self.git("add", ".", cwd=self.seed)
        self.git("commit", "--quiet", "-m", "maintainer's change", cwd=self.seed)
        self.git("push", "--quiet", "origin", "master", cwd=self.seed)
        self.checkout()

    def checkout(self) -> None:
        """What actions/checkout gives each job: a fresh clone of master."""
        shutil.rmtree(self.workspace, ignore_errors=True)
        self.git("clone", "--quiet", "--branch", "master", str(self.origin), str(self.workspace), cwd=self.tmp)

    def input(self, name: str, value: str) -> None:
        self.inputs[name] = value
        self.monkeypatch.setenv(f"INPUT_{name.upper()}", value)

    def event(self, name: str, body: dict) -> None:
        path = self.temp / "event.json"
        path.write_text(json.dumps(copy.deepcopy(body)))
        self.monkeypatch.setenv("GITHUB_EVENT_NAME", name)
        self.monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))

    def outputs(self) -> dict[str, str]:
        values = read_outputs(self.output)
        self.output.unlink(missing_ok=True)
        return values

    def branches(self) -> list[str]:
        refs = self.git("for-each-ref", "--format=%(refname:short)", "refs/heads", cwd=self.origin)
        return sorted(refs.splitlines())

    def show(self, rev: str, fmt: str = "%H") -> str:
        return self.git("log", "-1", f"--format={fmt}", rev, cwd=self.origin)

    def file_at(self, branch: str, relpath: str) -> str:
        return self.git("show", f"{branch}:{relpath}", cwd=self.origin) + "\n"

    @property
    def out(self) -> Path:
        """Where autofix leaves its reports and comment files: in the workspace, for the next steps."""
        return self.workspace / ".autofix" / "out"

    def written_text(self) -> str:
        """Everything autofix wrote where a secret could leak: outputs, summary, reports, GitHub."""
        texts = [p.read_text() for p in self.temp.iterdir() if p.is_file()]
        texts += [p.read_text() for p in self.out.iterdir()] if self.out.is_dir() else []
        texts += [p.body or "" for p in self.github.pulls(REPO)] + [c.body for c in self.github.comments(REPO)]
        return "\n".join(texts)


def read_outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it (heredoc blocks; the last value of a name wins)."""
    values: dict[str, str] = {}
    lines = path.read_text().split("\n") if path.exists() else []
    i = 0
    while i < len(lines) - 1:
        name, delimiter = lines[i].split("<<", 1)
        end = lines.index(delimiter, i + 1)
        values[name] = "\n".join(lines[i + 1 : end])
        i = end + 1
    return values


def _base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_AUTHOR") and not k.startswith("GIT_COMMITTER")}


def act(capsys, world: World, replies=()) -> tuple[int, list[str], ScriptedOpenAI]:
    """One `autofix action` step with a model server playing `replies`: (exit code, stdout lines, server)."""
    with ScriptedOpenAI(replies if isinstance(replies, dict) else list(replies)) as openai:
        world.input("base-url", openai.base_url)
        for (
            name,
            value,
        ) in world.inputs.items():  # the runner gives every step its inputs; autofix removes the secret ones
            world.input(name, value)
        # GitHub through a Forge paced for the local fake, passed in like any collaborator.
        code = main(os.environ, forge=Forge(world.github.api_url, TOKEN, REPO, FAST))
    return code, capsys.readouterr().out.splitlines(), openai
