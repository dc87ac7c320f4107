"""The reviewer's section in the pull request autofix opens, end to end through the issue flow: the
real PyGithub against a fake GitHub, a scripted model, real git, the real sandbox."""

import base64

from action_world import REPO, act, labeled
from conftest import RIGHT

PAYLOAD = base64.b64encode(bytes(range(225))).decode()  # 300 characters
RISKY = f'''```python
import os
import subprocess
import urllib.request

BLOB = "{PAYLOAD}"


def unique_items(items):
    return list(dict.fromkeys(items))


def refresh():
    subprocess.run(["true"], check=False)
    urllib.request.urlopen("http://127.0.0.1:9")
    return os.environ["HOME"]
```'''


def test_a_fix_reaching_out_gets_a_section_naming_each_spot(world, github, capsys):
    world.event("issues", labeled())
    assert act(capsys, world, [RISKY])[0] == 0
    body = github.pull(REPO, 2).body
    section = body[body.index("### For the reviewer") :]
    for line in (
        "- `unique.py:2` — process: `subprocess`",
        "- `unique.py:3` — network: `urllib.request`",
        "- `unique.py:13` — process: `subprocess.run`",
        "- `unique.py:14` — network: `urllib.request.urlopen`",
        "- `unique.py:15` — environment: `os.environ`",
    ):
        assert line in section
    assert "- `unique.py:5` — long literal: `" in section and "(300 characters, base64-looking)`" in section


def test_a_plain_fix_gets_nothing_of_these_kinds(world, github, capsys):
    world.event("issues", labeled())
    assert act(capsys, world, [RIGHT])[0] == 0
    body = github.pull(REPO, 2).body
    assert "\n\n### For the reviewer\n\nNothing of these kinds: no new network, process, " in body
    assert "- `" not in body.split("### For the reviewer")[1]
