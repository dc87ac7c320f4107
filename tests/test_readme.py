"""The README is the newcomer's page (#29): short, and it answers "what is this, will it work for
my repository, how do I install it on GitHub" before it sends anyone to docs/. Its commands run in
tests/test_docs.py, with every other page's, and so do its links."""

from __future__ import annotations

import re
from pathlib import Path

from test_docs import links, outside_code

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MOST_LINES = 250


def test_the_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= MOST_LINES


def test_the_three_questions_are_answered_before_the_first_link_to_docs():
    lines = outside_code(README.read_text(encoding="utf-8"))
    raw = README.read_text(encoding="utf-8").splitlines()
    first_link = next(i for i, line in enumerate(lines) if re.search(r"(?<!!)\[[^\]]*\]\(docs/", line))
    heading = {line: i for i, line in enumerate(lines) if line.startswith("## ")}
    what = next(i for i, line in enumerate(lines) if line.startswith("autofix lets a language model"))
    will_it_work = heading["## Will it work for my repository?"]
    action = heading["## The Action in five minutes"]
    workflow = next(i for i, line in enumerate(raw) if i > action and "uses: autofix/autofix@v1" in line)
    secret = next(i for i, line in enumerate(raw) if i > action and "**Add the secret**" in line)
    assert what < will_it_work < action < workflow < secret < first_link


def test_the_readme_shows_what_a_maintainer_gets():
    images = [target for _, target in links(README) if target.endswith(".png")]
    assert images and images[0] == "docs/images/pull-request.png"
    text = README.read_text(encoding="utf-8")
    assert text.index("What a maintainer gets") < text.index("![") < text.index("## Will it work")
