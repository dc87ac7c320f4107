# `make demo` and `make test` work on a fresh machine: they build the venv and install what they need.
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check
# The demo needs autofix alone; the tests need every extra (llama-cpp-python compiles for minutes
# the first time, then comes from pip's wheel cache), so they install separately.
CORE := $(VENV)/.core-stamp
DEV := $(VENV)/.dev-stamp

.PHONY: demo test lint bench bench-eval system-deps clean

$(PY):
	python3 -m venv $(VENV)

$(CORE): pyproject.toml | $(PY)
	$(PIP) -e .
	touch $@

$(DEV): pyproject.toml | $(PY)
	$(PIP) -e '.[test,lint,eval,local]'
	touch $@ $(CORE)

# bubblewrap gives the strongest sandbox tier; without it autofix falls back to the process tier.
system-deps:
	@command -v bwrap >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; \
	  else echo "note: install bubblewrap (apt-get install bubblewrap) for the strongest sandbox"; fi; }

demo: $(CORE) system-deps
	rm -rf out/demo && mkdir -p out/demo
	$(VENV)/bin/autofix run examples/unique_items.yml --model replay:examples/unique_items.replay.yml \
	  --workdir out/demo --report out/demo/report.json

test: lint system-deps
	$(PY) -m pytest -q -n 2 -p no:cacheprovider

# The Action's files against GitHub's own schemas, the workflows' expressions, the Dockerfile's rules.
lint: $(DEV)
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.github-actions action.yml
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml examples/workflows/*.yml
	$(VENV)/bin/actionlint .github/workflows/*.yml examples/workflows/*.yml
	$(VENV)/bin/hadolint Dockerfile

bench: $(DEV) system-deps
	$(PY) benchmarks/validate_tiers.py

# `autofix eval`'s own cost: 164 HumanEval tasks x 3 strategies, instant model, --jobs 1 and 2.
bench-eval: $(DEV) system-deps
	$(PY) benchmarks/eval_harness.py

clean:
	rm -rf $(VENV) out *.egg-info
