#!/usr/bin/env bash
# Sets up this machine (first run only) and runs weir's whole test suite.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh test
# Two workers (pytest-xdist), each with its own Spark session and servers, a file at a time;
# WEIR_TEST_WORKERS=0 runs everything in this one process.
exec .venv/bin/python -m pytest -q -n "${WEIR_TEST_WORKERS:-2}" --dist loadfile "$@"
