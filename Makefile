# Two commands on a fresh machine with only python3, pip and make:
#   make demo   - the HMG guide scenario, offline
#   make test   - the gates (make lint), the docs site (make docs), then the whole test suite,
#                 then the TypeScript client's (make test-ts: needs node >= 18 and npm;
#                 .ci/run installs them)
# Both create .venv, install uv into it and sync the workspace first.

PYTHON ?= python3
VENV := .venv
UV := $(VENV)/bin/uv
PY := $(VENV)/bin/python
UV_VERSION := 0.13.8
STAMP := $(VENV)/.synced

.PHONY: demo test test-ts bench lint sync clean docs

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet "uv==$(UV_VERSION)"

$(STAMP): $(UV) pyproject.toml uv.lock $(wildcard core/pyproject.toml adapters/*/pyproject.toml integrations/*/pyproject.toml)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --all-packages --all-extras --frozen --quiet
	touch $(STAMP)

sync: $(STAMP)

demo: $(STAMP)
	$(PY) examples/hmg_guide_demo.py

# The gates run first: a tree that is not lint-, format- and type-clean, or that breaks an
# import contract (.importlinter), does not test green.
# Two pytest workers (pytest-xdist), one per core: the suite took 12.3 min in one process,
# 9 min in two.
test: lint
	$(MAKE) docs
	$(PY) -m pytest -q -n 2
	$(MAKE) test-ts

TS := integrations/typescript

# The TypeScript client: its types against the REST service's schema (the drift check
# says the command that regenerates them), a type check of the client and of every
# example, an `npm pack`, then `node --test` (the guide's examples against a real
# `memhub serve-api` on a free port).
test-ts: $(STAMP)
	@command -v npm >/dev/null || ! command -v apt-get >/dev/null || [ "$$(id -u)" != 0 ] \
		|| (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm) >/dev/null
	@command -v npm >/dev/null || { echo "make test-ts needs node (>= 18) and npm" >&2; exit 1; }
	cd $(TS) && npm ci --no-audit --no-fund --loglevel=error
	cd $(TS) && MEMHUB_PYTHON=$(abspath $(PY)) npm run --silent check:schema
	cd $(TS) && npm run --silent build
	cd $(TS)/examples && npm ci --no-audit --no-fund --loglevel=error
	cd $(TS) && npm run --silent typecheck
	cd $(TS)/examples && npm run --silent build
	tmp=$$(mktemp -d) && (cd $(TS) && npm pack --silent --pack-destination "$$tmp" >/dev/null) \
		&& ls "$$tmp"/memhub-client-*.tgz && rm -rf "$$tmp"
	cd $(TS) && MEMHUB_BIN=$(abspath $(VENV)/bin/memhub) npm test

MADIAL ?= ../shared/bench-data/madial
LOCOMO ?= ../shared/bench-data/locomo-dev/locomo_dev5.json

# Every figure the issues ask for, each printed beside its baseline or target.
bench: $(STAMP)
	$(PY) bench/engine_bench.py
	@if [ -n "$(SCALE)" ]; then $(PY) bench/engine_bench.py --scale; \
	else echo "bench/engine_bench.py --scale (1,000,000 memories) skipped: make bench SCALE=1"; fi
	$(PY) bench/add_bench.py
	$(PY) bench/update_bench.py
	$(PY) bench/consistency_bench.py
	$(PY) bench/kinds_bench.py
	$(PY) bench/time_bench.py
	$(PY) bench/madial_bench.py $(MADIAL)
	@if [ -f $(LOCOMO) ]; then $(PY) bench/locomo_bench.py $(LOCOMO); \
	else echo "bench/locomo_bench.py skipped: no $(LOCOMO)"; fi
	$(PY) bench/procedure_bench.py
	$(PY) bench/langgraph_bench.py
	$(PY) bench/server_load.py --quick
	$(PY) bench/adversarial_bench.py
	$(PY) bench/inspector_bench.py
	$(PY) bench/transfer_bench.py
	$(PY) bench/server_load.py --quick --slow-judge 5
	@if command -v node >/dev/null && [ -d $(TS)/dist ]; then node bench/ts_client_overhead.mjs; \
	else echo "bench/ts_client_overhead.mjs skipped: run make test-ts first (needs node)"; fi

# The documentation site, built strictly into site/ (a broken link or reference fails); its
# reference pages are generated from the code (docs/gen_pages.py). The pages' code blocks are
# run by tests/docs/test_doc_snippets.py, part of the suite.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache  # the import contracts in .importlinter

clean:
	rm -rf $(VENV) .memhub_data .pytest_cache
