#!/usr/bin/env bash
# Sets up this machine (first run only) and runs weir's whole test suite.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh test
exec .venv/bin/python -m pytest -q "$@"
