# The image of the autofix GitHub Action. GitHub's rules for container actions: no USER (the
# runner's workspace must stay writable as root) and no WORKDIR (the runner sets it to
# /github/workspace); the entry point is absolute and in exec form.
# The current 3.11 patch release on Debian 12; Dependabot (.github/dependabot.yml) proposes each
# new one. (Not yet pinned by digest: no registry was reachable where this was written.)
FROM python:3.11-slim-bookworm

# bubblewrap: the strongest sandbox tier, where the runner allows user namespaces.
# git: to commit and push the fix.
# Not pinned to a Debian revision: the archive serves only the current one, and a pin would
# fail every build (the Action builds this file on each run) the day a security update lands.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap git \
 && rm -rf /var/lib/apt/lists/*

# A name for the first uid of the sandbox's pool (bot/sandbox/tiers.py: SANDBOX_UID, SANDBOX_NAME;
# concurrent runs take the next free uid down to 65502, which need no account). autofix itself
# stays root so it can drop every test run to one of them.
RUN groupadd --system --gid 65533 autofix-sandbox \
 && useradd --system --uid 65533 --gid 65533 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin autofix-sandbox

# The versions the test suite ran against, pinned, and the build backend too: autofix itself then
# installs without resolving or downloading anything unpinned.
RUN pip install --no-cache-dir \
      openai==3.57.0 PyGithub==2.10.0 PyYAML==6.0.4 pydantic==2.14.4 setuptools==80.9.0

COPY pyproject.toml README.md /opt/autofix/
COPY bot /opt/autofix/bot
RUN pip install --no-cache-dir --no-deps --no-build-isolation /opt/autofix

ENTRYPOINT ["/usr/local/bin/autofix"]
