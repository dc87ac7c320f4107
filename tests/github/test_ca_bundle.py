"""`ca-bundle`: a GitHub Enterprise Server (and a model service) behind a private CA. Each client
autofix talks through verifies against the public roots plus that PEM file's CA, over real
HTTPS: PyGithub against the fake GitHub served with a certificate the CA signed, the openai SDK
against the scripted server likewise, git's TLS handshake with that server, and the whole step
through `autofix action` building each of them itself. Without the CA each one refuses."""

import io
import os
import ssl
import subprocess
import tempfile
from pathlib import Path
from types import SimpleNamespace

import certifi
import pytest
from action_world import REPO, TOKEN, World, labeled
from conftest import RIGHT
from fake_github import FakeGitHub
from fake_openai import ScriptedOpenAI
from selfsigned import make_ca

from bot.errors import ModelUnavailable, UserError
from bot.github import dispatch, trust
from bot.github import step as step_module
from bot.github.config import Config
from bot.github.forge import Forge, ForgeError, Pacing
from bot.github.git import Git, GitError
from bot.github.step import Step
from bot.github.workflow import Workflow
from bot.models.base import ModelSettings
from bot.models.openai_api import OpenAIModel
from bot.redact import Redactor

FAST = Pacing(between_requests=None, between_writes=None, timeout=5, retries=0, first_wait=0.01, budget=1.0)
HELLO = [{"role": "user", "content": "Say hello."}]


@pytest.fixture
def ca(tmp_path):
    return make_ca(tmp_path / "ca")


@pytest.fixture
def bundle(ca, tmp_path):
    return trust.bundle(ca.ca_pem, tmp_path)


@pytest.fixture
def ghes(ca):
    with FakeGitHub(tls=ca.server_context()) as fake:
        fake.add_repo(REPO, default_branch="master")
        yield fake
        assert fake.errors == []


def test_the_bundle_holds_the_public_roots_and_the_private_ca(ca, bundle):
    roots = ssl.create_default_context(cafile=certifi.where()).get_ca_certs()
    trusted = ssl.create_default_context(cafile=bundle).get_ca_certs()
    assert len(trusted) == len(roots) + 1  # a public model service still verifies
    assert {"commonName": "Example Corp Root CA"} in [dict(part[0] for part in c["subject"]) for c in trusted]


def test_pygithub_verifies_the_server_against_the_bundle(ghes, bundle):
    assert ghes.api_url.startswith("https://")
    assert Forge(ghes.api_url, TOKEN, REPO, FAST, ca_bundle=bundle).default_branch() == "master"
    with pytest.raises(ForgeError, match="CERTIFICATE_VERIFY_FAILED"):
        Forge(ghes.api_url, TOKEN, REPO, FAST).default_branch()


def test_the_openai_sdk_verifies_the_model_service_against_the_bundle(ca, bundle):
    with ScriptedOpenAI(["hello", "hello"], tls=ca.server_context()) as server:
        settings = ModelSettings(name="m", base_url=server.base_url, api_key="k", max_retries=0, timeout=5)
        assert OpenAIModel(ModelSettings(**{**settings.__dict__, "ca_bundle": str(bundle)})).complete(HELLO).text
        with pytest.raises(ModelUnavailable, match="cannot reach the model API"):
            OpenAIModel(settings).complete(HELLO)
        assert len(server.requests) == 1


def test_git_verifies_the_server_against_the_bundle(ghes, bundle, tmp_path):
    work = tmp_path / "work"
    subprocess.run(["git", "init", "--quiet", str(work)], check=True)
    url = f"{ghes.web_url}/{REPO}.git"
    with pytest.raises(GitError) as trusted:
        Git(work, ghes.web_url, None, str, ca_bundle=bundle).run("ls-remote", url)
    assert "could not read Username" in str(trusted.value)  # TLS passed: GitHub answered, asking for credentials
    with pytest.raises(GitError, match="certificate"):
        Git(work, ghes.web_url, None, str).run("ls-remote", url)


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"INPUT_CA-BUNDLE": "certs/missing.pem"}, "input ca-bundle: {workspace}/certs/missing.pem is not a file"),
        ({"SSL_CERT_FILE": "/nonexistent/ca.pem"}, "SSL_CERT_FILE: /nonexistent/ca.pem is not a file"),
        ({"INPUT_CA-BUNDLE": "README.md"}, "input ca-bundle: {workspace}/README.md holds no PEM certificate"),
    ],
)
def test_a_ca_bundle_that_can_t_be_loaded_stops_the_step_in_one_line(tmp_path, monkeypatch, environ, message):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "README.md").write_text("# not a certificate\n")
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    runner = {"GITHUB_EVENT_NAME": "issues", "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
              "GITHUB_REPOSITORY": REPO, "GITHUB_WORKSPACE": str(workspace), "INPUT_GITHUB-TOKEN": TOKEN}  # fmt: skip
    with pytest.raises(UserError) as refused:
        Config.from_environ(runner | environ)
    assert str(refused.value).startswith(message.format(workspace=workspace))
    assert "\n" not in str(refused.value)


def test_the_input_is_read_relative_to_the_workspace_and_ssl_cert_file_is_honoured(ca, tmp_path):
    workspace = tmp_path / "workspace"
    (workspace / "certs").mkdir(parents=True)
    (workspace / "certs" / "corp.pem").write_bytes(ca.ca_pem.read_bytes())
    runner = {"GITHUB_EVENT_NAME": "issues", "GITHUB_EVENT_PATH": "e", "GITHUB_REPOSITORY": REPO,
              "GITHUB_WORKSPACE": str(workspace), "INPUT_GITHUB-TOKEN": TOKEN}  # fmt: skip
    assert Config.from_environ(runner | {"INPUT_CA-BUNDLE": "certs/corp.pem"}).ca_bundle == workspace / "certs/corp.pem"
    assert Config.from_environ(runner | {"SSL_CERT_FILE": str(ca.ca_pem)}).ca_bundle == ca.ca_pem
    both = runner | {"SSL_CERT_FILE": "/etc/ssl/elsewhere.pem", "INPUT_CA-BUNDLE": "certs/corp.pem"}
    assert Config.from_environ(both).ca_bundle == workspace / "certs/corp.pem"  # the input wins


def test_the_step_gives_every_client_the_bundle(ca, tmp_path, monkeypatch, capsys):
    """`autofix action` with nothing passed in: its own Forge, model and git, over HTTPS to servers
    whose certificates only the private CA vouches for. The issue's pull request opens."""
    with FakeGitHub(tls=ca.server_context()) as ghes:
        world = World(tmp_path, monkeypatch, ghes)
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
        (world.workspace / "corp-ca.pem").write_bytes(ca.ca_pem.read_bytes())  # an earlier step's file
        world.input("ca-bundle", "corp-ca.pem")
        world.event("issues", labeled())
        # The step's own bundle folder, by name: other tests beside this one (pytest-xdist) make
        # and remove theirs in the same temporary folder meanwhile.
        made: list[str] = []
        original = tempfile.TemporaryDirectory

        def recorded(*args, **kwargs):
            folder = original(*args, **kwargs)
            if kwargs.get("prefix") == "autofix-trust-":
                made.append(folder.name)
            return folder

        monkeypatch.setattr(step_module, "tempfile", SimpleNamespace(TemporaryDirectory=recorded))
        with ScriptedOpenAI([RIGHT], tls=ca.server_context()) as openai:
            world.input("base-url", openai.base_url)
            code = dispatch.main(os.environ)
        out = capsys.readouterr().out.splitlines()
        assert code == 0, "\n".join(out)
        assert len(openai.requests) == 1
        [pull] = ghes.pulls(REPO)
        assert pull.head_ref == "autofix/issue-1"
        assert out[-1] == f"autofix: pull request #{pull.number} created: {ghes.web_url}/{REPO}/pull/{pull.number}"
        assert ghes.errors == []
    assert len(made) == 1 and not Path(made[0]).exists()  # the bundle goes with the step


def test_the_step_s_git_and_its_checkouts_carry_the_bundle(ghes, ca, tmp_path, monkeypatch):
    workspace = tmp_path / "workspace"
    subprocess.run(["git", "init", "--quiet", str(workspace)], check=True)
    subprocess.run(["git", "-C", str(workspace), "-c", "user.name=M", "-c", "user.email=m@example.com",
                    "commit", "--quiet", "--allow-empty", "-m", "initial"], check=True)  # fmt: skip
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    runner = {"GITHUB_EVENT_NAME": "issues", "GITHUB_EVENT_PATH": "e", "GITHUB_REPOSITORY": REPO,
              "GITHUB_WORKSPACE": str(workspace), "GITHUB_SERVER_URL": ghes.web_url, "INPUT_GITHUB-TOKEN": TOKEN,
              "INPUT_CA-BUNDLE": str(ca.ca_pem)}  # fmt: skip
    redact = Redactor()
    step = Step(Config.from_environ(runner), Workflow(io.StringIO(), redact), redact)
    url = f"{ghes.web_url}/{REPO}.git"
    with step.cleanup:
        with pytest.raises(GitError, match="could not read Username"):  # TLS passed, GitHub answered
            step.git.run("ls-remote", url)
        with step.git.checkout("HEAD", tmp_path, "autofix-pr-1-") as tree, pytest.raises(GitError) as refused:
            tree.run("ls-remote", url)
        assert "could not read Username" in str(refused.value)


def test_job_logs_are_downloaded_from_the_server_against_the_bundle(ghes, bundle):
    run = ghes.add_workflow_run(REPO, head_branch="feature", head_sha="a" * 40, event="pull_request")
    ghes.add_job(run, "test", log="FAILED tests/test_calc.py::test_add\n")
    logs, missing = Forge(ghes.api_url, TOKEN, REPO, FAST, ca_bundle=bundle).failed_job_logs(run.id)
    assert (logs, missing) == ([("test", "FAILED tests/test_calc.py::test_add\n")], None)
    logs, missing = Forge(ghes.api_url, TOKEN, REPO, FAST).failed_job_logs(run.id)
    assert logs == [] and missing is not None
