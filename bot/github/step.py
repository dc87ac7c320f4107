"""What every flow of the Action shares: the step's collaborators (passed in, or built from the
config when not), its outcomes, and the ways a task ends: a report written and summarised, an
error told on GitHub and annotated on the file and line it names."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bot import safefs
from bot.core.report import Report
from bot.errors import ModelUnavailable, UserError
from bot.github import environment, render, trust
from bot.github.config import OUT, Config, RepoConfig
from bot.github.forge import Forge, PullResult
from bot.github.git import Git
from bot.github.workflow import Workflow, append_summary
from bot.models.base import REQUEST_TIMEOUT, Model, ModelSettings
from bot.models.registry import Hints, open_model, preload
from bot.redact import Redactor
from bot.sandbox.tiers import Sandbox, within
from bot.spec import Spec

if TYPE_CHECKING:
    from bot.judge.validate import Validator

SETUP_TIMEOUT = 1800
LOCATED = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+)(?::\d+)?: ")
KEY_HINT = "set the `openai-api-key` input (or `base-url` for a server that needs none)"

OpenModel = Callable[[ModelSettings, Callable[[str], str], Hints], Model]


class Skip(Exception):
    """Nothing for autofix to do on this event: one line saying why, exit 0."""


@dataclass
class TaskOutcome:
    """What one task led to, for the step's outputs and the job summary."""

    passed: bool = False
    attempts: int = 0
    pull: PullResult | None = None
    operation: str = "none"
    report: Report | None = None  # kept as soon as the loop starts, so an error can still show it
    report_path: Path | None = None
    comment_path: Path | None = None  # a CI repair's comment, for a job that posts it
    commented: int | None = None  # the issue or pull request autofix's comment on the task is on
    asked: int | None = None  # the issue the task came from
    verdict: str = ""  # the line the body or comment opened with, which the job summary opens with too
    summary: list[str] | None = None  # the job summary's heading and details, written when the step ends


@dataclass
class Step:
    config: Config
    flow: Workflow
    redact: Redactor
    outcomes: list[TaskOutcome] = field(default_factory=list)
    given_forge: Forge | None = None
    given_git: Git | None = None
    open_model: OpenModel = open_model
    given_sandbox: Sandbox | None = None
    opened_sandbox: Sandbox | None = None
    untracked: frozenset[str] | None = None  # the workspace's untracked files before autofix's setup ran
    repo_env: environment.Environment | None = None  # the repository's environment, once setup made it
    cleanup: ExitStack = field(default_factory=ExitStack)  # undone when the step ends, however it ends
    bundle: Path | None = None  # the certificates the step's HTTPS clients verify against, once written

    def __post_init__(self) -> None:
        # The job summary links what each task made, so it is written once all of it is made:
        # when the step ends (the first callback in, the last out), however it ends.
        self.cleanup.callback(self.write_summaries)

    @property
    def forge(self) -> Forge:
        if self.given_forge is None:
            c = self.config
            trusted = self.trusted()
            self.given_forge = Forge(c.api_url, c.token or "", c.repository, log=self.flow.print, ca_bundle=trusted)
        return self.given_forge

    @property
    def git(self) -> Git:
        if self.given_git is None:
            c = self.config
            self.given_git = Git(c.workspace, c.server_url, c.basic_auth, self.redact, ca_bundle=self.trusted())
        return self.given_git

    def trusted(self) -> Path | None:
        """The public roots and `ca-bundle`'s certificates in one file (trust.py), written once for
        the step; None without `ca-bundle`: each client trusts its usual roots."""
        if self.config.ca_bundle is not None and self.bundle is None:
            folder = self.cleanup.enter_context(tempfile.TemporaryDirectory(prefix="autofix-trust-"))
            self.bundle = trust.bundle(self.config.ca_bundle, Path(folder))
        return self.bundle

    def preload_model(self, spec: Spec | RepoConfig) -> None:
        """The model's SDK imported on a thread while the tests run: the first call doesn't wait for it."""
        preload(self.config.model or spec.model)

    def model(self, spec: Spec | RepoConfig) -> Model:
        """The configured model (the step's inputs win over the spec or config); prompts masked."""
        c = self.config
        settings = ModelSettings(
            name=c.model or spec.model, api=c.api or spec.api or "responses", base_url=c.base_url, api_key=c.api_key,
            ca_bundle=str(trusted) if (trusted := self.trusted()) else None,
            timeout=c.request_timeout or spec.request_timeout or c.repo.request_timeout or REQUEST_TIMEOUT,
            map_tokens=c.repo.map_tokens, temperature=spec.temperature,
        )  # fmt: skip
        hints = Hints(f"set the `model` input, or `model:` in {c.config_path} or the spec", KEY_HINT)
        model = self.open_model(settings, self.redact, hints)
        self.flow.print(f"autofix: {model.banner}")
        return model

    def sandbox(self) -> Sandbox:
        """The sandbox the tests run in: the one given, or the configured one; opened and named
        in the log once for the whole step."""
        if self.opened_sandbox is None:
            sandbox = self.given_sandbox
            if sandbox is None:
                from bot.judge.validate import open_test_sandbox

                def warn(text: str) -> None:
                    self.flow.annotate("warning", text)

                from bot.judge.js.command import linked_modules

                readable = [
                    *(self.repo_env.readable() if self.repo_env else []),
                    *linked_modules(self.config.workspace),
                ]
                sandbox = open_test_sandbox(self.config.sandbox, "input sandbox", warn, also=readable)
            self.flow.print(f"autofix: sandbox: {sandbox.describe()}")
            if sandbox.declined:
                self.flow.print(f"autofix: sandbox: not stronger because {sandbox.declined}")
            if sandbox.tier in ("process", "none") and (self.config.workspace / ".git").is_dir():
                # Nothing hides the workspace from a test run on these tiers: its token goes.
                aside = self.cleanup.enter_context(self.git.credentials_set_aside())
                if aside:
                    self.flow.print(
                        f"autofix: sandbox: the {sandbox.tier} tier can't hide the workspace from the tests, so the "
                        f"checkout's credentials ({', '.join(aside)}) are out of .git/config while they run"
                    )
            self.opened_sandbox = sandbox
        return self.opened_sandbox

    def left_out(self) -> frozenset[str]:
        """What no scratch copy of the workspace holds: every file git doesn't track that was
        there before autofix's `setup` ran — what earlier steps of the job left, credential files
        among them (google-github-actions/auth's gha-creds-*.json, a .git-credentials). Listed
        once, before the setup; what the setup makes is the repository's and is copied. Not the
        environment a cache brought back, nor a node_modules (the workflow's `npm ci`, which the
        JavaScript tests import from): the copies share them, read-only."""
        if self.untracked is None:
            self.untracked = frozenset(
                path.rstrip("/")
                for path in self.git.untracked()
                if not within(path, environment.ENV) and "node_modules" not in path.split("/")
            )
        return self.untracked

    def validator(self, spec: Spec) -> Validator:
        """The judge of a spec's candidates, in a scratch copy without what `left_out` names."""
        from bot.judge.validate import Validator

        return Validator(spec, self.sandbox(), leave_out=self.left_out())

    @contextmanager
    def checkout(self, commit: str, prefix: str) -> Iterator[Git]:
        """`commit`'s files in a folder of their own (Git.checkout), with the workspace's
        node_modules lent to them (environment.lend_node_modules)."""
        with self.git.checkout(commit, self.config.temp, prefix) as tree:
            environment.lend_node_modules(self.config.workspace, tree.workdir)
            yield tree

    def setup(self) -> None:
        """The repository's environment (bot/github/environment.py), where `setup`, `python`, `node`
        or `go` asks for one: made, `setup` run in it (the one step with network, as a uid of its
        own, the checkout's credentials out of .git/config), and first on the tests' PATH from here
        on."""
        self.left_out()  # before the setup makes anything
        repo = self.config.repo
        if not repo.setup and not repo.python and not repo.node and not repo.go:
            return
        if os.geteuid() != 0:
            self.flow.annotate(
                "warning",
                "setup runs as autofix's own uid (autofix is not root, as it is in its image): it could read "
                "autofix's environment through /proc",
            )
        with self.flow.group("setup"), self.git.credentials_set_aside():
            made = environment.build(
                self.config.workspace, repo.python, repo.setup, self.config.config_path, SETUP_TIMEOUT,
                self.flow.untrusted, tier=self.config.sandbox, private=[self.config.temp], node=repo.node, go=repo.go,
            )  # fmt: skip
        self.repo_env = made
        self.cleanup.enter_context(environment.activated(made))
        self.flow.print(f"autofix: the tests run with {environment.ENV} ({made.versions()}) first on their PATH")

    def for_github(self, markdown: str) -> str:
        """A body GitHub takes: secrets masked first, so a cut never leaves part of one."""
        return render.capped(self.redact(markdown))

    def finish(self, report: Report, name: str, outcome: TaskOutcome, heading: str, details: str = "") -> None:
        """The one way a task's report ends, however the task ended: the outcome counts its
        attempts, the report is written as `autofix-<name>.json`; the job summary gets `heading`,
        the task's verdict line, the links to what it made and `details` when the step ends."""
        outcome.attempts, outcome.passed = len(report.attempts), report.passed
        self.write_report(report, name, outcome)
        outcome.summary = [heading, details]

    def write_summaries(self) -> None:
        """Run as the step ends, after its result: a summary file the runner can't take costs a
        warning, never the step's exit code."""
        for outcome in self.outcomes:
            if outcome.summary is not None:
                heading, details = outcome.summary
                try:
                    append_summary(self.config.summary, self.summary(outcome, heading, details), self.redact)
                except OSError as exc:
                    self.flow.annotate("warning", f"the job summary was not written: {system_error(exc)}")
                    return

    def summary(self, outcome: TaskOutcome, heading: str, details: str) -> str:
        """A task's part of the job summary: what the body or comment opened with, and links."""
        report = outcome.report
        said = outcome.verdict or (
            f"{'✅' if outcome.passed else '❌'} {report.stop_reason}." if report and report.stop_reason else ""
        )
        c = self.config
        page = f"{c.server_url}/{c.repository}"
        made = []
        if outcome.pull is not None:
            made.append(f"[pull request #{outcome.pull.number}]({outcome.pull.url})")
        if outcome.commented is not None:
            made.append(f"[the comment on #{outcome.commented}]({page}/issues/{outcome.commented})")
        if outcome.comment_path is not None and not c.publish:
            made.append(f"the comment to post, {render.code_span(c.shown(outcome.comment_path))}")
        if outcome.asked is not None and outcome.asked != outcome.commented:
            made.append(f"asked in [#{outcome.asked}]({page}/issues/{outcome.asked})")
        if outcome.report_path is not None:
            made.append(f"the report, {render.code_span(c.shown(outcome.report_path))}")
        shown = " · ".join(made)
        return "\n\n".join(part for part in (heading, said, shown and f"**Made:** {shown}", details) if part)

    def write_report(self, report: Report, name: str, outcome: TaskOutcome) -> None:
        outcome.report_path = self.write_out(f"autofix-{name}.json", report.text(self.redact))

    def write_out(self, name: str, text: str) -> Path:
        """`text` as the file `name` among the reports and comment files: in the workspace, which
        the job's next steps see at the same relative path (RUNNER_TEMP inside a container action
        is a path the runner doesn't have). Every folder on the way is opened without following a
        link: what an earlier step left in the workspace can't make autofix, as root, write elsewhere."""
        workspace = self.config.workspace
        try:
            safefs.write_file(workspace, f"{OUT}/.gitignore", b"*\n")  # keeps the folder out of `git status`
            safefs.write_file(workspace, f"{OUT}/{name}", text.encode("utf-8"))
        except OSError as exc:
            raise UserError(
                f"{OUT}/{name}: not written: {exc.strerror}; autofix writes its reports only where no link stands"
            ) from None
        return workspace / OUT / name

    def tell_error(
        self, exc: UserError | ModelUnavailable | OSError, doing: str, post: Callable[[str], object]
    ) -> UserError | ModelUnavailable:
        """The error a task stopped with, posted where the task came from (`post` takes the
        headline); if even that fails, the job's error annotation still tells. Returns what the
        step fails with: an OSError (a folder the runner lacks, a full disk) as a one-line UserError."""
        error = exc if isinstance(exc, UserError | ModelUnavailable) else system_error(exc)
        try:
            post(f"❌ autofix stopped with an error{doing}:\n\n{render.fence(str(error))}")
        except UserError as unreported:
            self.annotate_error(unreported)
        return error

    def annotate_error(self, exc: Exception) -> None:
        """One error annotation, on the file and line the message names when it names one."""
        message = str(exc)
        found = LOCATED.match(message)
        if found is None:
            self.flow.annotate("error", message)
            return
        workspace = self.config.workspace
        file = Path(found["file"])
        if file.is_absolute() and file.is_relative_to(workspace):
            file = file.relative_to(workspace)
        if file.is_absolute() or not (workspace / file).is_file():  # e.g. "issue #3, yaml block:2:"
            self.flow.annotate("error", message)
            return
        self.flow.annotate("error", message, file=str(file), line=int(found["line"]))


def system_error(exc: OSError) -> UserError:
    """An OSError as the one line a user reads: the path it names and the system's words."""
    where = f"{exc.filename}: " if exc.filename is not None else ""
    return UserError(f"{where}{exc.strerror or exc}")
