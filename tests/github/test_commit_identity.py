"""Who autofix's commits say made them: github-actions[bot] with the noreply address of the server
the step runs against (GITHUB_SERVER_URL), so GitHub Enterprise Server gets its own domain, not
github.com's. Real git commits in a real repository."""

import subprocess

import pytest

from bot.github.git import Git, bot_email


@pytest.mark.parametrize(
    ("server_url", "email"),
    [
        ("https://github.com", "41898282+github-actions[bot]@users.noreply.github.com"),
        ("https://GitHub.com/", "41898282+github-actions[bot]@users.noreply.github.com"),
        ("https://ghe.example.com", "github-actions[bot]@users.noreply.ghe.example.com"),
        ("https://ghe.example.com:8443/", "github-actions[bot]@users.noreply.ghe.example.com"),
    ],
)
def test_the_noreply_domain_follows_the_server(server_url, email):
    assert bot_email(server_url) == email


def test_a_commit_on_github_enterprise_server_carries_the_server_s_noreply_address(tmp_path):
    work = tmp_path / "work"
    subprocess.run(["git", "init", "--quiet", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "-c", "user.name=M", "-c", "user.email=m@example.com",
                    "commit", "--quiet", "--allow-empty", "-m", "initial"], check=True)  # fmt: skip
    (work / "fix.py").write_text("x = 1\n")
    git = Git(work, "https://ghe.example.com", None, str)
    commit, _ = git.commit(["fix.py"], "autofix: a fix\n")
    who = git.run("log", "-1", "--format=%an <%ae>|%cn <%ce>", commit)
    bot = "github-actions[bot] <github-actions[bot]@users.noreply.ghe.example.com>"
    assert who == f"{bot}|{bot}"
