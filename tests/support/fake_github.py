"""A stateful fake of the GitHub REST API, for tests.

Stdlib only.  ``FakeGitHub`` runs a ``ThreadingHTTPServer`` on 127.0.0.1 (a free
port) in a background thread; the real PyGithub (or any HTTP client) talks to it
over HTTP::

    with FakeGitHub(login="github-actions[bot]") as fake:
        fake.add_repo("octo/widgets")
        gh = github.Github(base_url=fake.api_url, auth=github.Auth.Token("t"))
        gh.get_repo("octo/widgets").create_issue("hello")
        assert [r.path for r in fake.writes()] == ["/repos/octo/widgets/issues"]

Response bodies are built from the recorded real API bodies in the shared
fixtures folder (``api/*.json``, ``events/workflow_run.completed.json``): a
fixture body is copied, its URLs are moved onto this server, and the fields that
carry state (ids, numbers, title, body, state, refs, users, labels, ...) are
overwritten.  So the field sets are the real API's.

The API is served both at the root (``fake.api_url``, like api.github.com) and
under ``/api/v3`` (``fake.ghes_api_url``, like GitHub Enterprise Server); URLs in
responses (including ``Link`` pagination headers) use the base the request came
in on.  ``fake.web_url`` (the root) stands in for https://github.com.

Real-API behaviour reproduced on purpose (tests can rely on it):

* issue and pull request numbers share one sequence per repository, and the
  issues endpoints also list/return pull requests (with a ``pull_request`` key);
* ``GET /pulls?head=branch`` without the ``owner:`` prefix silently ignores the
  head filter (GitHub does this), only ``head=owner:branch`` filters;
* creating a second open PR for the same head and base gives 422
  ``A pull request already exists for owner:branch.``;
* ``permission`` in the collaborator-permission body is the legacy value
  (``maintain`` -> ``write``, ``triage`` -> ``read``), ``role_name`` is the role;
  a login never given a permission reads as ``read`` on a public repository and
  ``none`` on a private one;
* job logs answer 302 with a ``Location`` to a plain-text URL (served here, no
  auth needed), like the real signed log URL;
* error bodies are ``{"message", ["errors"], "documentation_url", "status"}``;
* a repository created with ``drafts=False`` (a private one on GitHub Free) refuses a
  draft pull request with 422 "Draft pull requests are not supported in this repository.";
* with ``permissions`` (a workflow's ``permissions:``, e.g. from
  ``workflow_permissions(path, job)``) the token is a ``GITHUB_TOKEN``: a call that needs more
  gets 403 "Resource not accessible by integration", ``GET /user`` too (installation tokens
  have no user); reads of a public repository need no permission; comments and reactions need
  the ``issues`` or the ``pull-requests`` permission, after what they are on; the git database
  (``/git/*``) needs ``contents``;
* reacting twice with the same content answers 200 with the reaction already there (201 the
  first time);
* the git database (``/git/blobs``, ``trees``, ``commits``, ``refs``; fake_git.py) hashes objects as
  git does, reads the objects it didn't create from ``Repo.git.pushed`` (a bare repository holding
  what was pushed), and keeps its refs in ``Repo.branches``; a commit a bot makes without author,
  committer or signature is signed and reported ``verification.verified`` true, as GitHub signs
  it; a ref update that is not a fast-forward needs ``force``.

Faults, per route: ``fail_next`` answers with any status, body and headers (5xx, 429 with or
without ``Retry-After``); ``reset_next`` drops the connection without an answer (a TCP
reset); ``truncate_next`` sends the real answer but only half its body, with the full
``Content-Length``.  A job's ``log`` may be a function returning chunks of bytes: it is
streamed, never held whole, so tests can serve logs of any size.

PyGithub's defaults matter in tests: ``Github()`` waits 0.25 s between requests and
1 s between writes, and retries 5xx (GET and POST) and rate-limit 403s up to 10
times, so one injected 500 is invisible to it.  ``fake.client()`` builds a
``Github`` with throttling and retries off; code under test that builds its own
``Github`` needs a way to receive those settings to stay fast and see errors.

Deliberate simplifications: every request needs an ``Authorization`` header
(the real API serves public data anonymously); no ETags/conditional requests;
no rate limiting of its own (the rate-limit headers are constant; inject 403/429 answers);
git itself (push, fetch) is not served: tests push to a bare repository of their own.
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import http.server
import itertools
import json
import os
import re
import selectors
import socket
import ssl
import struct
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from fake_git import MODES, BadPath, CommitInfo, GitStore, Person

__all__ = [
    "FakeGitHub",
    "Repo",
    "User",
    "Label",
    "Issue",
    "PullRequest",
    "Comment",
    "Reaction",
    "WorkflowRun",
    "Job",
    "Review",
    "ReviewComment",
    "ReviewThread",
    "RecordedRequest",
    "PERMISSIONS",
    "FIXTURES_DIR",
    "workflow_permissions",
]

# --------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------


def _find_fixtures_dir() -> Path:
    env = os.environ.get("FAKE_GITHUB_FIXTURES")
    candidates = [Path(env)] if env else []
    # A copy travels with the repository (for CI on GitHub); the workplace's shared/ is the source.
    candidates.append(Path(__file__).resolve().parent / "fixtures" / "github")
    candidates.append(Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "github")
    for c in candidates:
        if (c / "api" / "repos.get.json").is_file():
            return c
    raise FileNotFoundError(
        "GitHub API fixtures not found; set FAKE_GITHUB_FIXTURES to the folder holding api/ and events/"
    )


FIXTURES_DIR = _find_fixtures_dir()


@functools.cache
def _fixture(rel: str) -> Any:
    with open(FIXTURES_DIR / rel, encoding="utf-8") as f:
        return json.load(f)


def _tmpl(rel: str, *keys: Any) -> Any:
    """A fresh deep copy of a fixture body (or of a part of it)."""
    data = _fixture(rel)
    for k in keys:
        data = data[k]
    return copy.deepcopy(data)


# The repository full names / logins the fixture bodies were recorded with.
_T_REPO_FULL = "octokit-fixture-org/hello-world"  # api/repos.get.json
_T_PULL_FULL = "<GITHUB_LOGIN>/<GITHUB_TEST_REPOSITORY>"  # api/pulls.create.json
_T_RUN_FULL = "octo-org/octo-repo"  # events/workflow_run.completed.json
_T_USER_LOGIN = "octokit-fixture-user-a"  # api/issues.create.json .user

PERMISSIONS = ("admin", "maintain", "write", "triage", "read", "none")
_LEGACY_PERMISSION = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
    "none": "none",
}
_RANK = {p: i for i, p in enumerate(reversed(PERMISSIONS))}  # none=0 ... admin=5
_ACCESS = {"none": 0, "read": 1, "write": 2}  # a GITHUB_TOKEN's level for one permission

_DOCS = "https://docs.github.com/rest"
_REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
_FAKE_SIGNATURE = "-----BEGIN PGP SIGNATURE-----\n\nfake_github signs as GitHub would\n-----END PGP SIGNATURE-----"

# Fields the list endpoint leaves out of a pull request (present on GET one / create / update).
_PULL_DETAIL_ONLY = (
    "merged",
    "mergeable",
    "rebaseable",
    "mergeable_state",
    "merged_by",
    "comments",
    "review_comments",
    "maintainer_can_modify",
    "commits",
    "additions",
    "deletions",
    "changed_files",
)

_START = datetime(2024, 1, 1, tzinfo=UTC)


def _node_id(kind: str, ident: int) -> str:
    """Legacy-format GraphQL node id, e.g. 'MDU6SXNzdWUx' for ('Issue', 1)."""
    return base64.b64encode(f"{len(kind):02d}:{kind}{ident}".encode()).decode()


def _fake_sha(*parts: Any) -> str:
    return hashlib.sha1("\0".join(map(str, parts)).encode()).hexdigest()


def _replace_strings(obj: Any, pairs: list[tuple[str, str]]) -> Any:
    """Apply str.replace(old, new) for every pair to every string inside obj (in place)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            obj[k] = _replace_strings(v, pairs)
        return obj
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            obj[i] = _replace_strings(v, pairs)
        return obj
    if isinstance(obj, str):
        for old, new in pairs:
            obj = obj.replace(old, new)
    return obj


# --------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------


@dataclass
class User:
    login: str
    id: int
    type: str = "User"  # "User" | "Bot" | "Organization"


@dataclass
class Label:
    id: int
    name: str
    color: str = "ededed"
    description: str | None = None
    default: bool = False


@dataclass(kw_only=True)
class Issue:
    repo: str  # "owner/name"
    number: int
    id: int
    title: str
    body: str | None = None
    user: str = "octocat"
    state: str = "open"  # "open" | "closed"
    state_reason: str | None = None
    labels: list[str] = field(default_factory=list)
    assignees: list[str] = field(default_factory=list)
    locked: bool = False
    created_at: str = ""
    updated_at: str = ""
    closed_at: str | None = None
    closed_by: str | None = None

    @property
    def is_pull(self) -> bool:
        return False


@dataclass(kw_only=True)
class PullRequest(Issue):
    """A pull request; ``id`` is the issue id, ``pull_id`` the pull request's own id."""

    pull_id: int = 0
    head_ref: str = ""
    head_repo: str = ""  # "owner/name" of the head repository (== repo unless a fork)
    head_sha: str = ""
    base_ref: str = ""
    base_sha: str = ""
    draft: bool = False
    merged: bool = False
    merged_at: str | None = None
    maintainer_can_modify: bool = False

    @property
    def is_pull(self) -> bool:
        return True

    @property
    def head_owner(self) -> str:
        return self.head_repo.split("/", 1)[0]

    @property
    def head_label(self) -> str:
        return f"{self.head_owner}:{self.head_ref}"


@dataclass
class Comment:
    id: int
    repo: str
    issue_number: int
    body: str
    user: str
    created_at: str
    updated_at: str


@dataclass
class Reaction:
    id: int
    repo: str
    issue_number: int
    comment_id: int | None  # None: on the issue or pull request itself
    content: str
    user: str
    created_at: str


@dataclass
class Job:
    id: int
    run_id: int
    repo: str
    name: str
    status: str = "completed"
    conclusion: str | None = "failure"
    steps: list[dict] = field(default_factory=list)
    log: str | Callable[[], Iterable[bytes]] | None = ""  # a function: its chunks are streamed
    labels: list[str] = field(default_factory=lambda: ["ubuntu-latest"])
    started_at: str = ""
    completed_at: str | None = None


@dataclass
class WorkflowRun:
    id: int
    repo: str
    name: str
    head_branch: str
    head_sha: str
    event: str = "push"
    status: str = "completed"
    conclusion: str | None = "failure"
    path: str = ".github/workflows/ci.yml"
    run_number: int = 1
    run_attempt: int = 1
    workflow_id: int = 0
    actor: str = "octocat"
    display_title: str = ""
    pull_requests: list[int] = field(default_factory=list)  # PR numbers
    created_at: str = ""
    updated_at: str = ""
    jobs: list[int] = field(default_factory=list)  # job ids, in order


@dataclass
class Review:
    """A submitted pull request review; ``state`` as REST spells it (``CHANGES_REQUESTED``, ``COMMENTED``,
    ``APPROVED``); webhook payloads spell it in lower case."""

    id: int
    repo: str
    number: int
    user: str
    state: str
    body: str | None
    commit_id: str
    submitted_at: str


@dataclass
class ReviewComment:
    """A comment on a line of a pull request's diff: the first of its thread, or a reply in it."""

    id: int
    repo: str
    number: int
    review_id: int
    thread_id: int
    path: str
    line: int | None
    start_line: int | None
    diff_hunk: str
    body: str
    user: str
    commit_id: str
    in_reply_to: int | None
    created_at: str
    updated_at: str


@dataclass
class ReviewThread:
    """A review thread (GraphQL's PullRequestReviewThread): its comments in order, resolved or not."""

    id: int
    repo: str
    number: int
    path: str
    line: int | None
    start_line: int | None
    comments: list[int] = field(default_factory=list)  # ReviewComment ids, the first one starts it
    resolved: bool = False
    resolved_by: str | None = None
    outdated: bool = False  # its line changed since: GitHub shows it "Outdated"

    @property
    def node_id(self) -> str:
        return _node_id("PullRequestReviewThread", self.id)


@dataclass
class Repo:
    full_name: str
    id: int
    default_branch: str = "main"
    private: bool = False
    owner_type: str = "User"  # "User" | "Organization"
    description: str | None = None
    fork: bool = False
    drafts: bool = True  # False: draft pull requests are refused (private repositories on GitHub Free)
    created_at: str = ""
    branches: dict[str, str] = field(default_factory=dict)  # name -> sha
    labels: dict[str, Label] = field(default_factory=dict)  # lower(name) -> Label
    issues: dict[int, Issue] = field(default_factory=dict)  # plain issues by number
    pulls: dict[int, PullRequest] = field(default_factory=dict)  # pull requests by number
    permissions: dict[str, str | None] = field(default_factory=dict)  # lower(login) -> perm
    next_number: int = 1
    git: GitStore = field(default_factory=GitStore)  # the git database; refs are `branches`
    verified: dict[str, str] = field(default_factory=dict)  # commit sha -> when GitHub signed it

    @property
    def owner(self) -> str:
        return self.full_name.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.full_name.split("/", 1)[1]


@dataclass
class RecordedRequest:
    method: str
    path: str  # decoded, without the /api/v3 prefix and without the query string
    query: dict[str, str]  # last value wins; see raw_query for everything
    json: Any  # parsed JSON body, or None
    headers: dict[str, str]  # lower-cased names
    raw_path: str  # exactly as received (prefix, percent-encoding and query included)
    raw_query: str = ""
    body: bytes = b""
    status: int = 0  # response status, set once answered

    @property
    def authorization(self) -> str | None:
        return self.headers.get("authorization")

    @property
    def is_write(self) -> bool:
        return self.method not in ("GET", "HEAD")

    def __repr__(self) -> str:  # compact, for assertion messages
        q = f"?{self.raw_query}" if self.raw_query else ""
        return f"<{self.method} {self.path}{q} -> {self.status}>"


@dataclass
class _Failure:
    method: str
    pattern: re.Pattern
    status: int
    body: Any
    headers: dict[str, str]
    times: int
    kind: str = "answer"  # "answer" (status, body, headers) | "reset" | "truncate"


class _HTTPError(Exception):
    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None):
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}


@dataclass
class _Resp:
    status: int = 200
    body: Any = None  # JSON-able, str (sent as text/plain), _Stream or None (empty)
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Stream:
    """A text/plain body sent chunk by chunk, its end marked by closing the connection."""

    chunks: Iterable[bytes]


@dataclass
class _Ctx:
    """Per-request context."""

    root: str  # http://127.0.0.1:PORT
    base: str  # API base the request used: root or root + "/api/v3"
    web: str  # stand-in for https://github.com
    host: str  # 127.0.0.1:PORT
    login: str  # authenticated user
    method: str
    qpath: str  # percent-encoded path without prefix
    query: dict[str, str]
    query_items: list[tuple[str, str]]
    json: Any
    doc: str = _DOCS

    def body_dict(self) -> dict:
        if not isinstance(self.json, dict):
            raise _HTTPError(400, _error_body("Problems parsing JSON", self.doc, 400))
        return self.json


def _error_body(message: str, doc: str, status: int, errors: list | None = None) -> dict:
    body: dict[str, Any] = {"message": message}
    if errors is not None:
        body["errors"] = errors
    body["documentation_url"] = doc
    body["status"] = str(status)
    return body


def _log_body(job: Job) -> Any:
    return _Stream(job.log()) if callable(job.log) else job.log


def workflow_permissions(path: str | os.PathLike, job: str | None = None) -> dict[str, str] | str:
    """The ``permissions:`` a workflow file gives ``job`` (its own, else the workflow's), for
    ``FakeGitHub(permissions=...)``.  A file that states none is an error: the default depends
    on a repository setting, and tests should not."""
    import yaml  # local import: the server itself is stdlib only

    workflow = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    jobs = workflow.get("jobs") or {}
    if job is not None and job not in jobs:
        raise KeyError(f"{path}: no job {job!r}")
    for level in ([jobs[job]] if job is not None else []) + [workflow]:
        if "permissions" in level:
            return level["permissions"] or {}
    raise ValueError(f"{path}: no `permissions:` for job {job!r}")


def _not_found(doc: str = _DOCS) -> _HTTPError:
    return _HTTPError(404, _error_body("Not Found", doc, 404))


def _validation_failed(doc: str, *errors: dict) -> _HTTPError:
    return _HTTPError(422, _error_body("Validation Failed", doc, 422, list(errors)))


# --------------------------------------------------------------------------------------
# HTTP plumbing
# --------------------------------------------------------------------------------------


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def version_string(self) -> str:
        return "GitHub.com"

    timeout = 10  # never let a stuck client keep a handler thread (and shutdown) waiting

    def _handle(self) -> None:
        self.server.fake._serve(self)  # type: ignore[attr-defined]

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _handle

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins handler threads: nothing outlives the fake
    block_on_close = True
    request_queue_size = 128  # the default 5 makes bursts of parallel clients wait for SYN retries

    def __init__(self, fake: FakeGitHub):
        self.fake = fake
        self.resets: set[int] = set()  # file numbers of connections to drop with a reset
        super().__init__(("127.0.0.1", 0), _Handler)

    def shutdown_request(self, request: socket.socket) -> None:
        if request.fileno() in self.resets:  # no FIN first: closing with SO_LINGER 0 sends the reset
            self.resets.discard(request.fileno())
            self.close_request(request)
            return
        super().shutdown_request(request)


# --------------------------------------------------------------------------------------
# The fake
# --------------------------------------------------------------------------------------


class FakeGitHub:
    """In-memory GitHub REST API served over HTTP on 127.0.0.1.

    :param login: login of the authenticated user (author of everything created through
        the API, answer of ``GET /user``).
    :param tokens: optional ``{token: login}``; when given, any other token gets 401
        "Bad credentials" and each token acts as its login.  Default: any token works
        and acts as ``login``.
    :param strict_branches: when True, creating a PR whose head/base branch is not
        known (``add_branch`` / default branch) gives the real 422 ``invalid`` error;
        by default an unknown head branch is simply created.
    :param log_redirect: job logs answer 302 to a local text URL (real behaviour); when
        False they answer 200 ``text/plain`` directly.
    :param permissions: the token's permissions as a workflow's ``permissions:`` states them
        (``{"pull-requests": "write", ...}``, ``"read-all"``, ``"write-all"``, ``{}``): the token
        acts as a ``GITHUB_TOKEN`` holding just those.  Default None: every call is allowed.
    :param tls: an SSL server context: served over HTTPS with its certificate (a GitHub
        Enterprise Server behind a private CA: tests/support/selfsigned.py), every URL https.
    """

    def __init__(
        self,
        *,
        login: str = "github-actions[bot]",
        tokens: dict[str, str] | None = None,
        strict_branches: bool = False,
        log_redirect: bool = True,
        permissions: dict[str, str] | str | None = None,
        tls: ssl.SSLContext | None = None,
    ):
        self.login = login
        self.tls = tls
        self.tokens = tokens
        self.strict_branches = strict_branches
        self.log_redirect = log_redirect
        self.permissions = permissions

        self.repos: dict[str, Repo] = {}  # lower(full_name) -> Repo
        self.users: dict[str, User] = {}  # lower(login) -> User
        self.comments_by_id: dict[int, Comment] = {}
        self.reactions_by_id: dict[int, Reaction] = {}
        self.runs: dict[int, WorkflowRun] = {}
        self.jobs: dict[int, Job] = {}
        self.reviews_by_id: dict[int, Review] = {}
        self.review_comments_by_id: dict[int, ReviewComment] = {}
        self.threads_by_id: dict[int, ReviewThread] = {}
        self.requests: list[RecordedRequest] = []
        self.errors: list[str] = []  # tracebacks of bugs inside the fake (answered 500)

        self._lock = threading.RLock()
        self._failures: list[_Failure] = []
        self._clock = _START
        self._ids = {
            k: itertools.count(start)
            for k, start in {
                "repo": 1000,
                "user": 10_000,
                "issue": 2_000_000,
                "pull": 3_000_000,
                "comment": 4_000_000,
                "label": 5_000_000,
                "reaction": 6_000_000,
                "run": 7_000_000,
                "job": 8_000_000,
                "workflow": 9_000,
                "review": 11_000_000,
                "review_comment": 12_000_000,
                "thread": 13_000_000,
                "request": 1,
            }.items()
        }
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None
        self.port: int | None = None

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> FakeGitHub:
        if self._server is not None:
            return self
        self._server = _Server(self)  # bound and listening: requests queue until served
        self.port = self._server.server_address[1]
        if self.tls is not None:  # the handshake happens as a connection is accepted: a refused one is dropped
            self._server.socket = self.tls.wrap_socket(self._server.socket, server_side=True)
        self._wake_r, self._wake_w = socket.socketpair()
        self._thread = threading.Thread(target=self._serve_loop, name="fake-github", daemon=True)
        self._thread.start()
        return self

    def _serve_loop(self) -> None:
        # Like serve_forever(), but woken by a socketpair instead of polling, so close() is immediate.
        server, wake = self._server, self._wake_r
        assert server is not None and wake is not None
        with selectors.DefaultSelector() as sel:
            sel.register(server, selectors.EVENT_READ)
            sel.register(wake, selectors.EVENT_READ)
            while True:
                for key, _ in sel.select():
                    if key.fileobj is wake:
                        return
                    server._handle_request_noblock()  # accept + hand off to a handler thread

    def close(self) -> None:
        """Stop serving, close the socket and join the server and handler threads."""
        server, thread = self._server, self._thread
        if server is None:
            return
        assert self._wake_w is not None and self._wake_r is not None
        self._wake_w.send(b"x")
        if thread is not None:
            thread.join()
        server.server_close()  # closes the listening socket and joins handler threads
        self._wake_w.close()
        self._wake_r.close()
        self._server = self._thread = self._wake_r = self._wake_w = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def root_url(self) -> str:
        if self.port is None:
            raise RuntimeError("FakeGitHub is not started")
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """API at the root, like https://api.github.com."""
        return self.root_url

    @property
    def ghes_api_url(self) -> str:
        """API under /api/v3, like GitHub Enterprise Server."""
        return self.root_url + "/api/v3"

    @property
    def web_url(self) -> str:
        """Stand-in for https://github.com (html_url values)."""
        return self.root_url

    def client(self, *, base_url: str | None = None, token: str = "t", **kwargs: Any):
        """A real ``github.Github`` for this fake, without PyGithub's client-side throttling
        (0.25 s between requests, 1 s between writes) and without retries (PyGithub's
        default retries 5xx and some 403 up to 10 times).  kwargs override."""
        import github  # local import: the server itself is stdlib only

        opts: dict[str, Any] = {
            "base_url": base_url or self.api_url,
            "auth": github.Auth.Token(token),
            "retry": None,
            "seconds_between_requests": None,
            "seconds_between_writes": None,
        }
        opts.update(kwargs)
        return github.Github(**opts)

    # ---------------------------------------------------------------- request log / failures

    def writes(self) -> list[RecordedRequest]:
        """Recorded requests that are not GET/HEAD, in arrival order (whatever their status)."""
        with self._lock:
            return [r for r in self.requests if r.is_write]

    def clear_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int = 500,
        body: Any = None,
        *,
        times: int = 1,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer the next ``times`` requests matching ``method`` ("*" for any) and
        ``re.search(path_regex, path)`` (path without /api/v3 and query) with ``status``
        and ``body`` (dict/list -> JSON, str -> text; default: a GitHub-style error body).
        Checked before authentication and routing; state is not touched."""
        if body is None:
            try:
                reason = HTTPStatus(status).phrase
            except ValueError:
                reason = "Error"
            body = _error_body(reason, _DOCS, status)
        self._add_failure(_Failure(method.upper(), re.compile(path_regex), status, body, dict(headers or {}), times))

    def reset_next(self, method: str, path_regex: str, *, times: int = 1) -> None:
        """Drop the connection of the next ``times`` matching requests without an answer (a TCP
        reset, as a proxy or a load balancer does); state is not touched."""
        self._add_failure(_Failure(method.upper(), re.compile(path_regex), 0, None, {}, times, "reset"))

    def truncate_next(self, method: str, path_regex: str, *, times: int = 1) -> None:
        """Answer the next ``times`` matching requests for real (state changes happen), but send
        only the first half of the body under the full ``Content-Length``, then close."""
        self._add_failure(_Failure(method.upper(), re.compile(path_regex), 0, None, {}, times, "truncate"))

    def _add_failure(self, failure: _Failure) -> None:
        with self._lock:
            self._failures.append(failure)

    # ---------------------------------------------------------------- clock / ids / users

    def _now(self) -> str:
        return self._clock.strftime("%Y-%m-%dT%H:%M:%SZ")

    def _tick(self) -> str:
        self._clock += timedelta(seconds=1)
        return self._now()

    def _next(self, kind: str) -> int:
        return next(self._ids[kind])

    def user(self, login: str, type: str | None = None) -> User:
        """The User for login (registered on first use; logins ending in [bot] are Bots)."""
        with self._lock:
            key = login.lower()
            u = self.users.get(key)
            if u is None:
                ident = 41898282 if key == "github-actions[bot]" else self._next("user")
                u = User(login, ident, type or ("Bot" if key.endswith("[bot]") else "User"))
                self.users[key] = u
            elif type is not None:
                u.type = type
            return u

    # ---------------------------------------------------------------- seeding helpers

    def _repo(self, repo: str | Repo) -> Repo:
        if isinstance(repo, Repo):
            return repo
        r = self.repos.get(repo.lower())
        if r is None:
            raise KeyError(f"unknown repo {repo!r} (add_repo it first)")
        return r

    def repo(self, full_name: str) -> Repo:
        with self._lock:
            return self._repo(full_name)

    def add_repo(
        self,
        full_name: str,
        *,
        default_branch: str = "main",
        private: bool = False,
        owner_type: str = "User",
        description: str | None = None,
        fork: bool = False,
        branches: Iterable[str] = (),
        drafts: bool = True,
    ) -> Repo:
        with self._lock:
            if "/" not in full_name:
                raise ValueError("full_name must be 'owner/name'")
            if full_name.lower() in self.repos:
                raise ValueError(f"repo {full_name} already exists")
            r = Repo(
                full_name=full_name,
                id=self._next("repo"),
                default_branch=default_branch,
                private=private,
                owner_type=owner_type,
                description=description,
                fork=fork,
                drafts=drafts,
                created_at=self._tick(),
            )
            self.repos[full_name.lower()] = r
            self.user(r.owner, "Organization" if owner_type == "Organization" else None)
            for b in (default_branch, *branches):
                r.branches.setdefault(b, _fake_sha(full_name, b))
            return r

    def add_branch(self, repo: str | Repo, name: str, sha: str | None = None) -> str:
        with self._lock:
            r = self._repo(repo)
            r.branches[name] = sha or _fake_sha(r.full_name, name, self._now())
            return r.branches[name]

    def add_label(self, repo: str | Repo, name: str, color: str = "ededed", description: str | None = None) -> Label:
        with self._lock:
            r = self._repo(repo)
            existing = r.labels.get(name.lower())
            if existing:
                return existing
            lab = Label(self._next("label"), name, color, description)
            r.labels[name.lower()] = lab
            return lab

    def add_issue(
        self,
        repo: str | Repo,
        title: str,
        body: str | None = None,
        user: str = "octocat",
        labels: Iterable[str] = (),
        *,
        state: str = "open",
    ) -> Issue:
        with self._lock:
            r = self._repo(repo)
            now = self._tick()
            self.user(user)
            issue = Issue(
                repo=r.full_name,
                number=self._take_number(r),
                id=self._next("issue"),
                title=title,
                body=body,
                user=user,
                labels=[self.add_label(r, n).name for n in labels],
                created_at=now,
                updated_at=now,
            )
            r.issues[issue.number] = issue
            if state == "closed":
                self._set_state(issue, "closed", None, user)
            return issue

    def add_comment(self, repo: str | Repo, number: int, body: str, user: str = "octocat") -> Comment:
        with self._lock:
            r = self._repo(repo)
            target = self._find_issue(r, number)
            if target is None:
                raise KeyError(f"no issue/PR #{number} in {r.full_name}")
            return self._create_comment(r, target, body, user)

    def add_pull(
        self,
        repo: str | Repo,
        *,
        head: str,
        base: str | None = None,
        title: str = "A pull request",
        body: str | None = None,
        user: str | None = None,
        draft: bool = False,
        state: str = "open",
        labels: Iterable[str] = (),
    ) -> PullRequest:
        """Seed a pull request. ``head`` is "branch" or "owner:branch" (a fork)."""
        with self._lock:
            r = self._repo(repo)
            head_owner, head_ref = head.split(":", 1) if ":" in head else (r.owner, head)
            pr = self._new_pull(
                r, head_owner, head_ref, None, base or r.default_branch, title, body, user or head_owner, draft, False
            )
            pr.labels = [self.add_label(r, n).name for n in labels]
            if state == "closed":
                self._set_state(pr, "closed", None, pr.user)
            return pr

    def set_permission(self, repo: str | Repo, login: str, perm: str | None) -> None:
        """perm: admin|maintain|write|triage|read|none, or None for "no such user" (404)."""
        if perm is not None and perm not in PERMISSIONS:
            raise ValueError(f"permission must be one of {PERMISSIONS} or None, not {perm!r}")
        with self._lock:
            self._repo(repo).permissions[login.lower()] = perm
            if perm is not None:
                self.user(login)

    def permission(self, repo: str | Repo, login: str) -> str | None:
        """Effective role of login on repo, as the fake answers it (None: unknown user)."""
        with self._lock:
            r = self._repo(repo)
            key = login.lower()
            if key in r.permissions:
                return r.permissions[key]
            if key == r.owner.lower() and r.owner_type == "User":
                return "admin"
            return "none" if r.private else "read"

    def add_workflow_run(
        self,
        repo: str | Repo,
        *,
        name: str = "CI",
        head_branch: str | None = None,
        head_sha: str | None = None,
        event: str = "push",
        status: str = "completed",
        conclusion: str | None = "failure",
        path: str = ".github/workflows/ci.yml",
        actor: str = "octocat",
        display_title: str = "",
        pull_requests: Iterable[int] = (),
    ) -> WorkflowRun:
        with self._lock:
            r = self._repo(repo)
            branch = head_branch or r.default_branch
            if head_sha is None:
                head_sha = r.branches.get(branch) or self.add_branch(r, branch)
            same_workflow = [x for x in self.runs.values() if x.repo == r.full_name and x.path == path]
            now = self._tick()
            run = WorkflowRun(
                id=self._next("run"),
                repo=r.full_name,
                name=name,
                head_branch=branch,
                head_sha=head_sha,
                event=event,
                status=status,
                conclusion=conclusion,
                path=path,
                run_number=len(same_workflow) + 1,
                workflow_id=same_workflow[0].workflow_id if same_workflow else self._next("workflow"),
                actor=actor,
                display_title=display_title or name,
                pull_requests=list(pull_requests),
                created_at=now,
                updated_at=now,
            )
            self.user(actor)
            self.runs[run.id] = run
            return run

    def add_job(
        self,
        run: int | WorkflowRun,
        name: str = "build",
        *,
        status: str = "completed",
        conclusion: str | None = "failure",
        steps: Iterable[tuple[str, str | None] | dict] | None = None,
        log: str | None = "",
        labels: Iterable[str] = ("ubuntu-latest",),
    ) -> Job:
        """steps: (name, conclusion) pairs or full step dicts; default one step named like the job.
        log: text served by the logs endpoint (None: logs gone, 404)."""
        with self._lock:
            run_obj = run if isinstance(run, WorkflowRun) else self.runs[run]
            start = self._tick()
            end = self._tick() if status == "completed" else None
            step_list: list[dict] = []
            for i, s in enumerate(steps if steps is not None else [(name, conclusion)], start=1):
                if isinstance(s, dict):
                    step_list.append(s)
                    continue
                s_name, s_concl = s
                step_list.append(
                    {
                        "name": s_name,
                        "status": "completed" if s_concl is not None else "in_progress",
                        "conclusion": s_concl,
                        "number": i,
                        "started_at": start,
                        "completed_at": end if s_concl is not None else None,
                    }
                )
            job = Job(
                id=self._next("job"),
                run_id=run_obj.id,
                repo=run_obj.repo,
                name=name,
                status=status,
                conclusion=conclusion,
                steps=step_list,
                log=log,
                labels=list(labels),
                started_at=start,
                completed_at=end,
            )
            self.jobs[job.id] = job
            run_obj.jobs.append(job.id)
            return job

    # ---------------------------------------------------------------- accessors

    def issues(
        self, repo: str | Repo | None = None, *, state: str | None = None, include_pulls: bool = False
    ) -> list[Issue]:
        """Issues (by repo then number); PRs only with include_pulls."""
        with self._lock:
            repos = [self._repo(repo)] if repo is not None else list(self.repos.values())
            out: list[Issue] = []
            for r in repos:
                items: list[Issue] = list(r.issues.values())
                if include_pulls:
                    items += list(r.pulls.values())
                out += sorted(items, key=lambda i: i.number)
            return [i for i in out if state is None or i.state == state]

    def issue(self, repo: str | Repo, number: int) -> Issue:
        """Issue or PullRequest with that number."""
        with self._lock:
            found = self._find_issue(self._repo(repo), number)
            if found is None:
                raise KeyError(number)
            return found

    def pulls(self, repo: str | Repo | None = None, *, state: str | None = None) -> list[PullRequest]:
        with self._lock:
            repos = [self._repo(repo)] if repo is not None else list(self.repos.values())
            out = [p for r in repos for p in sorted(r.pulls.values(), key=lambda p: p.number)]
            return [p for p in out if state is None or p.state == state]

    def pull(self, repo: str | Repo, number: int) -> PullRequest:
        with self._lock:
            return self._repo(repo).pulls[number]

    def comments(self, repo: str | Repo | None = None, number: int | None = None) -> list[Comment]:
        """Issue/PR comments by id (creation order), optionally for one repo / one number."""
        with self._lock:
            full = self._repo(repo).full_name if repo is not None else None
            return [
                c
                for c in sorted(self.comments_by_id.values(), key=lambda c: c.id)
                if (full is None or c.repo == full) and (number is None or c.issue_number == number)
            ]

    def comment(self, comment_id: int) -> Comment:
        with self._lock:
            return self.comments_by_id[comment_id]

    def reactions(self, repo: str | Repo, number: int, comment_id: int | None = None) -> list[Reaction]:
        """The reactions on issue or pull request #number itself, or on its comment `comment_id`."""
        with self._lock:
            full = self._repo(repo).full_name
            return [
                x
                for x in sorted(self.reactions_by_id.values(), key=lambda x: x.id)
                if (x.repo, x.issue_number, x.comment_id) == (full, number, comment_id)
            ]

    # ---------------------------------------------------------------- reviews

    def add_review(
        self,
        repo: str | Repo,
        number: int,
        *,
        user: str = "octocat",
        state: str = "CHANGES_REQUESTED",
        body: str | None = None,
        comments: Iterable[dict] = (),
    ) -> Review:
        """A submitted review of pull request #number; each of `comments` ({"path", "line", "body",
        optionally "start_line", "diff_hunk"}) starts a thread of its own."""
        with self._lock:
            r = self._repo(repo)
            pr = r.pulls[number]
            self.user(user)
            review = Review(self._next("review"), r.full_name, number, user, state, body, pr.head_sha, self._tick())
            self.reviews_by_id[review.id] = review
            for c in comments:
                thread = ReviewThread(
                    self._next("thread"), r.full_name, number, c["path"], c.get("line"), c.get("start_line")
                )
                self.threads_by_id[thread.id] = thread
                self._add_review_comment(r, thread, review.id, c["body"], user, c.get("diff_hunk"), None)
            return review

    def add_review_reply(self, repo: str | Repo, comment_id: int, body: str, user: str = "octocat") -> ReviewComment:
        """A reply in the thread of review comment `comment_id`."""
        with self._lock:
            r = self._repo(repo)
            first = self.review_comments_by_id[comment_id]
            thread = self.threads_by_id[first.thread_id]
            review = Review(
                self._next("review"), r.full_name, first.number, user, "COMMENTED", None, first.commit_id, self._tick()
            )
            self.reviews_by_id[review.id] = review  # GitHub files every reply under a review of its own
            return self._add_review_comment(r, thread, review.id, body, user, first.diff_hunk, thread.comments[0])

    def _add_review_comment(
        self,
        r: Repo,
        thread: ReviewThread,
        review_id: int,
        body: str,
        user: str,
        hunk: str | None,
        reply_to: int | None,
    ) -> ReviewComment:
        now = self._tick()
        self.user(user)
        pr = r.pulls[thread.number]
        if hunk is None:
            hunk = f"@@ -1,1 +1,{thread.line or 1} @@"
        c = ReviewComment(
            self._next("review_comment"),
            r.full_name,
            thread.number,
            review_id,
            thread.id,
            thread.path,
            thread.line,
            thread.start_line,
            hunk,
            body,
            user,
            pr.head_sha,
            reply_to,
            now,
            now,
        )
        self.review_comments_by_id[c.id] = c
        thread.comments.append(c.id)
        pr.updated_at = now
        return c

    def reviews(self, repo: str | Repo, number: int) -> list[Review]:
        with self._lock:
            full = self._repo(repo).full_name
            return [
                v
                for v in sorted(self.reviews_by_id.values(), key=lambda v: v.id)
                if (v.repo, v.number) == (full, number)
            ]

    def review_comments(self, repo: str | Repo, number: int) -> list[ReviewComment]:
        with self._lock:
            full = self._repo(repo).full_name
            found = sorted(self.review_comments_by_id.values(), key=lambda c: c.id)
            return [c for c in found if (c.repo, c.number) == (full, number)]

    def review_threads(self, repo: str | Repo, number: int) -> list[ReviewThread]:
        with self._lock:
            full = self._repo(repo).full_name
            found = sorted(self.threads_by_id.values(), key=lambda t: t.id)
            return [t for t in found if (t.repo, t.number) == (full, number)]

    def thread_of(self, comment_id: int) -> ReviewThread:
        with self._lock:
            return self.threads_by_id[self.review_comments_by_id[comment_id].thread_id]

    def _render_review(self, ctx: _Ctx, v: Review) -> dict:
        r = self._repo(v.repo)
        d = _tmpl("api/pulls.get-review.json")
        html = f"{ctx.web}/{r.full_name}/pull/{v.number}#pullrequestreview-{v.id}"
        d.update(
            id=v.id,
            node_id=_node_id("PullRequestReview", v.id),
            user=self._render_user(ctx, v.user),
            body=v.body or "",
            state=v.state,
            html_url=html,
            commit_id=v.commit_id,
            submitted_at=v.submitted_at,
            pull_request_url=f"{ctx.base}/repos/{r.full_name}/pulls/{v.number}",
            author_association=self._author_association(r, v.user),
            _links={
                "html": {"href": html},
                "pull_request": {"href": f"{ctx.base}/repos/{r.full_name}/pulls/{v.number}"},
            },
        )
        return d

    def _render_review_comment(self, ctx: _Ctx, c: ReviewComment) -> dict:
        r = self._repo(c.repo)
        d = _tmpl("api/pulls.create-reply-for-review-comment.json")
        api = f"{ctx.base}/repos/{r.full_name}"
        url, html = f"{api}/pulls/comments/{c.id}", f"{ctx.web}/{r.full_name}/pull/{c.number}#discussion_r{c.id}"
        d.update(
            url=url,
            pull_request_review_id=c.review_id,
            id=c.id,
            node_id=_node_id("PullRequestReviewComment", c.id),
            diff_hunk=c.diff_hunk,
            path=c.path,
            commit_id=c.commit_id,
            original_commit_id=c.commit_id,
            user=self._render_user(ctx, c.user),
            body=c.body,
            created_at=c.created_at,
            updated_at=c.updated_at,
            html_url=html,
            pull_request_url=f"{api}/pulls/{c.number}",
            author_association=self._author_association(r, c.user),
            _links={"self": {"href": url}, "html": {"href": html}, "pull_request": {"href": f"{api}/pulls/{c.number}"}},
            reactions=self._reactions(url + "/reactions", []),
            start_line=c.start_line,
            original_start_line=c.start_line,
            start_side="RIGHT" if c.start_line else None,
            line=c.line,
            original_line=c.line,
            side="RIGHT",
        )
        if c.in_reply_to is None:
            d.pop("in_reply_to_id", None)
        else:
            d["in_reply_to_id"] = c.in_reply_to
        return d

    def _h_list_reviews(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        self._pull_or_404(ctx, r, number)
        return self._paginate(ctx, self.reviews(r, int(number)), lambda v: self._render_review(ctx, v))

    def _review_or_404(self, ctx: _Ctx, r: Repo, number: str, review_id: str) -> Review:
        v = self.reviews_by_id.get(int(review_id))
        if v is None or (v.repo, v.number) != (r.full_name, int(number)):
            raise _not_found(ctx.doc)
        return v

    def _h_get_review(self, ctx: _Ctx, owner: str, repo: str, number: str, review_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        return _Resp(200, self._render_review(ctx, self._review_or_404(ctx, r, number, review_id)))

    def _h_list_review_comments_of_review(self, ctx: _Ctx, owner: str, repo: str, number: str, review_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        v = self._review_or_404(ctx, r, number, review_id)
        found = [c for c in self.review_comments(r, v.number) if c.review_id == v.id]

        def render(c: ReviewComment) -> dict:  # this endpoint leaves out the line fields, as GitHub's does
            d = self._render_review_comment(ctx, c)
            for key in ("line", "original_line", "start_line", "original_start_line", "side", "start_side"):
                d.pop(key, None)
            return d

        return self._paginate(ctx, found, render)

    def _h_list_pull_review_comments(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        self._pull_or_404(ctx, r, number)
        return self._paginate(ctx, self.review_comments(r, int(number)), lambda c: self._render_review_comment(ctx, c))

    def _h_get_review_comment(self, ctx: _Ctx, owner: str, repo: str, comment_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        c = self.review_comments_by_id.get(int(comment_id))
        if c is None or c.repo != r.full_name:
            raise _not_found(ctx.doc)
        return _Resp(200, self._render_review_comment(ctx, c))

    def _h_reply_to_review_comment(self, ctx: _Ctx, owner: str, repo: str, number: str, comment_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        self._pull_or_404(ctx, r, number)
        first = self.review_comments_by_id.get(int(comment_id))
        if first is None or (first.repo, first.number) != (r.full_name, int(number)):
            raise _not_found(ctx.doc)
        b = ctx.body_dict()
        if not isinstance(b.get("body"), str) or b["body"] == "":
            missing = {"resource": "PullRequestReviewComment", "code": "missing_field", "field": "body"}
            raise _validation_failed(ctx.doc, missing)
        reply = self.add_review_reply(r, first.id, b["body"], ctx.login)
        body = self._render_review_comment(ctx, reply)
        return _Resp(201, body, {"Location": body["url"]})

    # ---------------------------------------------------------------- GraphQL (review threads only)

    def _graphql_thread(self, t: ReviewThread) -> dict:
        d = _tmpl(
            "api/graphql.pull-request-review-threads.full.json",
            "data",
            "repository",
            "pullRequest",
            "reviewThreads",
            "nodes",
            0,
        )
        comment_tmpl = d["comments"]["nodes"][0]
        nodes = []
        for cid in t.comments:
            c = self.review_comments_by_id[cid]
            n = copy.deepcopy(comment_tmpl)
            n.update(
                id=_node_id("PullRequestReviewComment", c.id),
                databaseId=c.id,
                body=c.body,
                path=c.path,
                diffHunk=c.diff_hunk,
                createdAt=c.created_at,
                updatedAt=c.updated_at,
                author={"login": c.user},
                authorAssociation=self._author_association(self._repo(c.repo), c.user),
                replyTo={"id": _node_id("PullRequestReviewComment", c.in_reply_to)} if c.in_reply_to else None,
                position=None if t.outdated else c.line,
                originalPosition=c.line,
            )
            nodes.append(n)
        d.update(
            id=t.node_id,
            isResolved=t.resolved,
            isOutdated=t.outdated,
            path=t.path,
            line=None if t.outdated else t.line,
            startLine=None if t.outdated else t.start_line or t.line,
            resolvedBy={"login": t.resolved_by} if t.resolved_by else None,
            viewerCanResolve=not t.resolved,
            viewerCanUnresolve=t.resolved,
            comments={"totalCount": len(nodes), "nodes": nodes},
        )
        return d

    def _graphql_error(self, message: str, path: str, kind: str = "NOT_FOUND") -> _Resp:
        return _Resp(200, {"data": {path: None}, "errors": [{"type": kind, "path": [path], "message": message}]})

    def _h_graphql(self, ctx: _Ctx) -> _Resp:
        """The few GraphQL operations a review loop needs, told apart by the field they ask for:
        `reviewThreads` of a pull request (variables `owner`, `name`, `number`), the mutations
        `resolveReviewThread`, `unresolveReviewThread` (input `threadId`) and
        `addPullRequestReviewThreadReply` (input `pullRequestReviewThreadId`, `body`). Every field a
        fixture node has is answered, whatever the selection asked for."""
        b = ctx.body_dict()
        query, variables = str(b.get("query") or ""), b.get("variables") or {}
        given = variables.get("input") or {}
        mutation = re.search(r"\b(resolveReviewThread|unresolveReviewThread|addPullRequestReviewThreadReply)\b", query)
        if mutation is not None and self.permissions is not None:
            granted = self.permissions
            if not isinstance(granted, str):
                granted = granted.get("pull-requests", "none")
            if _ACCESS[{"read-all": "read", "write-all": "write"}.get(granted, granted)] < _ACCESS["write"]:
                return self._graphql_error("Resource not accessible by integration", mutation[1], "FORBIDDEN")
        if mutation is not None:
            name = mutation[1]
            ident = given.get("pullRequestReviewThreadId" if name == "addPullRequestReviewThreadReply" else "threadId")
            thread = next((t for t in self.threads_by_id.values() if t.node_id == ident), None)
            if thread is None:
                return self._graphql_error(f"Could not resolve to a node with the global id of '{ident}'", name)
            if name == "addPullRequestReviewThreadReply":
                reply = self.add_review_reply(thread.repo, thread.comments[0], str(given.get("body") or ""), ctx.login)
                comment = self._graphql_thread(thread)["comments"]["nodes"][-1]
                assert comment["databaseId"] == reply.id
                return _Resp(200, {"data": {name: {"comment": comment}}})
            thread.resolved = name == "resolveReviewThread"
            thread.resolved_by = ctx.login if thread.resolved else None
            d = _tmpl(f"api/graphql.{'resolve' if thread.resolved else 'unresolve'}-review-thread.json", "data", name)
            shown = self._graphql_thread(thread)
            d["thread"] = {k: shown[k] for k in d["thread"]} | {"id": thread.node_id}
            if "comments" in d["thread"]:
                nodes = [{"id": n["id"], "body": n["body"]} for n in shown["comments"]["nodes"]]
                d["thread"]["comments"] = {"nodes": nodes}
            return _Resp(200, {"data": {name: d}})
        if re.search(r"\breviewThreads\b", query):
            r = self.repos.get(f"{variables.get('owner')}/{variables.get('name')}".lower())
            pr = r.pulls.get(int(variables.get("number") or 0)) if r is not None else None
            if r is None or pr is None:
                return self._graphql_error("Could not resolve to a PullRequest", "repository")
            threads = [self._graphql_thread(t) for t in self.review_threads(r, pr.number)]
            page = _tmpl("api/graphql.pull-request-review-threads.full.json", "data", "repository", "pullRequest")
            page.update(
                id=_node_id("PullRequest", pr.pull_id),
                number=pr.number,
                title=pr.title,
                url=f"{ctx.web}/{r.full_name}/pull/{pr.number}",
                state=pr.state.upper(),
            )
            page["reviewThreads"] = {
                "totalCount": len(threads),
                "nodes": threads,
                "pageInfo": {"hasNextPage": False, "endCursor": None},
            }
            return _Resp(200, {"data": {"repository": {"pullRequest": page}}})
        return _Resp(200, {"errors": [{"message": "fake_github serves only the review-thread operations of GraphQL"}]})

    # ---------------------------------------------------------------- state changes (shared)

    def _take_number(self, r: Repo) -> int:
        n = r.next_number
        r.next_number += 1
        return n

    def _find_issue(self, r: Repo, number: int) -> Issue | None:
        return r.issues.get(number) or r.pulls.get(number)

    def _ensure_repo(self, full_name: str, fork: bool) -> Repo:
        r = self.repos.get(full_name.lower())
        return r if r is not None else self.add_repo(full_name, fork=fork)

    def _new_pull(
        self,
        r: Repo,
        head_owner: str,
        head_ref: str,
        head_repo_name: str | None,
        base: str,
        title: str,
        body: str | None,
        user: str,
        draft: bool,
        maintainer_can_modify: bool,
    ) -> PullRequest:
        if head_repo_name is None:
            head_repo_name = r.full_name if head_owner.lower() == r.owner.lower() else f"{head_owner}/{r.name}"
        head_repo = self._ensure_repo(head_repo_name, fork=head_repo_name.lower() != r.full_name.lower())
        head_sha = head_repo.branches.get(head_ref) or self.add_branch(head_repo, head_ref)
        base_sha = r.branches.get(base) or self.add_branch(r, base)
        now = self._tick()
        self.user(user)
        pr = PullRequest(
            repo=r.full_name,
            number=self._take_number(r),
            id=self._next("issue"),
            pull_id=self._next("pull"),
            title=title,
            body=body,
            user=user,
            head_ref=head_ref,
            head_repo=head_repo.full_name,
            head_sha=head_sha,
            base_ref=base,
            base_sha=base_sha,
            draft=draft,
            maintainer_can_modify=maintainer_can_modify,
            created_at=now,
            updated_at=now,
        )
        r.pulls[pr.number] = pr
        return pr

    def _set_state(self, item: Issue, state: str, reason: str | None, actor: str) -> None:
        if state == item.state:
            if reason is not None and state == "closed":
                item.state_reason = reason
            return
        now = self._tick()
        item.state = state
        item.updated_at = now
        if state == "closed":
            item.closed_at = now
            item.closed_by = actor
            item.state_reason = None if item.is_pull else (reason or "completed")
        else:
            item.closed_at = None
            item.state_reason = None if item.is_pull else "reopened"

    def _create_comment(self, r: Repo, target: Issue, body: str, user: str) -> Comment:
        now = self._tick()
        self.user(user)
        c = Comment(self._next("comment"), r.full_name, target.number, body, user, now, now)
        self.comments_by_id[c.id] = c
        target.updated_at = now
        return c

    def _author_association(self, r: Repo, login: str) -> str:
        if login.lower() == r.owner.lower():
            return "OWNER"
        perm = r.permissions.get(login.lower())
        if perm in ("admin", "maintain", "write", "triage"):
            return "MEMBER" if r.owner_type == "Organization" else "COLLABORATOR"
        return "NONE"

    # ---------------------------------------------------------------- rendering

    def _host_pairs(self, ctx: _Ctx, tmpl_full: str, full: str) -> list[tuple[str, str]]:
        return [
            (tmpl_full, full),
            ("https://api.github.com", ctx.base),
            ("git://github.com/", f"git://{ctx.host}/"),
            ("git@github.com:", f"git@{ctx.host}:"),
            ("https://github.com", ctx.web),
        ]

    def _render_user(self, ctx: _Ctx, login: str) -> dict:
        u = self.user(login)
        d = _tmpl("api/issues.create.json", "user")
        q = quote(u.login, safe="")
        _replace_strings(
            d,
            [
                (f"https://api.github.com/users/{_T_USER_LOGIN}", f"{ctx.base}/users/{q}"),
                (f"https://github.com/{_T_USER_LOGIN}", f"{ctx.web}/{q}"),
            ],
        )
        d.update(
            login=u.login,
            id=u.id,
            node_id=_node_id(u.type, u.id),
            avatar_url=f"https://avatars.githubusercontent.com/u/{u.id}?v=4",
            type=u.type,
            site_admin=False,
        )
        if u.type == "Bot" and u.login.lower().endswith("[bot]"):
            d["html_url"] = f"{ctx.web}/apps/{u.login[: -len('[bot]')]}"
        return d

    def _render_repo(self, ctx: _Ctx, r: Repo, *, nested: bool = False) -> dict:
        """GET /repos body (nested=False) or the repository object inside a pull request."""
        if nested:
            d = _tmpl("api/pulls.create.json", "head", "repo")
            _replace_strings(d, self._host_pairs(ctx, _T_PULL_FULL, r.full_name))
        else:
            d = _tmpl("api/repos.get.json")
            _replace_strings(d, self._host_pairs(ctx, _T_REPO_FULL, r.full_name))
        open_count = sum(1 for i in itertools.chain(r.issues.values(), r.pulls.values()) if i.state == "open")
        d.update(
            id=r.id,
            node_id=_node_id("Repository", r.id),
            name=r.name,
            full_name=r.full_name,
            private=r.private,
            owner=self._render_user(ctx, r.owner),
            description=r.description,
            fork=r.fork,
            created_at=r.created_at,
            updated_at=r.created_at,
            pushed_at=r.created_at,
            homepage=None,
            size=0,
            stargazers_count=0,
            watchers_count=0,
            watchers=0,
            forks_count=0,
            forks=0,
            language=None,
            topics=[],
            visibility="private" if r.private else "public",
            open_issues_count=open_count,
            open_issues=open_count,
            default_branch=r.default_branch,
        )
        if not nested:
            d.update(network_count=0, subscribers_count=0)
            perm = self.permission(r, ctx.login) or "none"
            d["permissions"] = self._permission_flags(perm)
            if r.owner_type == "Organization":
                d["organization"] = d["owner"]
            else:
                d.pop("organization", None)
        return d

    @staticmethod
    def _permission_flags(perm: str) -> dict:
        rank = _RANK.get(perm, 0)
        return {
            "admin": rank >= _RANK["admin"],
            "maintain": rank >= _RANK["maintain"],
            "push": rank >= _RANK["write"],
            "triage": rank >= _RANK["triage"],
            "pull": rank >= _RANK["read"],
        }

    def _render_label(self, ctx: _Ctx, r: Repo, name: str) -> dict:
        lab = r.labels.get(name.lower()) or self.add_label(r, name)
        d = _tmpl("api/issues.create-label.json")
        d.update(
            id=lab.id,
            node_id=_node_id("Label", lab.id),
            url=f"{ctx.base}/repos/{r.full_name}/labels/{quote(lab.name, safe='')}",
            name=lab.name,
            color=lab.color,
            default=lab.default,
            description=lab.description,
        )
        return d

    def _reactions(self, url: str, on: list[Reaction]) -> dict:
        d = _tmpl("api/issues.create.json", "reactions")
        for k in d:
            if k != "url":
                d[k] = sum(1 for x in on if x.content == k)
        d["url"], d["total_count"] = url, len(on)
        return d

    def _render_issue(self, ctx: _Ctx, r: Repo, i: Issue, *, in_list: bool = False) -> dict:
        d = _tmpl("api/issues.create.json")
        api = f"{ctx.base}/repos/{r.full_name}"
        url = f"{api}/issues/{i.number}"
        d.update(
            url=url,
            repository_url=api,
            labels_url=url + "/labels{/name}",
            comments_url=url + "/comments",
            events_url=url + "/events",
            html_url=f"{ctx.web}/{r.full_name}/{'pull' if i.is_pull else 'issues'}/{i.number}",
            id=i.id,
            node_id=_node_id("Issue", i.id),
            number=i.number,
            title=i.title,
            user=self._render_user(ctx, i.user),
            labels=[self._render_label(ctx, r, n) for n in i.labels],
            state=i.state,
            locked=i.locked,
            assignee=self._render_user(ctx, i.assignees[0]) if i.assignees else None,
            assignees=[self._render_user(ctx, a) for a in i.assignees],
            milestone=None,
            comments=sum(
                1 for c in self.comments_by_id.values() if c.repo == r.full_name and c.issue_number == i.number
            ),
            created_at=i.created_at,
            updated_at=i.updated_at,
            closed_at=i.closed_at,
            author_association=self._author_association(r, i.user),
            active_lock_reason=None,
            body=i.body,
            closed_by=self._render_user(ctx, i.closed_by) if i.closed_by else None,
            reactions=self._reactions(url + "/reactions", self.reactions(r, i.number)),
            timeline_url=url + "/timeline",
            performed_via_github_app=None,
            state_reason=i.state_reason,
        )
        if isinstance(i, PullRequest):
            # GitHub marks pull requests in issue bodies with "draft" and "pull_request".
            out: dict[str, Any] = {}
            for k, v in d.items():
                if k == "body":
                    out["draft"] = i.draft
                    out["pull_request"] = {
                        "url": f"{api}/pulls/{i.number}",
                        "html_url": f"{ctx.web}/{r.full_name}/pull/{i.number}",
                        "diff_url": f"{ctx.web}/{r.full_name}/pull/{i.number}.diff",
                        "patch_url": f"{ctx.web}/{r.full_name}/pull/{i.number}.patch",
                        "merged_at": i.merged_at,
                    }
                out[k] = v
            d = out
        if in_list:
            d.pop("closed_by", None)  # the list endpoint omits it (see issues.list-for-repo fixture)
        return d

    def _render_comment(self, ctx: _Ctx, c: Comment) -> dict:
        r = self._repo(c.repo)
        d = _tmpl("api/issues.create-comment.json")
        api = f"{ctx.base}/repos/{r.full_name}"
        url = f"{api}/issues/comments/{c.id}"
        target = self._find_issue(r, c.issue_number)
        kind = "pull" if target is not None and target.is_pull else "issues"
        d.update(
            url=url,
            html_url=f"{ctx.web}/{r.full_name}/{kind}/{c.issue_number}#issuecomment-{c.id}",
            issue_url=f"{api}/issues/{c.issue_number}",
            id=c.id,
            user=self._render_user(ctx, c.user),
            created_at=c.created_at,
            updated_at=c.updated_at,
            body=c.body,
        )
        # The fixture was recorded in 2016; today's API also returns these fields.
        out: dict[str, Any] = {}
        for k, v in d.items():
            out[k] = v
            if k == "id":
                out["node_id"] = _node_id("IssueComment", c.id)
        out["author_association"] = self._author_association(r, c.user)
        out["reactions"] = self._reactions(url + "/reactions", self.reactions(r, c.issue_number, c.id))
        out["performed_via_github_app"] = None
        return out

    def _render_pull(self, ctx: _Ctx, r: Repo, p: PullRequest, *, in_list: bool = False, fresh: bool = False) -> dict:
        d = _tmpl("api/pulls.create.json")
        api = f"{ctx.base}/repos/{r.full_name}"
        web = f"{ctx.web}/{r.full_name}"
        url = f"{api}/pulls/{p.number}"
        issue_url = f"{api}/issues/{p.number}"
        statuses = f"{api}/statuses/{p.head_sha}"
        head_repo = self._repo(p.head_repo)
        d.update(
            url=url,
            id=p.pull_id,
            node_id=_node_id("PullRequest", p.pull_id),
            html_url=f"{web}/pull/{p.number}",
            diff_url=f"{web}/pull/{p.number}.diff",
            patch_url=f"{web}/pull/{p.number}.patch",
            issue_url=issue_url,
            number=p.number,
            state=p.state,
            locked=p.locked,
            title=p.title,
            user=self._render_user(ctx, p.user),
            body=p.body,
            created_at=p.created_at,
            updated_at=p.updated_at,
            closed_at=p.closed_at,
            merged_at=p.merged_at,
            merge_commit_sha=None if fresh else _fake_sha("merge", r.full_name, p.number, p.head_sha),
            assignee=self._render_user(ctx, p.assignees[0]) if p.assignees else None,
            assignees=[self._render_user(ctx, a) for a in p.assignees],
            requested_reviewers=[],
            requested_teams=[],
            labels=[self._render_label(ctx, r, n) for n in p.labels],
            milestone=None,
            draft=p.draft,
            commits_url=url + "/commits",
            review_comments_url=url + "/comments",
            review_comment_url=f"{api}/pulls/comments{{/number}}",
            comments_url=issue_url + "/comments",
            statuses_url=statuses,
            head={
                "label": p.head_label,
                "ref": p.head_ref,
                "sha": p.head_sha,
                "user": self._render_user(ctx, head_repo.owner),
                "repo": self._render_repo(ctx, head_repo, nested=True),
            },
            base={
                "label": f"{r.owner}:{p.base_ref}",
                "ref": p.base_ref,
                "sha": p.base_sha,
                "user": self._render_user(ctx, r.owner),
                "repo": self._render_repo(ctx, r, nested=True),
            },
            _links={
                "self": {"href": url},
                "html": {"href": f"{web}/pull/{p.number}"},
                "issue": {"href": issue_url},
                "comments": {"href": issue_url + "/comments"},
                "review_comments": {"href": url + "/comments"},
                "review_comment": {"href": f"{api}/pulls/comments{{/number}}"},
                "commits": {"href": url + "/commits"},
                "statuses": {"href": statuses},
            },
            author_association=self._author_association(r, p.user),
            auto_merge=None,
            active_lock_reason=None,
            merged=p.merged,
            # GitHub computes mergeability in the background: null right after creation.
            mergeable=None if fresh or p.state != "open" else True,
            rebaseable=None if fresh or p.state != "open" else True,
            mergeable_state="unknown" if fresh or p.state != "open" else "clean",
            merged_by=None,
            comments=sum(
                1 for c in self.comments_by_id.values() if c.repo == r.full_name and c.issue_number == p.number
            ),
            review_comments=0,
            maintainer_can_modify=p.maintainer_can_modify,
            commits=1,
            additions=1,
            deletions=0,
            changed_files=1,
        )
        if in_list:
            for k in _PULL_DETAIL_ONLY:
                d.pop(k, None)
        return d

    def _render_run(self, ctx: _Ctx, run: WorkflowRun) -> dict:
        r = self._repo(run.repo)
        d = _tmpl("events/workflow_run.completed.json", "workflow_run")
        _replace_strings(d, self._host_pairs(ctx, _T_RUN_FULL, r.full_name))
        api = f"{ctx.base}/repos/{r.full_name}"
        url = f"{api}/actions/runs/{run.id}"
        check_suite_id = run.id + 100_000_000
        d.update(
            name=run.name,
            artifacts_url=url + "/artifacts",
            cancel_url=url + "/cancel",
            check_suite_url=f"{api}/check-suites/{check_suite_id}",
            check_suite_id=check_suite_id,
            check_suite_node_id=_node_id("CheckSuite", check_suite_id),
            conclusion=run.conclusion,
            created_at=run.created_at,
            event=run.event,
            head_branch=run.head_branch,
            head_sha=run.head_sha,
            path=run.path,
            display_title=run.display_title,
            html_url=f"{ctx.web}/{r.full_name}/actions/runs/{run.id}",
            id=run.id,
            jobs_url=url + "/jobs",
            logs_url=url + "/logs",
            node_id=_node_id("WorkflowRun", run.id),
            pull_requests=[self._run_pull_ref(ctx, r, n) for n in run.pull_requests],
            rerun_url=url + "/rerun",
            run_number=run.run_number,
            run_attempt=run.run_attempt,
            run_started_at=run.created_at,
            previous_attempt_url=None,
            status=run.status,
            updated_at=run.updated_at,
            url=url,
            workflow_id=run.workflow_id,
            workflow_url=f"{api}/actions/workflows/{run.workflow_id}",
            actor=self._render_user(ctx, run.actor),
            triggering_actor=self._render_user(ctx, run.actor),
        )
        d["head_commit"].update(
            id=run.head_sha,
            tree_id=_fake_sha("tree", run.head_sha),
            message=run.display_title,
            timestamp=run.created_at,
        )
        for key in ("repository", "head_repository"):
            d[key].update(
                id=r.id,
                node_id=_node_id("Repository", r.id),
                name=r.name,
                full_name=r.full_name,
                private=r.private,
                owner=self._render_user(ctx, r.owner),
                description=r.description,
                fork=r.fork,
            )
        return d

    def _run_pull_ref(self, ctx: _Ctx, r: Repo, number: int) -> dict:
        p = r.pulls[number]
        head_repo = self._repo(p.head_repo)

        def mini(repo: Repo) -> dict:
            return {"id": repo.id, "url": f"{ctx.base}/repos/{repo.full_name}", "name": repo.name}

        return {
            "url": f"{ctx.base}/repos/{r.full_name}/pulls/{p.number}",
            "id": p.pull_id,
            "number": p.number,
            "head": {"ref": p.head_ref, "sha": p.head_sha, "repo": mini(head_repo)},
            "base": {"ref": p.base_ref, "sha": p.base_sha, "repo": mini(r)},
        }

    def _render_job(self, ctx: _Ctx, job: Job) -> dict:
        r = self._repo(job.repo)
        run = self.runs[job.run_id]
        api = f"{ctx.base}/repos/{r.full_name}"
        d = _tmpl("api/actions.list-jobs-for-workflow-run-attempt.page-1.json", "jobs", 0)
        d.update(
            id=job.id,
            run_id=run.id,
            run_url=f"{api}/actions/runs/{run.id}",
            run_attempt=run.run_attempt,
            node_id=_node_id("CheckRun", job.id),
            head_sha=run.head_sha,
            url=f"{api}/actions/jobs/{job.id}",
            html_url=f"{ctx.web}/{r.full_name}/actions/runs/{run.id}/job/{job.id}",
            status=job.status,
            conclusion=job.conclusion,
            started_at=job.started_at,
            completed_at=job.completed_at,
            name=job.name,
            steps=copy.deepcopy(job.steps),
            check_run_url=f"{api}/check-runs/{job.id}",
            labels=list(job.labels),
            runner_id=1,
            runner_name="GitHub Actions 1",
            runner_group_id=2,
            runner_group_name="GitHub Actions",
        )
        # Recorded in 2022; today's API also returns these.
        d.update(created_at=job.started_at, workflow_name=run.name, head_branch=run.head_branch)
        return d

    # ---------------------------------------------------------------- HTTP entry point

    def _serve(self, h: _Handler) -> None:
        raw_path = h.path
        split = urlsplit(raw_path)
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        try:
            parsed_json = json.loads(body) if body else None
            bad_json = False
        except ValueError:
            parsed_json, bad_json = None, True
        qpath = split.path
        prefix = ""
        if qpath == "/api/v3" or qpath.startswith("/api/v3/"):
            prefix, qpath = "/api/v3", qpath[len("/api/v3") :] or "/"
        query_items = parse_qsl(split.query, keep_blank_values=True)
        rec = RecordedRequest(
            method=h.command,
            path=unquote(qpath),
            query=dict(query_items),
            json=parsed_json,
            headers={k.lower(): v for k, v in h.headers.items()},
            raw_path=raw_path,
            raw_query=split.query,
            body=body,
        )
        with self._lock:
            self.requests.append(rec)
            fault = self._take_failure(rec)
            if fault is not None and fault.kind == "reset":
                self._reset(h)  # rec.status stays 0: no answer
                return
            try:
                if fault is not None and fault.kind == "answer":
                    resp = _Resp(fault.status, fault.body, dict(fault.headers))
                else:
                    resp = self._respond(h, rec, prefix, qpath, query_items, parsed_json, bad_json)
            except _HTTPError as e:
                resp = _Resp(e.status, e.body, e.headers)
            except Exception:  # noqa: BLE001 - a bug in the fake: answer 500 and keep the traceback
                tb = traceback.format_exc()
                self.errors.append(tb)
                resp = _Resp(500, {"message": "fake_github internal error", "traceback": tb})
            rec.status = resp.status
        self._write(h, resp, truncate=fault is not None and fault.kind == "truncate")

    def _take_failure(self, rec: RecordedRequest) -> _Failure | None:
        """The injected fault for this request, if any (checked before authentication and routing)."""
        for f in self._failures:
            if f.method in ("*", rec.method) and f.pattern.search(rec.path):
                f.times -= 1
                if f.times <= 0:
                    self._failures.remove(f)
                return f
        return None

    def _reset(self, h: _Handler) -> None:
        h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        h.server.resets.add(h.connection.fileno())  # type: ignore[attr-defined]
        h.close_connection = True

    def _respond(
        self,
        h: _Handler,
        rec: RecordedRequest,
        prefix: str,
        qpath: str,
        query_items: list[tuple[str, str]],
        parsed_json: Any,
        bad_json: bool,
    ) -> _Resp:
        root = self.root_url
        # 1. the local "signed" log URLs (no auth, like the real blob storage URLs)
        m = re.fullmatch(r"/_fake/logs/jobs/(\d+)", qpath)
        if m and rec.method in ("GET", "HEAD") and not prefix:
            job = self.jobs.get(int(m.group(1)))
            if job is None or job.log is None:
                return _Resp(404, "Not Found", {})
            return _Resp(200, _log_body(job))

        # 2. authentication
        auth = rec.authorization
        login = self.login
        if not auth:
            raise _HTTPError(401, _error_body("Requires authentication", _DOCS, 401))
        if self.tokens is not None:
            token = auth.split(" ", 1)[1].strip() if " " in auth else auth
            if token not in self.tokens:
                raise _HTTPError(401, _error_body("Bad credentials", _DOCS, 401))
            login = self.tokens[token]

        ctx = _Ctx(
            root=root,
            base=root + prefix,
            web=root,
            host=f"127.0.0.1:{self.port}",
            login=login,
            method=rec.method,
            qpath=qpath,
            query=dict(query_items),
            query_items=query_items,
            json=parsed_json,
        )

        # 3. routing and the token's permissions
        if qpath == "/api/graphql" and not prefix:  # GitHub Enterprise Server's GraphQL endpoint
            qpath = "/graphql"
        m2 = re.fullmatch(r"/repositories/(\d+)(/.*)?", qpath)
        if m2:  # /repositories/{id}/... is the same as /repos/{owner}/{name}/...
            by_id = next((r for r in self.repos.values() if r.id == int(m2.group(1))), None)
            if by_id is None:
                raise _not_found()
            qpath = f"/repos/{by_id.full_name}{m2.group(2) or ''}"
        for method, pattern, handler, doc, scope in _ROUTES:
            mm = pattern.fullmatch(qpath)
            if mm is None or method != ("GET" if rec.method == "HEAD" else rec.method):
                continue
            ctx.doc = doc
            if bad_json:
                raise _HTTPError(400, _error_body("Problems parsing JSON", doc, 400))
            args = {k: unquote(v) for k, v in mm.groupdict().items()}
            self._authorize(ctx, scope, args)
            return handler(self, ctx, **args)
        raise _not_found()

    def _write(self, h: _Handler, resp: _Resp, truncate: bool = False) -> None:
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Api-Version-Selected": "2022-11-28",
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
            "X-RateLimit-Reset": str(int(datetime.now(UTC).timestamp()) + 3600),
            "X-RateLimit-Used": "1",
            "X-RateLimit-Resource": "core",
            "X-GitHub-Request-Id": f"FAKE:{self._next('request'):08X}",
            "Connection": "close",
        }
        if isinstance(resp.body, _Stream):
            headers["Content-Type"] = "text/plain; charset=utf-8"
            headers.update(resp.headers)
            self._send(h, resp.status, headers, resp.body.chunks)
            return
        if resp.body is None:
            payload = b""
            headers.pop("Content-Type")
        elif isinstance(resp.body, (bytes, str)):
            payload = resp.body.encode() if isinstance(resp.body, str) else resp.body
            headers["Content-Type"] = "text/plain; charset=utf-8"
        else:
            payload = json.dumps(resp.body, separators=(",", ":")).encode()
        headers.update(resp.headers)
        headers["Content-Length"] = str(len(payload))
        self._send(h, resp.status, headers, [payload[: len(payload) // 2] if truncate else payload])

    @staticmethod
    def _send(h: _Handler, status: int, headers: dict[str, str], chunks: Iterable[bytes]) -> None:
        try:
            h.send_response(status)
            for k, v in headers.items():
                h.send_header(k, v)
            h.end_headers()
            if h.command != "HEAD":
                for chunk in chunks:
                    h.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        h.close_connection = True

    # ---------------------------------------------------------------- the token's permissions

    def _authorize(self, ctx: _Ctx, scope: str, args: dict[str, str]) -> None:
        """403 "Resource not accessible by integration" when a GITHUB_TOKEN with ``permissions``
        lacks what the route needs: reads need `read` (none on a public repository), writes `write`."""
        if self.permissions is None or scope in ("metadata", "graphql"):  # graphql: each operation checks its own
            return
        refused = _HTTPError(403, _error_body("Resource not accessible by integration", ctx.doc, 403))
        if scope == "user":
            raise refused  # an installation token acts as no user
        r = self._route_repo(ctx, args["owner"], args["repo"])
        reading = ctx.method in ("GET", "HEAD")
        if reading and not r.private:
            return
        if scope == "comments":
            scope = self._comment_scope(r, args)
        granted = self.permissions if isinstance(self.permissions, str) else self.permissions.get(scope, "none")
        level = {"read-all": "read", "write-all": "write"}.get(granted, granted)
        if _ACCESS[level] < _ACCESS["read" if reading else "write"]:
            raise refused

    def _comment_scope(self, r: Repo, args: dict[str, str]) -> str:
        """A comment's permission is its issue's or its pull request's."""
        number = int(args["number"]) if "number" in args else None
        if "comment_id" in args:
            c = self.comments_by_id.get(int(args["comment_id"]))
            number = c.issue_number if c is not None else None
        target = self._find_issue(r, number) if number is not None else None
        return "pull-requests" if target is not None and target.is_pull else "issues"

    # ---------------------------------------------------------------- helpers for handlers

    def _route_repo(self, ctx: _Ctx, owner: str, repo: str) -> Repo:
        r = self.repos.get(f"{owner}/{repo}".lower())
        if r is None:
            raise _not_found("https://docs.github.com/rest/repos/repos#get-a-repository")
        return r

    def _paginate(self, ctx: _Ctx, items: list, render: Callable[[Any], dict], wrap: str | None = None) -> _Resp:
        def as_int(name: str, default: int) -> int:
            try:
                return int(ctx.query.get(name, default))
            except ValueError:
                return default

        per_page = min(max(as_int("per_page", 30), 1), 100)
        page = max(as_int("page", 1), 1)
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]
        headers: dict[str, str] = {}
        if last > 1:

            def link(p: int) -> str:
                params = dict(ctx.query_items)
                params.pop("page", None)
                params["per_page"] = str(per_page)
                params["page"] = str(p)
                return f"<{ctx.base}{ctx.qpath}?{urlencode(params)}>"

            rels = []
            if page > 1:
                rels.append(f'{link(page - 1)}; rel="prev"')
            if page < last:
                rels.append(f'{link(page + 1)}; rel="next"')
                rels.append(f'{link(last)}; rel="last"')
            if page > 1:
                rels.append(f'{link(1)}; rel="first"')
            headers["Link"] = ", ".join(rels)
        rendered = [render(x) for x in chunk]
        body: Any = {"total_count": len(items), wrap: rendered} if wrap else rendered
        return _Resp(200, body, headers)

    @staticmethod
    def _sorted(items: list[Issue], ctx: _Ctx, keys: dict[str, Callable[[Any], Any]]) -> list:
        key = keys.get(ctx.query.get("sort", "created"), keys["created"])
        direction = ctx.query.get("direction", "desc")  # GitHub: created, desc
        return sorted(items, key=lambda i: (key(i), i.number), reverse=direction != "asc")

    def _label_names(self, ctx: _Ctx, r: Repo, raw: Any) -> list[str]:
        if isinstance(raw, dict):
            raw = raw.get("labels")
        if not isinstance(raw, list):
            raise _validation_failed(ctx.doc, {"resource": "Label", "code": "invalid", "field": "labels"})
        names: list[str] = []
        for x in raw:
            name = x.get("name") if isinstance(x, dict) else x
            if not isinstance(name, str) or not name:
                raise _validation_failed(ctx.doc, {"resource": "Label", "code": "invalid", "field": "labels"})
            lab = self.add_label(r, name)  # GitHub creates missing labels (grey, 'ededed')
            if lab.name.lower() not in (n.lower() for n in names):
                names.append(lab.name)
        return names

    # ---------------------------------------------------------------- handlers: users / repos

    def _h_get_authenticated_user(self, ctx: _Ctx) -> _Resp:
        return _Resp(200, self._user_body(ctx, ctx.login))

    def _h_get_user(self, ctx: _Ctx, login: str) -> _Resp:
        if login.lower() not in self.users:
            raise _not_found(ctx.doc)
        return _Resp(200, self._user_body(ctx, login))

    def _user_body(self, ctx: _Ctx, login: str) -> dict:
        # No fixture holds a full user; this is the simple user plus the public-profile fields.
        d = self._render_user(ctx, login)
        d.update(
            name=None,
            company=None,
            blog="",
            location=None,
            email=None,
            hireable=None,
            bio=None,
            twitter_username=None,
            public_repos=sum(1 for r in self.repos.values() if r.owner.lower() == login.lower()),
            public_gists=0,
            followers=0,
            following=0,
            created_at=_START.strftime("%Y-%m-%dT%H:%M:%SZ"),
            updated_at=_START.strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
        return d

    def _h_get_repo(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        return _Resp(200, self._render_repo(ctx, self._route_repo(ctx, owner, repo)))

    # ---------------------------------------------------------------- handlers: issues

    def _h_list_issues(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        state = ctx.query.get("state", "open")
        items: list[Issue] = [*r.issues.values(), *r.pulls.values()]
        if state in ("open", "closed"):
            items = [i for i in items if i.state == state]
        if ctx.query.get("labels"):
            wanted = {x.strip().lower() for x in ctx.query["labels"].split(",") if x.strip()}
            items = [i for i in items if wanted <= {n.lower() for n in i.labels}]
        if ctx.query.get("creator"):
            items = [i for i in items if i.user.lower() == ctx.query["creator"].lower()]
        assignee = ctx.query.get("assignee")
        if assignee == "none":
            items = [i for i in items if not i.assignees]
        elif assignee and assignee != "*":
            items = [i for i in items if assignee.lower() in (a.lower() for a in i.assignees)]
        elif assignee == "*":
            items = [i for i in items if i.assignees]
        if ctx.query.get("since"):
            items = [i for i in items if i.updated_at >= ctx.query["since"]]
        counts = {}
        for c in self.comments_by_id.values():
            if c.repo == r.full_name:
                counts[c.issue_number] = counts.get(c.issue_number, 0) + 1
        items = self._sorted(
            items,
            ctx,
            {
                "created": lambda i: i.created_at,
                "updated": lambda i: i.updated_at,
                "comments": lambda i: counts.get(i.number, 0),
            },
        )
        return self._paginate(ctx, items, lambda i: self._render_issue(ctx, r, i, in_list=True))

    def _h_create_issue(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        b = ctx.body_dict()
        title = b.get("title")
        if title is None or title == "":
            raise _validation_failed(ctx.doc, {"resource": "Issue", "code": "missing_field", "field": "title"})
        now = self._tick()
        self.user(ctx.login)
        issue = Issue(
            repo=r.full_name,
            number=self._take_number(r),
            id=self._next("issue"),
            title=str(title),
            body=b.get("body"),
            user=ctx.login,
            labels=self._label_names(ctx, r, b.get("labels") or []),
            assignees=self._assignees(b),
            created_at=now,
            updated_at=now,
        )
        r.issues[issue.number] = issue
        body = self._render_issue(ctx, r, issue)
        return _Resp(201, body, {"Location": body["url"]})

    @staticmethod
    def _assignees(b: dict) -> list[str]:
        out = list(b.get("assignees") or [])
        if b.get("assignee"):
            out.insert(0, b["assignee"])
        return list(dict.fromkeys(out))

    def _issue_or_404(self, ctx: _Ctx, r: Repo, number: str) -> Issue:
        found = self._find_issue(r, int(number))
        if found is None:
            raise _not_found(ctx.doc)
        return found

    def _h_get_issue(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        return _Resp(200, self._render_issue(ctx, r, self._issue_or_404(ctx, r, number)))

    def _h_update_issue(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        i = self._issue_or_404(ctx, r, number)
        b = ctx.body_dict()
        if "state" in b and b["state"] not in ("open", "closed"):
            raise _validation_failed(ctx.doc, {"resource": "Issue", "code": "invalid", "field": "state"})
        if "title" in b:
            if not b["title"]:
                raise _validation_failed(ctx.doc, {"resource": "Issue", "code": "missing_field", "field": "title"})
            i.title = str(b["title"])
        if "body" in b:
            i.body = b["body"]
        if "labels" in b:
            i.labels = self._label_names(ctx, r, b["labels"] or [])
        if "assignees" in b or "assignee" in b:
            i.assignees = self._assignees(b)
        i.updated_at = self._tick()
        if "state" in b:
            self._set_state(i, b["state"], b.get("state_reason"), ctx.login)
        elif b.get("state_reason") and i.state == "closed":
            i.state_reason = b["state_reason"]
        return _Resp(200, self._render_issue(ctx, r, i))

    # ---------------------------------------------------------------- handlers: comments

    def _h_list_comments(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        i = self._issue_or_404(ctx, r, number)
        items = list(self.comments(r, i.number))
        if ctx.query.get("since"):
            items = [c for c in items if c.updated_at >= ctx.query["since"]]
        return self._paginate(ctx, items, lambda c: self._render_comment(ctx, c))

    def _h_list_repo_comments(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        items = self.comments(r)
        if ctx.query.get("since"):
            items = [c for c in items if c.updated_at >= ctx.query["since"]]
        if ctx.query.get("sort") == "updated":
            items.sort(key=lambda c: (c.updated_at, c.id))
        if ctx.query.get("direction") == "desc":
            items.reverse()
        return self._paginate(ctx, items, lambda c: self._render_comment(ctx, c))

    def _h_create_comment(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        i = self._issue_or_404(ctx, r, number)
        b = ctx.body_dict()
        if not isinstance(b.get("body"), str) or b["body"] == "":
            raise _validation_failed(ctx.doc, {"resource": "IssueComment", "code": "missing_field", "field": "body"})
        c = self._create_comment(r, i, b["body"], ctx.login)
        body = self._render_comment(ctx, c)
        return _Resp(201, body, {"Location": body["url"]})

    def _comment_or_404(self, ctx: _Ctx, r: Repo, comment_id: str) -> Comment:
        c = self.comments_by_id.get(int(comment_id))
        if c is None or c.repo != r.full_name:
            raise _not_found(ctx.doc)
        return c

    def _h_get_comment(self, ctx: _Ctx, owner: str, repo: str, comment_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        return _Resp(200, self._render_comment(ctx, self._comment_or_404(ctx, r, comment_id)))

    def _h_update_comment(self, ctx: _Ctx, owner: str, repo: str, comment_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        c = self._comment_or_404(ctx, r, comment_id)
        b = ctx.body_dict()
        if not isinstance(b.get("body"), str) or b["body"] == "":
            raise _validation_failed(ctx.doc, {"resource": "IssueComment", "code": "missing_field", "field": "body"})
        c.body = b["body"]
        c.updated_at = self._tick()
        return _Resp(200, self._render_comment(ctx, c))

    def _h_delete_comment(self, ctx: _Ctx, owner: str, repo: str, comment_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        c = self._comment_or_404(ctx, r, comment_id)
        del self.comments_by_id[c.id]
        return _Resp(204, None)

    # ---------------------------------------------------------------- handlers: labels

    def _h_list_issue_labels(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        i = self._issue_or_404(ctx, r, number)
        return self._paginate(ctx, list(i.labels), lambda n: self._render_label(ctx, r, n))

    def _h_add_issue_labels(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        i = self._issue_or_404(ctx, r, number)
        for n in self._label_names(ctx, r, ctx.json):
            if n.lower() not in (x.lower() for x in i.labels):
                i.labels.append(n)
        i.updated_at = self._tick()
        return _Resp(200, [self._render_label(ctx, r, n) for n in i.labels])

    def _h_set_issue_labels(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        i = self._issue_or_404(ctx, r, number)
        i.labels = self._label_names(ctx, r, ctx.json if ctx.json is not None else [])
        i.updated_at = self._tick()
        return _Resp(200, [self._render_label(ctx, r, n) for n in i.labels])

    def _h_clear_issue_labels(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        i = self._issue_or_404(ctx, r, number)
        i.labels = []
        i.updated_at = self._tick()
        return _Resp(204, None)

    def _h_remove_issue_label(self, ctx: _Ctx, owner: str, repo: str, number: str, name: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        i = self._issue_or_404(ctx, r, number)
        keep = [n for n in i.labels if n.lower() != name.lower()]
        if len(keep) == len(i.labels):
            raise _HTTPError(404, _error_body("Label does not exist", ctx.doc, 404))
        i.labels = keep
        i.updated_at = self._tick()
        return _Resp(200, [self._render_label(ctx, r, n) for n in i.labels])

    def _h_list_labels(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        labels = sorted(r.labels.values(), key=lambda lab: lab.id)
        return self._paginate(ctx, [lab.name for lab in labels], lambda n: self._render_label(ctx, r, n))

    def _h_create_label(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        b = ctx.body_dict()
        name, color = b.get("name"), str(b.get("color") or "ededed").lstrip("#")
        if not name:
            raise _validation_failed(ctx.doc, {"resource": "Label", "code": "missing_field", "field": "name"})
        if not re.fullmatch(r"[0-9a-fA-F]{6}", color):
            raise _validation_failed(ctx.doc, {"resource": "Label", "code": "invalid", "field": "color"})
        if name.lower() in r.labels:
            raise _validation_failed(ctx.doc, {"resource": "Label", "code": "already_exists", "field": "name"})
        self.add_label(r, name, color.lower(), b.get("description"))
        body = self._render_label(ctx, r, name)
        return _Resp(201, body, {"Location": body["url"]})

    def _h_get_label(self, ctx: _Ctx, owner: str, repo: str, name: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        if name.lower() not in r.labels:
            raise _not_found(ctx.doc)
        return _Resp(200, self._render_label(ctx, r, name))

    # ---------------------------------------------------------------- handlers: pulls

    def _h_list_pulls(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        items = list(r.pulls.values())
        state = ctx.query.get("state", "open")
        if state in ("open", "closed"):
            items = [p for p in items if p.state == state]
        head = ctx.query.get("head")
        if head and ":" in head:  # a bare branch name is ignored by GitHub, on purpose here too
            h_owner, h_ref = head.split(":", 1)
            items = [p for p in items if p.head_owner.lower() == h_owner.lower() and p.head_ref == h_ref]
        if ctx.query.get("base"):
            items = [p for p in items if p.base_ref == ctx.query["base"]]
        sort = ctx.query.get("sort", "created")
        if sort not in ("created", "updated", "popularity", "long-running"):
            raise _validation_failed(ctx.doc, {"resource": "PullRequest", "code": "invalid", "field": "sort"})
        direction = ctx.query.get("direction", "desc" if sort == "created" else "asc")
        key = (lambda p: (p.updated_at, p.number)) if sort == "updated" else (lambda p: (p.created_at, p.number))
        items.sort(key=key, reverse=direction == "desc")
        return self._paginate(ctx, items, lambda p: self._render_pull(ctx, r, p, in_list=True))

    def _h_create_pull(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        b = ctx.body_dict()
        missing = [f for f in ("head", "base") if not b.get(f)]
        if not b.get("title") and "issue" not in b:
            missing.append("title")
        if missing:
            raise _validation_failed(
                ctx.doc, *({"resource": "PullRequest", "code": "missing_field", "field": f} for f in missing)
            )
        if "issue" in b:
            raise _HTTPError(
                422, _error_body("fake_github: converting an issue (issue=) is not supported", ctx.doc, 422)
            )
        head, base = str(b["head"]), str(b["base"])
        head_owner, head_ref = head.split(":", 1) if ":" in head else (r.owner, head)
        head_repo_name = b.get("head_repo")
        if head_repo_name and "/" not in head_repo_name:
            head_repo_name = f"{head_owner}/{head_repo_name}"
        if head_repo_name is None:
            head_repo_name = r.full_name if head_owner.lower() == r.owner.lower() else f"{head_owner}/{r.name}"
        head_repo = self.repos.get(head_repo_name.lower())
        if head_repo is not None:
            head_owner = head_repo.owner  # canonical case
        if self.strict_branches:
            if head_repo is None or head_ref not in head_repo.branches:
                raise _validation_failed(ctx.doc, {"resource": "PullRequest", "field": "head", "code": "invalid"})
            if base not in r.branches:
                raise _validation_failed(ctx.doc, {"resource": "PullRequest", "field": "base", "code": "invalid"})
        if head_repo_name.lower() == r.full_name.lower() and head_ref == base:
            raise _validation_failed(
                ctx.doc,
                {"resource": "PullRequest", "code": "custom", "message": f"No commits between {base} and {head_ref}"},
            )
        if b.get("draft") and not r.drafts:
            raise _validation_failed(
                ctx.doc,
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": "Draft pull requests are not supported in this repository.",
                },
            )
        for p in r.pulls.values():
            if (
                p.state == "open"
                and p.head_repo.lower() == head_repo_name.lower()
                and p.head_ref == head_ref
                and p.base_ref == base
            ):
                raise _validation_failed(
                    ctx.doc,
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": f"A pull request already exists for {p.head_owner}:{head_ref}.",
                    },
                )
        pr = self._new_pull(
            r,
            head_owner,
            head_ref,
            head_repo_name,
            base,
            str(b.get("title") or ""),
            b.get("body"),
            ctx.login,
            bool(b.get("draft", False)),
            bool(b.get("maintainer_can_modify", False)),
        )
        body = self._render_pull(ctx, r, pr, fresh=True)
        return _Resp(201, body, {"Location": body["url"]})

    def _pull_or_404(self, ctx: _Ctx, r: Repo, number: str) -> PullRequest:
        p = r.pulls.get(int(number))
        if p is None:
            raise _not_found(ctx.doc)
        return p

    def _h_get_pull(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        return _Resp(200, self._render_pull(ctx, r, self._pull_or_404(ctx, r, number)))

    def _h_update_pull(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        p = self._pull_or_404(ctx, r, number)
        b = ctx.body_dict()
        if "state" in b and b["state"] not in ("open", "closed"):
            raise _validation_failed(ctx.doc, {"resource": "PullRequest", "code": "invalid", "field": "state"})
        if b.get("state") == "open" and p.state == "closed":
            if p.merged:
                raise _validation_failed(
                    ctx.doc,
                    {"resource": "PullRequest", "code": "custom", "message": "Cannot reopen a merged pull request"},
                )
            for other in r.pulls.values():
                if (
                    other is not p
                    and other.state == "open"
                    and other.head_repo.lower() == p.head_repo.lower()
                    and other.head_ref == p.head_ref
                    and other.base_ref == b.get("base", p.base_ref)
                ):
                    raise _validation_failed(
                        ctx.doc,
                        {
                            "resource": "PullRequest",
                            "code": "custom",
                            "message": f"A pull request already exists for {p.head_label}.",
                        },
                    )
        if "title" in b:
            p.title = str(b["title"])
        if "body" in b:
            p.body = b["body"]
        if "base" in b:
            if self.strict_branches and b["base"] not in r.branches:
                raise _validation_failed(ctx.doc, {"resource": "PullRequest", "field": "base", "code": "invalid"})
            p.base_ref = str(b["base"])
            p.base_sha = r.branches.get(p.base_ref) or self.add_branch(r, p.base_ref)
        if "maintainer_can_modify" in b:
            p.maintainer_can_modify = bool(b["maintainer_can_modify"])
        p.updated_at = self._tick()
        if "state" in b:
            self._set_state(p, b["state"], None, ctx.login)
        return _Resp(200, self._render_pull(ctx, r, p))

    # ---------------------------------------------------------------- handlers: collaborators

    def _h_get_permission(self, ctx: _Ctx, owner: str, repo: str, login: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        perm = self.permission(r, login)
        if perm is None:
            raise _not_found(ctx.doc)
        d = _tmpl("api/repos.get-collaborator-permission-level.admin.json")
        user = self._render_user(ctx, login)
        user["permissions"] = self._permission_flags(perm)
        user["role_name"] = perm
        d.update(permission=_LEGACY_PERMISSION[perm], user=user, role_name=perm)
        return _Resp(200, d)

    def _h_check_collaborator(self, ctx: _Ctx, owner: str, repo: str, login: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        perm = r.permissions.get(login.lower())
        is_owner = login.lower() == r.owner.lower()
        if is_owner or perm not in (None, "none"):
            return _Resp(204, None)
        raise _HTTPError(404, None)  # the real answer is an empty 404

    # ---------------------------------------------------------------- handlers: actions

    def _run_or_404(self, ctx: _Ctx, r: Repo, run_id: str) -> WorkflowRun:
        run = self.runs.get(int(run_id))
        if run is None or run.repo != r.full_name:
            raise _not_found(ctx.doc)
        return run

    def _h_list_runs(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        runs = [x for x in self.runs.values() if x.repo == r.full_name]
        q = ctx.query
        if q.get("branch"):
            runs = [x for x in runs if x.head_branch == q["branch"]]
        if q.get("event"):
            runs = [x for x in runs if x.event == q["event"]]
        if q.get("head_sha"):
            runs = [x for x in runs if x.head_sha == q["head_sha"]]
        if q.get("actor"):
            runs = [x for x in runs if x.actor.lower() == q["actor"].lower()]
        if q.get("status"):
            runs = [x for x in runs if q["status"] in (x.status, x.conclusion)]
        runs.sort(key=lambda x: x.id, reverse=True)
        return self._paginate(ctx, runs, lambda x: self._render_run(ctx, x), wrap="workflow_runs")

    def _h_get_run(self, ctx: _Ctx, owner: str, repo: str, run_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        return _Resp(200, self._render_run(ctx, self._run_or_404(ctx, r, run_id)))

    def _h_list_jobs(self, ctx: _Ctx, owner: str, repo: str, run_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        run = self._run_or_404(ctx, r, run_id)
        jobs = [self.jobs[j] for j in run.jobs]
        return self._paginate(ctx, jobs, lambda j: self._render_job(ctx, j), wrap="jobs")

    def _job_or_404(self, ctx: _Ctx, r: Repo, job_id: str) -> Job:
        job = self.jobs.get(int(job_id))
        if job is None or job.repo != r.full_name:
            raise _not_found(ctx.doc)
        return job

    def _h_get_job(self, ctx: _Ctx, owner: str, repo: str, job_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        return _Resp(200, self._render_job(ctx, self._job_or_404(ctx, r, job_id)))

    def _h_job_logs(self, ctx: _Ctx, owner: str, repo: str, job_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        job = self._job_or_404(ctx, r, job_id)
        if job.log is None:
            raise _not_found(ctx.doc)
        if not self.log_redirect:
            return _Resp(200, _log_body(job))
        location = f"{ctx.root}/_fake/logs/jobs/{job.id}?sig={_fake_sha('log', job.id)[:16]}"
        return _Resp(302, None, {"Location": location})

    # ---------------------------------------------------------------- handlers: reactions
    # No recorded fixture holds a reaction: its body is built to the schema of GitHub's REST reference
    # (docs.github.com/rest/reactions/reactions: id, node_id, user, content, created_at).

    def _render_reaction(self, ctx: _Ctx, x: Reaction) -> dict:
        return {
            "id": x.id,
            "node_id": _node_id("Reaction", x.id),
            "user": self._render_user(ctx, x.user),
            "content": x.content,
            "created_at": x.created_at,
        }

    def _react(self, ctx: _Ctx, r: Repo, number: int, comment_id: int | None) -> _Resp:
        content = ctx.body_dict().get("content")
        if content not in _REACTIONS:
            raise _validation_failed(ctx.doc, {"resource": "Reaction", "code": "invalid", "field": "content"})
        for x in self.reactions(r, number, comment_id):
            if x.content == content and x.user.lower() == ctx.login.lower():
                return _Resp(200, self._render_reaction(ctx, x))  # GitHub: 200 means it was there already
        self.user(ctx.login)
        x = Reaction(self._next("reaction"), r.full_name, number, comment_id, content, ctx.login, self._tick())
        self.reactions_by_id[x.id] = x
        return _Resp(201, self._render_reaction(ctx, x))

    def _h_react_to_issue(self, ctx: _Ctx, owner: str, repo: str, number: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        return self._react(ctx, r, self._issue_or_404(ctx, r, number).number, None)

    def _h_react_to_comment(self, ctx: _Ctx, owner: str, repo: str, comment_id: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        c = self._comment_or_404(ctx, r, comment_id)
        return self._react(ctx, r, c.issue_number, c.id)

    # ---------------------------------------------------------------- handlers: the git database
    # No recorded fixture holds these bodies: they are built to the schemas of GitHub's REST reference
    # (docs.github.com/rest/git/blobs, /trees, /commits, /refs). The error messages are GitHub's where
    # known (a 422 with a message); where not, a "Validation Failed" naming the field.

    def _git_url(self, ctx: _Ctx, r: Repo, kind: str, sha: str) -> str:
        return f"{ctx.base}/repos/{r.full_name}/git/{kind}/{sha}"

    @staticmethod
    def _git_refused(ctx: _Ctx, message: str) -> _HTTPError:
        return _HTTPError(422, _error_body(message, ctx.doc, 422))

    def _h_create_blob(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        b = ctx.body_dict()
        content, encoding = b.get("content"), b.get("encoding", "utf-8")
        if not isinstance(content, str):
            raise _validation_failed(ctx.doc, {"resource": "Blob", "code": "missing_field", "field": "content"})
        if encoding == "utf-8":
            data = content.encode()
        elif encoding == "base64":
            try:
                data = base64.b64decode("".join(content.split()), validate=True)
            except ValueError:
                raise _validation_failed(ctx.doc, {"resource": "Blob", "code": "invalid", "field": "content"}) from None
        else:
            raise _validation_failed(ctx.doc, {"resource": "Blob", "code": "invalid", "field": "encoding"})
        url = self._git_url(ctx, r, "blobs", r.git.put("blob", data))
        return _Resp(201, {"url": url, "sha": url.rsplit("/", 1)[1]}, {"Location": url})

    def _h_get_blob(self, ctx: _Ctx, owner: str, repo: str, sha: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        found = r.git.get(sha)
        if found is None or found[0] != "blob":
            raise _not_found(ctx.doc)
        text = base64.b64encode(found[1]).decode()
        return _Resp(200, {
            "sha": sha, "node_id": _node_id("Blob", int(sha[:12], 16)), "size": len(found[1]),
            "url": self._git_url(ctx, r, "blobs", sha), "encoding": "base64",
            "content": "".join(text[i : i + 60] + "\n" for i in range(0, len(text), 60)),
        })  # fmt: skip

    def _render_tree(self, ctx: _Ctx, r: Repo, sha: str, recursive: bool) -> dict:
        rows = r.git.walk(sha) if recursive else r.git.entries(sha)
        tree = []
        for mode, path, child in rows:
            kind = MODES[mode]
            entry: dict[str, Any] = {"path": path, "mode": mode, "type": kind, "sha": child}
            if kind == "blob":
                found = r.git.get(child)
                entry["size"] = len(found[1]) if found else 0
            if kind != "commit":
                entry["url"] = self._git_url(ctx, r, f"{kind}s", child)
            tree.append(entry)
        return {"sha": sha, "url": self._git_url(ctx, r, "trees", sha), "tree": tree, "truncated": False}

    def _h_create_tree(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        b = ctx.body_dict()
        entries, base = b.get("tree"), b.get("base_tree")
        if not isinstance(entries, list):
            raise _validation_failed(ctx.doc, {"resource": "Tree", "code": "missing_field", "field": "tree"})
        if base is not None and r.git.kind(str(base)) != "tree":
            raise _validation_failed(ctx.doc, {"resource": "Tree", "code": "invalid", "field": "base_tree"})
        changes: list[tuple[str, str | None, str | None]] = []
        for e in entries:
            mode = e.get("mode") if isinstance(e, dict) else None
            if not isinstance(e, dict) or not isinstance(e.get("path"), str) or mode not in MODES:
                raise _validation_failed(ctx.doc, {"resource": "Tree", "code": "invalid", "field": "tree.mode"})
            if e.get("type") != MODES[mode]:
                raise _validation_failed(ctx.doc, {"resource": "Tree", "code": "invalid", "field": "tree.type"})
            if "content" in e:
                if not isinstance(e["content"], str) or e.get("sha") is not None or MODES[mode] != "blob":
                    raise _validation_failed(ctx.doc, {"resource": "Tree", "code": "invalid", "field": "tree.content"})
                sha = r.git.put("blob", e["content"].encode())
            else:
                sha = e.get("sha")  # null removes the path
                if sha is not None and r.git.kind(str(sha)) != MODES[mode]:
                    raise _validation_failed(ctx.doc, {"resource": "Tree", "code": "invalid", "field": "tree.sha"})
            changes.append((e["path"], mode, sha))
        try:
            sha = r.git.build(base, changes)
        except BadPath as exc:
            raise self._git_refused(ctx, str(exc)) from None
        body = self._render_tree(ctx, r, sha, recursive=False)
        return _Resp(201, body, {"Location": body["url"]})

    def _h_get_tree(self, ctx: _Ctx, owner: str, repo: str, sha: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        if r.git.kind(sha) != "tree":
            raise _not_found(ctx.doc)
        return _Resp(200, self._render_tree(ctx, r, sha, recursive=ctx.query.get("recursive") not in (None, "", "0")))

    def _render_commit(self, ctx: _Ctx, r: Repo, sha: str) -> dict:
        info = r.git.read_commit(sha)
        assert info is not None
        verified_at = r.verified.get(sha)
        reason = "valid" if verified_at else "unknown_key" if info.signature else "unsigned"
        unsigned = CommitInfo(info.tree, info.parents, info.author, info.committer, info.message, None)
        return {
            "sha": sha,
            "node_id": _node_id("Commit", int(sha[:12], 16)),
            "url": self._git_url(ctx, r, "commits", sha),
            "html_url": f"{ctx.web}/{r.full_name}/commit/{sha}",
            "author": {"name": info.author.name, "email": info.author.email, "date": info.author.date},
            "committer": {"name": info.committer.name, "email": info.committer.email, "date": info.committer.date},
            "tree": {"sha": info.tree, "url": self._git_url(ctx, r, "trees", info.tree)},
            "message": info.message,
            "parents": [
                {
                    "sha": p,
                    "url": self._git_url(ctx, r, "commits", p),
                    "html_url": f"{ctx.web}/{r.full_name}/commit/{p}",
                }
                for p in info.parents
            ],
            "verification": {
                "verified": verified_at is not None,
                "reason": reason,
                "signature": info.signature,
                "payload": r.git.encode(unsigned).decode() if info.signature else None,
                "verified_at": verified_at,
            },
        }

    def _h_create_commit(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        b = ctx.body_dict()
        message, tree, parents = b.get("message"), b.get("tree"), b.get("parents", [])
        if not isinstance(message, str):
            raise _validation_failed(ctx.doc, {"resource": "Commit", "code": "missing_field", "field": "message"})
        if not isinstance(tree, str) or r.git.kind(tree) != "tree":
            raise self._git_refused(ctx, "Tree SHA does not exist")
        if not isinstance(parents, list) or any(not isinstance(p, str) or r.git.kind(p) != "commit" for p in parents):
            raise self._git_refused(ctx, "Parent SHA does not exist or is not a commit object")
        user = self.user(ctx.login)
        now, stamp = self._tick(), int(self._clock.timestamp())
        own = Person(user.login, f"{user.id}+{user.login}@users.noreply.github.com", now, stamp)

        def given(role: str) -> Person:
            who = b.get(role)
            if not isinstance(who, dict):
                return own
            return Person(str(who.get("name", own.name)), str(who.get("email", own.email)), now, stamp)

        # GitHub signs a bot's commit only when the request names no author, committer or signature.
        signed = user.type == "Bot" and not any(key in b for key in ("author", "committer", "signature"))
        signature = _FAKE_SIGNATURE if signed else b.get("signature") if isinstance(b.get("signature"), str) else None
        author = given("author")
        sha = r.git.commit(CommitInfo(tree, list(parents), author, given("committer") if "committer" in b else author,
                                      message, signature))  # fmt: skip
        if signed:
            r.verified[sha] = now
        body = self._render_commit(ctx, r, sha)
        return _Resp(201, body, {"Location": body["url"]})

    def _h_get_commit(self, ctx: _Ctx, owner: str, repo: str, sha: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        if r.git.kind(sha) != "commit":
            raise _not_found(ctx.doc)
        return _Resp(200, self._render_commit(ctx, r, sha))

    def _render_ref(self, ctx: _Ctx, r: Repo, name: str) -> dict:
        sha = r.branches[name]
        return {
            "ref": f"refs/heads/{name}",
            "node_id": _node_id("Ref", int(_fake_sha(r.full_name, name)[:12], 16)),
            "url": f"{ctx.base}/repos/{r.full_name}/git/refs/heads/{quote(name)}",
            "object": {"sha": sha, "type": "commit", "url": self._git_url(ctx, r, "commits", sha)},
        }

    def _h_get_ref(self, ctx: _Ctx, owner: str, repo: str, ref: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        name = ref.removeprefix("heads/")
        if not ref.startswith("heads/") or name not in r.branches:
            raise _not_found(ctx.doc)
        return _Resp(200, self._render_ref(ctx, r, name))

    def _h_create_ref(self, ctx: _Ctx, owner: str, repo: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        b = ctx.body_dict()
        ref, sha = b.get("ref"), b.get("sha")
        if not isinstance(ref, str) or not ref.startswith("refs/heads/") or ref == "refs/heads/":
            raise self._git_refused(ctx, "Reference name is not valid (fake_github serves branches only)")
        if not isinstance(sha, str) or r.git.kind(sha) != "commit":
            raise self._git_refused(ctx, "Object does not exist")
        name = ref.removeprefix("refs/heads/")
        if name in r.branches:
            raise self._git_refused(ctx, "Reference already exists")
        r.branches[name] = sha
        body = self._render_ref(ctx, r, name)
        return _Resp(201, body, {"Location": body["url"]})

    def _h_update_ref(self, ctx: _Ctx, owner: str, repo: str, ref: str) -> _Resp:
        r = self._route_repo(ctx, owner, repo)
        b = ctx.body_dict()
        name, sha = ref.removeprefix("heads/"), b.get("sha")
        if not ref.startswith("heads/") or name not in r.branches:
            raise self._git_refused(ctx, "Reference does not exist")
        if not isinstance(sha, str) or r.git.kind(sha) != "commit":
            raise self._git_refused(ctx, "Object does not exist")
        if b.get("force") is not True and not r.git.descends(sha, r.branches[name]):
            raise self._git_refused(ctx, "Update is not a fast forward")
        r.branches[name] = sha
        for p in r.pulls.values():  # a pull request's head follows its branch
            if p.head_repo == r.full_name and p.head_ref == name:
                p.head_sha = sha
        return _Resp(200, self._render_ref(ctx, r, name))


def _scope(pattern: str) -> str:
    """The GITHUB_TOKEN permission a route needs, as a workflow's ``permissions:`` names it
    (GitHub's "permissions required for GitHub Apps"); "metadata" comes with every token."""
    rules = [
        (r"/user", "user"), (r"/users/.*", "metadata"), (r"/repos/[^/]+/[^/]+", "metadata"),
        (r".*/collaborators/.*", "metadata"), (r".*/reactions", "comments"),
        (r".*/pulls/[^/]+/comments.*", "pull-requests"), (r".*/comments.*", "comments"),
        (r".*/(issues|labels)\b.*", "issues"), (r".*/pulls\b.*", "pull-requests"), (r".*/actions/.*", "actions"),
        (r".*/git/.*", "contents"), (r"/graphql", "graphql"),
    ]  # fmt: skip
    plain = re.sub(r"\(\?P<\w+>[^)]*\)", "x", pattern)  # the route with its groups filled in
    return next(scope for rule, scope in rules if re.fullmatch(rule, plain))


def _routes() -> list[tuple[str, re.Pattern, Callable[..., _Resp], str, str]]:
    d = "https://docs.github.com/rest"
    repo = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
    sha = r"(?P<sha>[0-9a-f]{40})"
    table = [
        ("GET", r"/user", FakeGitHub._h_get_authenticated_user, f"{d}/users/users#get-the-authenticated-user"),
        ("GET", r"/users/(?P<login>[^/]+)", FakeGitHub._h_get_user, f"{d}/users/users#get-a-user"),
        ("GET", repo, FakeGitHub._h_get_repo, f"{d}/repos/repos#get-a-repository"),
        ("GET", repo + r"/issues", FakeGitHub._h_list_issues, f"{d}/issues/issues#list-repository-issues"),
        ("POST", repo + r"/issues", FakeGitHub._h_create_issue, f"{d}/issues/issues#create-an-issue"),
        (
            "GET",
            repo + r"/issues/comments",
            FakeGitHub._h_list_repo_comments,
            f"{d}/issues/comments#list-issue-comments-for-a-repository",
        ),
        (
            "GET",
            repo + r"/issues/comments/(?P<comment_id>\d+)",
            FakeGitHub._h_get_comment,
            f"{d}/issues/comments#get-an-issue-comment",
        ),
        (
            "PATCH",
            repo + r"/issues/comments/(?P<comment_id>\d+)",
            FakeGitHub._h_update_comment,
            f"{d}/issues/comments#update-an-issue-comment",
        ),
        (
            "DELETE",
            repo + r"/issues/comments/(?P<comment_id>\d+)",
            FakeGitHub._h_delete_comment,
            f"{d}/issues/comments#delete-an-issue-comment",
        ),
        ("GET", repo + r"/issues/(?P<number>\d+)", FakeGitHub._h_get_issue, f"{d}/issues/issues#get-an-issue"),
        ("PATCH", repo + r"/issues/(?P<number>\d+)", FakeGitHub._h_update_issue, f"{d}/issues/issues#update-an-issue"),
        (
            "GET",
            repo + r"/issues/(?P<number>\d+)/comments",
            FakeGitHub._h_list_comments,
            f"{d}/issues/comments#list-issue-comments",
        ),
        (
            "POST",
            repo + r"/issues/(?P<number>\d+)/comments",
            FakeGitHub._h_create_comment,
            f"{d}/issues/comments#create-an-issue-comment",
        ),
        (
            "GET",
            repo + r"/issues/(?P<number>\d+)/labels",
            FakeGitHub._h_list_issue_labels,
            f"{d}/issues/labels#list-labels-for-an-issue",
        ),
        (
            "POST",
            repo + r"/issues/(?P<number>\d+)/labels",
            FakeGitHub._h_add_issue_labels,
            f"{d}/issues/labels#add-labels-to-an-issue",
        ),
        (
            "PUT",
            repo + r"/issues/(?P<number>\d+)/labels",
            FakeGitHub._h_set_issue_labels,
            f"{d}/issues/labels#set-labels-for-an-issue",
        ),
        (
            "DELETE",
            repo + r"/issues/(?P<number>\d+)/labels",
            FakeGitHub._h_clear_issue_labels,
            f"{d}/issues/labels#remove-all-labels-from-an-issue",
        ),
        (
            "DELETE",
            repo + r"/issues/(?P<number>\d+)/labels/(?P<name>.+)",
            FakeGitHub._h_remove_issue_label,
            f"{d}/issues/labels#remove-a-label-from-an-issue",
        ),
        ("GET", repo + r"/labels", FakeGitHub._h_list_labels, f"{d}/issues/labels#list-labels-for-a-repository"),
        ("POST", repo + r"/labels", FakeGitHub._h_create_label, f"{d}/issues/labels#create-a-label"),
        ("GET", repo + r"/labels/(?P<name>.+)", FakeGitHub._h_get_label, f"{d}/issues/labels#get-a-label"),
        ("GET", repo + r"/pulls", FakeGitHub._h_list_pulls, f"{d}/pulls/pulls#list-pull-requests"),
        ("POST", repo + r"/pulls", FakeGitHub._h_create_pull, f"{d}/pulls/pulls#create-a-pull-request"),
        ("GET", repo + r"/pulls/(?P<number>\d+)", FakeGitHub._h_get_pull, f"{d}/pulls/pulls#get-a-pull-request"),
        (
            "PATCH",
            repo + r"/pulls/(?P<number>\d+)",
            FakeGitHub._h_update_pull,
            f"{d}/pulls/pulls#update-a-pull-request",
        ),
        (
            "GET",
            repo + r"/collaborators/(?P<login>[^/]+)/permission",
            FakeGitHub._h_get_permission,
            f"{d}/collaborators/collaborators#get-repository-permissions-for-a-user",
        ),
        (
            "GET",
            repo + r"/collaborators/(?P<login>[^/]+)",
            FakeGitHub._h_check_collaborator,
            f"{d}/collaborators/collaborators#check-if-a-user-is-a-repository-collaborator",
        ),
        (
            "GET",
            repo + r"/actions/runs",
            FakeGitHub._h_list_runs,
            f"{d}/actions/workflow-runs#list-workflow-runs-for-a-repository",
        ),
        (
            "GET",
            repo + r"/actions/runs/(?P<run_id>\d+)",
            FakeGitHub._h_get_run,
            f"{d}/actions/workflow-runs#get-a-workflow-run",
        ),
        (
            "GET",
            repo + r"/actions/runs/(?P<run_id>\d+)/jobs",
            FakeGitHub._h_list_jobs,
            f"{d}/actions/workflow-jobs#list-jobs-for-a-workflow-run",
        ),
        (
            "GET",
            repo + r"/actions/jobs/(?P<job_id>\d+)",
            FakeGitHub._h_get_job,
            f"{d}/actions/workflow-jobs#get-a-job-for-a-workflow-run",
        ),
        (
            "GET",
            repo + r"/actions/jobs/(?P<job_id>\d+)/logs",
            FakeGitHub._h_job_logs,
            f"{d}/actions/workflow-jobs#download-job-logs-for-a-workflow-run",
        ),
        (
            "POST",
            repo + r"/issues/(?P<number>\d+)/reactions",
            FakeGitHub._h_react_to_issue,
            f"{d}/reactions/reactions#create-reaction-for-an-issue",
        ),
        (
            "POST",
            repo + r"/issues/comments/(?P<comment_id>\d+)/reactions",
            FakeGitHub._h_react_to_comment,
            f"{d}/reactions/reactions#create-reaction-for-an-issue-comment",
        ),
        ("POST", repo + r"/git/blobs", FakeGitHub._h_create_blob, f"{d}/git/blobs#create-a-blob"),
        ("GET", repo + r"/git/blobs/" + sha, FakeGitHub._h_get_blob, f"{d}/git/blobs#get-a-blob"),
        ("POST", repo + r"/git/trees", FakeGitHub._h_create_tree, f"{d}/git/trees#create-a-tree"),
        ("GET", repo + r"/git/trees/" + sha, FakeGitHub._h_get_tree, f"{d}/git/trees#get-a-tree"),
        ("POST", repo + r"/git/commits", FakeGitHub._h_create_commit, f"{d}/git/commits#create-a-commit"),
        ("GET", repo + r"/git/commits/" + sha, FakeGitHub._h_get_commit, f"{d}/git/commits#get-a-commit-object"),
        ("GET", repo + r"/git/ref/(?P<ref>.+)", FakeGitHub._h_get_ref, f"{d}/git/refs#get-a-reference"),
        ("POST", repo + r"/git/refs", FakeGitHub._h_create_ref, f"{d}/git/refs#create-a-reference"),
        ("PATCH", repo + r"/git/refs/(?P<ref>.+)", FakeGitHub._h_update_ref, f"{d}/git/refs#update-a-reference"),
        (
            "GET",
            repo + r"/pulls/(?P<number>\d+)/reviews",
            FakeGitHub._h_list_reviews,
            f"{d}/pulls/reviews#list-reviews-for-a-pull-request",
        ),
        (
            "GET",
            repo + r"/pulls/(?P<number>\d+)/reviews/(?P<review_id>\d+)",
            FakeGitHub._h_get_review,
            f"{d}/pulls/reviews#get-a-review-for-a-pull-request",
        ),
        (
            "GET",
            repo + r"/pulls/(?P<number>\d+)/reviews/(?P<review_id>\d+)/comments",
            FakeGitHub._h_list_review_comments_of_review,
            f"{d}/pulls/reviews#list-comments-for-a-pull-request-review",
        ),
        (
            "GET",
            repo + r"/pulls/(?P<number>\d+)/comments",
            FakeGitHub._h_list_pull_review_comments,
            f"{d}/pulls/comments#list-review-comments-on-a-pull-request",
        ),
        (
            "POST",
            repo + r"/pulls/(?P<number>\d+)/comments/(?P<comment_id>\d+)/replies",
            FakeGitHub._h_reply_to_review_comment,
            f"{d}/pulls/comments#create-a-reply-for-a-review-comment",
        ),
        (
            "GET",
            repo + r"/pulls/comments/(?P<comment_id>\d+)",
            FakeGitHub._h_get_review_comment,
            f"{d}/pulls/comments#get-a-review-comment-for-a-pull-request",
        ),
        ("POST", r"/graphql", FakeGitHub._h_graphql, "https://docs.github.com/graphql"),
    ]
    return [(m, re.compile(p), h, doc, _scope(p)) for m, p, h, doc in table]


_ROUTES = _routes()
