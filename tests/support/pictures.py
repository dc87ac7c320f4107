"""`make pictures`: each docs/images/NAME.md (written by tests/flows/test_pictures.py from what
autofix posted) rendered as GitHub renders it (cmark-gfm, then a stylesheet close to GitHub's
light theme) and screenshot by headless Chromium into docs/images/NAME.png.

    python tests/support/pictures.py docs/images
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from gfm import render

WIDTH = 900
HEIGHTS = {"pull-request": 720, "failure-comment": 560}  # px: the whole body, its folds closed as GitHub shows them
TITLES = {
    "pull-request": "Fix unique_items loses the order #2",
    "failure-comment": "github-actions commented on issue #1",
}
STYLE = """
body { margin: 0; padding: 24px; background: #fff; color: #1f2328;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Noto Color Emoji"; }
.box { border: 1px solid #d1d9e0; border-radius: 6px; }
.head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; color: #59636e;
  border-radius: 6px 6px 0 0; font-weight: 600; }
.markdown-body { padding: 16px; }
.markdown-body > :first-child { margin-top: 0; }
p, ul, table, pre, details { margin: 0 0 16px; }
h3 { font-size: 1.25em; margin: 24px 0 16px; font-weight: 600; }
a { color: #0969da; text-decoration: none; }
code { font: 85% ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, monospace;
  background: rgba(129, 139, 152, 0.12); padding: .2em .4em; border-radius: 6px; }
pre { background: #f6f8fa; padding: 16px; border-radius: 6px; overflow: auto; line-height: 1.45; }
pre code { background: none; padding: 0; font-size: 85%; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
th { font-weight: 600; }
tr:nth-child(2n) { background: #f6f8fa; }
summary { cursor: pointer; }
ul { padding-left: 2em; }
"""


def page(name: str, markdown: str) -> str:
    title = TITLES.get(name, name)
    return (
        f"<!doctype html><meta charset=utf-8><style>{STYLE}</style>"
        f"<div class=box><div class=head>{title}</div><div class=markdown-body>{render(markdown)}</div></div>"
    )


def shoot(folder: Path) -> list[Path]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("pictures: no chromium on PATH (apt-get install -y chromium)")
    made = []
    with tempfile.TemporaryDirectory() as scratch:
        for source in sorted(folder.glob("*.md")):
            html = Path(scratch) / f"{source.stem}.html"
            html.write_text(page(source.stem, source.read_text()))
            png = folder / f"{source.stem}.png"
            subprocess.run(
                [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 f"--screenshot={png}", f"--window-size={WIDTH},{HEIGHTS.get(source.stem, 1200)}", html.as_uri()],
                check=True, capture_output=True, timeout=120,
            )  # fmt: skip
            made.append(png)
    return made


if __name__ == "__main__":
    for png in shoot(Path(sys.argv[1])):
        print(png)
