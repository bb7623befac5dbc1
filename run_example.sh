#!/usr/bin/env bash
# Sets up this machine (first run only) and runs weir's main example job on embedded Spark.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
exec .venv/bin/python examples/temperature_jump_alert.py "$@"
