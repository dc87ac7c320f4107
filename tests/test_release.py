"""A release users can `uses:`: .github/release/release.py run as the release workflow runs it, in a
fresh clone (without tags, as actions/checkout makes it) of a bare `origin` seeded with the
repository's own action.yml and pyproject.toml, with real git and no docker (the digest is passed
as the workflow passes the pushed one). Then what the workflow, the Dockerfile and the examples
must say for a release to be pulled by users' runners."""

from __future__ import annotations

import base64
import http.server
import itertools
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from bot.github.config import DEFAULT_SPECS
from bot.github.dispatch import plan

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".github" / "release" / "release.py"
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
NIGHTLY = ROOT / "examples" / "workflows" / "autofix-nightly.yml"
ACTION = (ROOT / "action.yml").read_text()
PYPROJECT = (ROOT / "pyproject.toml").read_text()
[CURRENT] = re.findall(r'^version = "([^"]*)"$', PYPROJECT, re.MULTILINE)
IMAGE = "ghcr.io/owner/autofix"
DIGEST = "sha256:" + "0123456789abcdef" * 4
LATER_DIGEST = "sha256:" + "fedcba9876543210" * 4
MALFORMED = "release: version {!r} must look like 1.2.3 (digits only, no leading v)\n"
NOT_A_REPOSITORY = "must be a lowercase repository such as ghcr.io/owner/autofix"


def stamped(version: str) -> str:
    """The repository's pyproject.toml with `version` as its version."""
    return PYPROJECT.replace(f'\nversion = "{CURRENT}"\n', f'\nversion = "{version}"\n')


def tag_args(version: str, digest: str = DIGEST) -> list[str]:
    return ["tag", version, "--image", IMAGE, "--digest", digest]


@dataclass
class Origin:
    """A bare `origin` on main, the maintainers' clone pushing to it, fresh checkouts of it."""

    root: Path
    env: dict[str, str]
    checkouts: itertools.count = field(default_factory=itertools.count)

    @property
    def bare(self) -> Path:
        return self.root / "origin.git"

    def git(self, cwd: Path, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=cwd, env=self.env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def commit(self, files: dict[str, str]) -> str:
        work = self.root / "work"
        for name, text in files.items():
            (work / name).write_text(text)
        self.git(work, "add", *files)
        self.git(work, "commit", "--quiet", "-m", "change")
        self.git(work, "push", "--quiet", "origin", "main")
        return self.commit_of("main")

    def checkout(self) -> Path:
        """A clone as the release job has it: main checked out, no tags fetched."""
        where = self.root / f"checkout-{next(self.checkouts)}"
        self.git(self.root, "clone", "--quiet", "--no-tags", str(self.bare), str(where))
        return where

    def script(self, clone: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=clone, env=env or self.env,
                              capture_output=True, text=True)  # fmt: skip

    def release(self, *args: str) -> tuple[subprocess.CompletedProcess, Path]:
        clone = self.checkout()
        return self.script(clone, *args), clone

    def commit_of(self, ref: str) -> str:
        return self.git(self.bare, "rev-parse", f"{ref}^{{commit}}").strip()

    def show(self, ref: str, path: str) -> str:
        return self.git(self.bare, "show", f"{ref}:{path}")

    def refs(self) -> dict[str, str]:
        """Every ref origin has, with the object it names (an annotated tag's own object)."""
        lines = self.git(self.bare, "for-each-ref", "--format=%(refname) %(objectname)").splitlines()
        return dict(line.split(" ") for line in lines)


@pytest.fixture
def origin(tmp_path) -> Origin:
    home = tmp_path / "home"
    home.mkdir()
    # English messages, no global or system git configuration, no token, not in GitHub Actions.
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_TERMINAL_PROMPT": "0", "GIT_AUTHOR_NAME": "maintainer", "GIT_AUTHOR_EMAIL": "m@example.com",
           "GIT_COMMITTER_NAME": "maintainer", "GIT_COMMITTER_EMAIL": "m@example.com"}  # fmt: skip
    world = Origin(tmp_path, env)
    world.git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(world.bare))
    world.git(tmp_path, "clone", "--quiet", str(world.bare), "work")
    world.commit({"action.yml": ACTION, "pyproject.toml": PYPROJECT})
    return world


def unchanged(origin: Origin, clone: Path, refs: dict[str, str], main: str) -> None:
    """Nothing pushed, nothing committed, nothing written in the clone."""
    assert origin.refs() == refs
    assert origin.git(clone, "rev-parse", "HEAD").strip() == main
    assert origin.git(clone, "status", "--porcelain") == ""


# ------------------------------------------------------------------------------- the tags


def test_the_first_release_creates_v1_and_the_next_moves_it(origin):
    done, _ = origin.release(*tag_args("1.0.0"))
    assert done.returncode == 0, done.stderr
    first = origin.commit_of("v1.0.0")
    assert done.stdout == f"release: v1.0.0 is {first}, its action.yml pulling {IMAGE}@{DIGEST}; v1 moved to it\n"
    assert origin.commit_of("v1") == first

    origin.commit({"README.md": "a change on main\n"})
    done, _ = origin.release(*tag_args("1.1.0", LATER_DIGEST))
    assert done.returncode == 0, done.stderr
    second = origin.commit_of("v1.1.0")
    assert origin.commit_of("v1") == second != first
    assert origin.commit_of("v1.0.0") == first
    assert sorted(r for r in origin.refs() if r.startswith("refs/tags/")) == [
        "refs/tags/v1",
        "refs/tags/v1.0.0",
        "refs/tags/v1.1.0",
    ]
    assert [origin.git(origin.bare, "cat-file", "-t", t).strip() for t in ("v1", "v1.0.0", "v1.1.0")] == ["tag"] * 3


def test_a_release_of_an_older_line_leaves_v1_on_the_latest_and_a_new_major_gets_its_own(origin):
    for version in ("1.9.0", "1.10.0"):  # compared as numbers: 1.10.0 is the later
        assert origin.release(*tag_args(version))[0].returncode == 0
    done, _ = origin.release(*tag_args("1.0.1", LATER_DIGEST))
    assert done.returncode == 0, done.stderr
    patch = origin.commit_of("v1.0.1")
    pulled = f"{IMAGE}@{LATER_DIGEST}"
    left = "v1 left on v1.10.0, a later release"
    assert done.stdout == f"release: v1.0.1 is {patch}, its action.yml pulling {pulled}; {left}\n"
    assert origin.commit_of("v1") == origin.commit_of("v1.10.0") != patch

    assert origin.release(*tag_args("2.0.0"))[0].returncode == 0
    assert origin.commit_of("v2") == origin.commit_of("v2.0.0")
    assert origin.commit_of("v1") == origin.commit_of("v1.10.0")


def test_the_tag_carries_the_digest_and_main_keeps_the_dockerfile(origin):
    main = origin.commit_of("main")
    done, clone = origin.release(*tag_args("1.0.0"))
    assert done.returncode == 0, done.stderr
    release = origin.commit_of("v1.0.0")
    assert origin.show("v1.0.0", "action.yml") == ACTION.replace(
        "\n  image: Dockerfile\n", f"\n  image: docker://{IMAGE}@{DIGEST}\n"
    )
    assert origin.show("v1.0.0", "pyproject.toml") == stamped("1.0.0")
    assert origin.git(origin.bare, "diff", "--name-only", "main", "v1.0.0") == "action.yml\npyproject.toml\n"
    # The release commit is a child of main on no branch: main, on origin and in the clone, is where it was.
    assert origin.git(origin.bare, "rev-parse", f"{release}^").strip() == main
    assert origin.commit_of("main") == main
    assert origin.show("main", "action.yml") == ACTION
    assert "\n  image: Dockerfile\n" in ACTION
    assert origin.git(clone, "rev-parse", "refs/heads/main").strip() == main
    assert origin.git(origin.bare, "branch", "--contains", release) == ""


# ------------------------------------------------------------------------------- refusals

PHASES = [pytest.param(["check"], id="check"), pytest.param(["tag"], id="tag")]


def phase_args(phase: list[str], version: str) -> list[str]:
    return tag_args(version) if phase == ["tag"] else [*phase, version]


@pytest.mark.parametrize("phase", PHASES)
def test_a_version_tagged_on_origin_is_refused_and_nothing_changes(origin, phase):
    assert origin.release(*tag_args("1.0.0"))[0].returncode == 0
    refs, main = origin.refs(), origin.commit_of("main")
    clone = origin.checkout()
    assert origin.git(clone, "tag", "--list") == ""  # the clone has no tags: origin is asked
    done = origin.script(clone, *phase_args(phase, "1.0.0"))
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        "release: tag v1.0.0 already exists on origin; a version is released once\n",
    )
    unchanged(origin, clone, refs, main)


def test_a_tag_origin_got_after_the_check_is_never_overwritten_nor_v1_moved(origin):
    """The push has the last word: vX.Y.Z without force, in one atomic push with vX. The race is
    played by a clone whose fetch URL (what the check asks) is a copy of origin from before v1.0.0."""
    stale = origin.root / "stale.git"
    origin.git(origin.root, "clone", "--quiet", "--bare", str(origin.bare), str(stale))
    assert origin.release(*tag_args("1.0.0"))[0].returncode == 0
    refs = origin.refs()
    clone = origin.checkout()
    origin.git(clone, "remote", "set-url", "origin", str(stale))
    origin.git(clone, "remote", "set-url", "--push", "origin", str(origin.bare))
    done = origin.script(clone, *tag_args("1.0.0", LATER_DIGEST))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "release: git push failed: ! [rejected] v1 -> v1 (atomic push failed);"
        " ! [rejected] v1.0.0 -> v1.0.0 (already exists)\n"
    )
    assert origin.refs() == refs


@pytest.mark.parametrize("phase", PHASES)
def test_a_version_tagged_only_in_this_clone_is_refused_and_nothing_changes(origin, phase):
    refs, main = origin.refs(), origin.commit_of("main")
    clone = origin.checkout()
    origin.git(clone, "tag", "v1.0.0")
    done = origin.script(clone, *phase_args(phase, "1.0.0"))
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        "release: tag v1.0.0 already exists in this clone; a version is released once\n",
    )
    unchanged(origin, clone, refs, main)


@pytest.mark.parametrize("version", ["1.0", "v1.0.0", "1.0.0-rc.1", "1.0.0\n", " 1.0.0", "1.0.0.0", "١.٠.٠", ""])
@pytest.mark.parametrize("phase", [*PHASES, pytest.param(["stamp"], id="stamp")])
def test_a_malformed_version_is_refused_and_nothing_changes(origin, phase, version):
    refs, main = origin.refs(), origin.commit_of("main")
    clone = origin.checkout()
    done = origin.script(clone, *phase_args(phase, version))
    assert (done.returncode, done.stdout, done.stderr) == (1, "", MALFORMED.format(version))
    unchanged(origin, clone, refs, main)


@pytest.mark.parametrize(
    "image, digest, error",
    [
        (IMAGE, "sha256:0123", "--digest 'sha256:0123' must be sha256: and 64 hex digits"),
        (IMAGE, DIGEST.upper(), f"--digest {DIGEST.upper()!r} must be sha256: and 64 hex digits"),
        (IMAGE, "", "--digest '' must be sha256: and 64 hex digits"),
        (f"{IMAGE}:1.0.0", DIGEST, f"--image '{IMAGE}:1.0.0' {NOT_A_REPOSITORY}"),
        ("ghcr.io/Owner/autofix", DIGEST, f"--image 'ghcr.io/Owner/autofix' {NOT_A_REPOSITORY}"),
    ],
)
def test_a_malformed_image_or_digest_is_refused_and_nothing_changes(origin, image, digest, error):
    refs, main = origin.refs(), origin.commit_of("main")
    clone = origin.checkout()
    done = origin.script(clone, "tag", "1.0.0", "--image", image, "--digest", digest)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"release: {error}\n")
    unchanged(origin, clone, refs, main)


def test_a_tree_the_release_could_not_rewrite_is_refused_before_the_build(origin):
    """Checked first, so the image is never pushed for a release whose tag can't be made."""
    origin.commit({"action.yml": ACTION.replace("\n  image: Dockerfile\n", "\n  image: docker://elsewhere\n")})
    refs, main = origin.refs(), origin.commit_of("main")
    done, clone = origin.release("check", "1.0.0")
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        "release: action.yml: expected exactly one line `  image: Dockerfile`, to rewrite for the release\n",
    )
    unchanged(origin, clone, refs, main)


def test_stamp_sets_the_version_in_pyproject_only(origin):
    done, clone = origin.release("stamp", "1.2.3")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert (clone / "pyproject.toml").read_text() == stamped("1.2.3")
    assert origin.git(clone, "status", "--porcelain") == " M pyproject.toml\n"


def test_the_token_goes_to_git_as_a_masked_header_and_an_origin_that_cant_answer_refuses(origin):
    token = "ghs_release0test0token0value"
    auth = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    seen: list[str | None] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        """An HTTP origin that knows no repository, recording the Authorization header git sends."""

        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization"))
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        clone = origin.checkout()
        url = f"http://127.0.0.1:{server.server_port}/owner/autofix.git"
        origin.git(clone, "remote", "set-url", "origin", url)
        env = {**origin.env, "GH_TOKEN": token, "GITHUB_ACTIONS": "true"}
        done = origin.script(clone, "check", "1.0.0", env=env)
    finally:
        server.shutdown()
        server.server_close()
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        f"::add-mask::{auth}\n",
        f"::error::release: git ls-remote failed: fatal: repository '{url}/' not found\n",
    )
    assert seen == [f"basic {auth}"]
    assert token not in done.stdout + done.stderr


# ------------------------------------------------------------------------------- what users' runners pull


def steps() -> list[dict]:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"]["release"]["steps"]


def test_the_workflow_checks_the_version_before_anything_is_built_or_pushed():
    runs = [step.get("run", "") for step in steps()]
    [check] = [i for i, run in enumerate(runs) if 'release.py check "$VERSION"' in run]
    docker = [i for i, run in enumerate(runs) if re.search(r"\bdocker\b", run)]
    assert len(docker) == 2 and min(docker) > check

    def at(command: str) -> int:
        [index] = [i for i, run in enumerate(runs) if re.search(rf"\b{command}\b", run)]
        return index

    assert check < at("docker build") < at("smoke.py") < at("docker push") < at("release.py tag")
    push, tag = steps()[at("docker push")], steps()[at("release.py tag")]
    assert push["id"] == "push" and tag["env"]["DIGEST"] == "${{ steps.push.outputs.digest }}"
    assert '--digest "$DIGEST"' in tag["run"]
    assert '--build-arg "SOURCE=https://github.com/${GITHUB_REPOSITORY}"' in runs[at("docker build")]


def test_the_image_names_its_repository_for_ghcr():
    final_stage = (ROOT / "Dockerfile").read_text().rsplit("\nFROM ", 1)[1].splitlines()
    assert "LABEL org.opencontainers.image.source=$SOURCE" in final_stage
    assert final_stage.index("ARG SOURCE=https://github.com/autofix/autofix") < final_stage.index(
        "LABEL org.opencontainers.image.source=$SOURCE"
    )


def test_the_docs_and_every_example_use_the_major_tag():
    examples = (ROOT / "examples" / "workflows").glob("*.yml")
    pages = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    texts = [*(p.read_text() for p in pages), *(p.read_text() for p in examples)]
    uses = [ref for text in texts for ref in re.findall(r"autofix/autofix@([\w.-]+)", text)]
    assert len(uses) >= 5 and set(uses) == {"v1"}


def test_the_nightly_plan_step_lists_the_specs_as_autofix_plan_does(tmp_path):
    job = yaml.safe_load(NIGHTLY.read_text())["jobs"]["plan"]
    [step] = [s for s in job["steps"] if s.get("id") == "plan"]
    assert job["outputs"]["specs"] == "${{ steps.plan.outputs.specs }}"

    def listed(workspace: Path) -> str:
        output = workspace / "github-output"
        env = {"PATH": os.environ["PATH"], "GITHUB_OUTPUT": str(output)}
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=workspace, env=env)
        assert done.returncode == 0
        return output.read_text()

    empty = tmp_path / "empty"
    empty.mkdir()
    assert listed(empty) == f"specs={plan(empty, DEFAULT_SPECS)}\n" == "specs=[]\n"  # the matrix job's `if`

    repo = tmp_path / "repo"
    for name in (".autofix/b.yml", ".autofix/a.yml", ".autofix/.hidden.yml", ".autofix/notes.md", "other/c.yml"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("target: x.py\n")
    (repo / ".autofix" / "folder.yml").mkdir()
    assert listed(repo) == f"specs={plan(repo, DEFAULT_SPECS)}\n" == 'specs=[".autofix/a.yml", ".autofix/b.yml"]\n'
