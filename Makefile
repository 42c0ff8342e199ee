# Two commands on a fresh machine with only python3, pip and make:
#   make demo   - the HMG guide scenario, offline
#   make test   - the gates (make lint), then the whole test suite
# Both create .venv, install uv into it and sync the workspace first.

PYTHON ?= python3
VENV := .venv
UV := $(VENV)/bin/uv
PY := $(VENV)/bin/python
UV_VERSION := 0.13.8
STAMP := $(VENV)/.synced

.PHONY: demo test bench lint sync clean

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet "uv==$(UV_VERSION)"

$(STAMP): $(UV) pyproject.toml uv.lock $(wildcard core/pyproject.toml adapters/*/pyproject.toml integrations/*/pyproject.toml)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --all-packages --all-extras --frozen --quiet
	touch $(STAMP)

sync: $(STAMP)

demo: $(STAMP)
	$(PY) examples/hmg_guide_demo.py

# The gates run first: a tree that is not lint-, format- and type-clean does not test green.
test: lint
	$(PY) -m pytest -q

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

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .memhub_data .pytest_cache
