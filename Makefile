# weir's tasks for developers (`make help`). README's two commands stay the way in:
# `bash run_example.sh` and `bash run_tests.sh` (what CI runs, through .ci/run).
PY := .venv/bin/python
SOURCES := weir tests bench examples scripts
# The whole suite and the end-to-end tier run on two workers (pytest-xdist), a file at a
# time, as run_tests.sh does; WEIR_TEST_WORKERS=0 runs them in one process.
WORKERS := -n $(or $(WEIR_TEST_WORKERS),2) --dist loadfile

.PHONY: help setup test test-unit test-e2e lint typecheck bench-smoke

help:  ## this list
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

setup:  ## the virtual environment with weir, its test tools and servers (scripts/setup.sh)
	bash scripts/setup.sh test

test: setup lint  ## what CI runs: lint, then every test
	$(PY) -m pytest -q $(WORKERS)

test-unit: setup  ## the quick tier: tests/unit, no Spark, no JVM (under a minute here)
	$(PY) -m pytest -q tests/unit

test-e2e: setup  ## the end-to-end tests: Spark, the servers, the examples
	$(PY) -m pytest -q $(WORKERS) tests/e2e

lint: setup typecheck  ## ruff's rules and format check, the import-linter layer contracts, mypy
	.venv/bin/ruff check $(SOURCES)
	.venv/bin/ruff format --check $(SOURCES)
	.venv/bin/lint-imports

typecheck: setup  ## mypy over weir, the core packages strictly (pyproject.toml's [tool.mypy])
	.venv/bin/mypy

bench-smoke: setup  ## a few queries of each bench on small inputs (minutes, not a measurement)
	$(PY) bench/nexmark.py --events 20000 --queries q0 q4 q9
	$(PY) bench/ysb.py --events 50000 --campaigns 100 --repeat 1 --warmup-events 2000
	$(PY) bench/keyed_state.py --events 50000 --keys 100 --warmup-events 2000
	$(PY) bench/cep.py --events 20000 --keys 200 --repeat 1 --state-events 20000
