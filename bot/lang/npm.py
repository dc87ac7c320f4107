"""npm's lifecycle scripts in a change to package.json: what npm runs on its own, on `npm install`
(in the repository: the pre- and post- hooks of install and prepare) and around `npm test`. A
script of these added or changed runs whatever it says before or after the tests, so a reviewer
should see it."""

from __future__ import annotations

import json
import re

from bot.lang.base import Spot

LIFECYCLE = ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare",
             "pretest", "posttest")  # fmt: skip


def lifecycle_scripts(old: str | None, new: str) -> list[Spot]:
    """(line, "lifecycle script", `"name": "command"`) of each lifecycle script `new` adds or changes;
    none when `new` isn't a JSON object (the file is judged broken elsewhere)."""
    before, after = scripts(old or "{}"), scripts(new)
    lines = new.splitlines()
    start = next((n for n, text in enumerate(lines) if re.match(r'\s*"scripts"\s*:', text)), 0)
    found: list[Spot] = []
    for name in LIFECYCLE:
        command = after.get(name)
        if command is not None and before.get(name) != command:
            key = re.compile(rf'\s*"{name}"\s*:')
            at = next((n for n, text in enumerate(lines[start:], start + 1) if key.match(text)), start + 1)
            found.append((at, "lifecycle script", f"{json.dumps(name)}: {json.dumps(command)}"))
    return sorted(found)


def scripts(text: str) -> dict[str, object]:
    try:
        manifest = json.loads(text)
    except ValueError:
        return {}
    found = manifest.get("scripts") if isinstance(manifest, dict) else None
    return found if isinstance(found, dict) else {}
