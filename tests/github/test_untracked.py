"""The workspace's untracked files, as `git ls-files --others` names them, spelled as the file
system does: what autofix keeps out of every scratch copy (bot/github/step.py, `left_out`)."""

import os
import subprocess

from bot.github.git import Git


def test_every_untracked_file_is_named_as_the_file_system_names_it(tmp_path):
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("*.json\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", ".gitignore"], check=True)
    names = ["gha-creds-abc.json", ".git-credentials", "é.txt", "line\nbreak", 'q"uote', "tab\there"]
    for name in names:
        (tmp_path / name).write_text("x")
    (tmp_path / os.fsdecode(b"\xff.bin")).write_text("x")  # not UTF-8: a surrogate, as os.listdir gives it
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "key.pem").write_text("x")
    subprocess.run(["git", "init", "--quiet", str(tmp_path / "nested")], check=True)  # another repository
    (tmp_path / "nested" / "f").write_text("x")
    found = Git(tmp_path, "https://github.com", None, lambda text: text).untracked()
    assert sorted(found) == sorted([*names, os.fsdecode(b"\xff.bin"), "sub/key.pem", "nested/"])
    assert all((tmp_path / name.rstrip("/")).exists() for name in found)
