"""The git side of a release; .github/workflows/release.yml runs it from the checkout's root.

    release.py check VERSION
        Before anything is built or pushed: refuse a version that isn't 1.2.3, one whose tag
        vVERSION exists in this clone or on origin, and a tree whose action.yml or pyproject.toml
        the tag phase couldn't rewrite.
    release.py stamp VERSION
        pyproject.toml's version set, so the image's wheel carries it.
    release.py tag VERSION --image ghcr.io/OWNER/autofix --digest sha256:HEX
        The checks again; then a commit off the checked-out one, on no branch, whose action.yml pulls
        the pushed image by digest (`docker://IMAGE@sha256:HEX`: a tag can be moved, a digest
        can't); vVERSION (annotated) on it, and the major tag vMAJOR moved to it unless origin has
        a later VERSION of that major; both in one atomic push, vVERSION never forced. The branch
        keeps `image: Dockerfile`.

Standard library only: it runs before anything is installed. A refusal is one line on stderr and
exit 1. GH_TOKEN, when set, reaches git as an HTTP header through the environment, never on a
command line, masked first.
"""

from __future__ import annotations

import argparse
import base64
import os
import re
import subprocess
import sys
from pathlib import Path

VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")  # fullmatch: `$` would let "1.2.3\n" through
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
IMAGE = re.compile(r"[a-z0-9][a-z0-9._/-]*/[a-z0-9._-]+")  # a repository, no tag or digest
ACTION, PYPROJECT = Path("action.yml"), Path("pyproject.toml")
IMAGE_LINE = re.compile(r"^  image: Dockerfile$", re.MULTILINE)
VERSION_LINE = re.compile(r'^version = "[^"\n]*"$', re.MULTILINE)
REWRITTEN = {ACTION: (IMAGE_LINE, "`  image: Dockerfile`"), PYPROJECT: (VERSION_LINE, '`version = "..."`')}
BOT = {"NAME": "github-actions[bot]", "EMAIL": "41898282+github-actions[bot]@users.noreply.github.com"}


class Refused(Exception):
    """Why the release stops: one line."""


def git(*args: str) -> str:
    identity = {f"GIT_{who}_{what}": value for who in ("AUTHOR", "COMMITTER") for what, value in BOT.items()}
    env = {**os.environ, **identity, **token_config()}
    done = subprocess.run(["git", *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        # One line: the refs a push had refused, else git's last word but its hints.
        lines = (" ".join(line.split()) for line in done.stderr.splitlines() if not line.startswith("hint:"))
        said = [line for line in lines if line]
        rejected = "; ".join(line for line in said if line.startswith("! "))
        raise Refused(f"git {args[0]} failed: {rejected or (said or [f'exit {done.returncode}'])[-1]}")
    return done.stdout


def token_config() -> dict[str, str]:
    """GH_TOKEN as git's http.extraheader, given in the environment (GIT_CONFIG_COUNT)."""
    token = os.environ.get("GH_TOKEN")
    if not token:
        return {}
    n = int(os.environ.get("GIT_CONFIG_COUNT") or 0)
    return {"GIT_CONFIG_COUNT": str(n + 1), f"GIT_CONFIG_KEY_{n}": "http.extraheader",
            f"GIT_CONFIG_VALUE_{n}": f"AUTHORIZATION: basic {basic(token)}"}  # fmt: skip


def mask_token() -> None:
    """The header's base64 form, which the runner doesn't know is the token, masked in the job's log."""
    token = os.environ.get("GH_TOKEN")
    if token and os.environ.get("GITHUB_ACTIONS") == "true":
        print(f"::add-mask::{basic(token)}", flush=True)


def basic(token: str) -> str:
    return base64.b64encode(f"x-access-token:{token}".encode()).decode()


def tags_on_origin() -> set[str]:
    """The tag names origin has (an annotated tag's `^{}` line folded into its name)."""
    lines = git("ls-remote", "--tags", "origin").splitlines()
    return {line.split("\t", 1)[1].removeprefix("refs/tags/").removesuffix("^{}") for line in lines if "\t" in line}


def well_formed(version: str) -> str:
    if not VERSION.fullmatch(version):
        raise Refused(f"version {version!r} must look like 1.2.3 (digits only, no leading v)")
    return version


def the_line(path: Path) -> tuple[re.Pattern[str], str]:
    """The one line of `path` a release rewrites, and the file's text; refused unless there is exactly one."""
    line, what = REWRITTEN[path]
    text = path.read_text()
    if len(line.findall(text)) != 1:
        raise Refused(f"{path}: expected exactly one line {what}, to rewrite for the release")
    return line, text


def rewrite(path: Path, new: str) -> None:
    line, text = the_line(path)
    path.write_text(line.sub(new, text))


def check(version: str) -> set[str]:
    """Refuse what would fail or clash once the image is pushed; origin's tags, for the tag phase."""
    name = f"v{well_formed(version)}"
    here = subprocess.run(["git", "rev-parse", "--quiet", "--verify", f"refs/tags/{name}"], capture_output=True)
    if here.returncode == 0:
        raise Refused(f"tag {name} already exists in this clone; a version is released once")
    tags = tags_on_origin()
    if name in tags:
        raise Refused(f"tag {name} already exists on origin; a version is released once")
    for path in REWRITTEN:
        the_line(path)
    return tags


def stamp(version: str) -> None:
    rewrite(PYPROJECT, f'version = "{well_formed(version)}"')


def later_in_major(version: str, tags: set[str]) -> list[str]:
    """Origin's releases of the same major after `version`: then vMAJOR stays where it is."""
    mine = tuple(int(n) for n in version.split("."))
    theirs = (tuple(int(n) for n in t[1:].split(".")) for t in tags if t.startswith("v") and VERSION.fullmatch(t[1:]))
    return [".".join(map(str, v)) for v in sorted(v for v in theirs if v[0] == mine[0] and v > mine)]


def tag(version: str, image: str, digest: str) -> None:
    if not IMAGE.fullmatch(image):
        raise Refused(f"--image {image!r} must be a lowercase repository such as ghcr.io/owner/autofix")
    if not DIGEST.fullmatch(digest):
        raise Refused(f"--digest {digest!r} must be sha256: and 64 hex digits")
    tags = check(version)
    release, major = f"v{version}", f"v{version.split('.')[0]}"
    pulled = f"{image}@{digest}"
    stamp(version)
    rewrite(ACTION, f"  image: docker://{pulled}")
    git("checkout", "--quiet", "--detach")  # the release commit is on no branch
    git("commit", "--quiet", "-m", f"Release {release}: action.yml pulls {pulled}", "--", str(ACTION), str(PYPROJECT))
    git("tag", "-a", release, "-m", f"autofix {release}")
    refspecs = [f"refs/tags/{release}:refs/tags/{release}"]  # no `+`: a released version is never moved
    later = later_in_major(version, tags)
    if not later:
        git("tag", "--force", "-a", major, "-m", f"autofix {major}: {release}")
        refspecs.append(f"+refs/tags/{major}:refs/tags/{major}")
    git("push", "--atomic", "--quiet", "origin", *refspecs)  # both or neither
    commit = git("rev-parse", "HEAD").strip()
    moved = f"; {major} moved to it" if not later else f"; {major} left on v{later[-1]}, a later release"
    print(f"release: {release} is {commit}, its action.yml pulling {pulled}{moved}")


def main() -> int:
    parser = argparse.ArgumentParser(prog="release.py", description=__doc__.split("\n", 1)[0])
    phases = parser.add_subparsers(dest="phase", required=True)
    for name in ("check", "stamp", "tag"):
        phase = phases.add_parser(name)
        phase.add_argument("version")
        if name == "tag":
            phase.add_argument("--image", required=True)
            phase.add_argument("--digest", required=True)
    args = parser.parse_args()
    mask_token()
    try:
        if args.phase == "tag":
            tag(args.version, args.image, args.digest)
        elif args.phase == "stamp":
            stamp(args.version)
        else:
            check(args.version)
    except (Refused, OSError) as why:
        prefix = "::error::" if os.environ.get("GITHUB_ACTIONS") == "true" else ""
        print(f"{prefix}release: {why}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
