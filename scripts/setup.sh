#!/usr/bin/env bash
# Sets up a fresh machine for weir: Java for Spark, a virtual environment with weir and its
# test tools. Idempotent: re-running it is quick once everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v java >/dev/null 2>&1; then
  echo "setup: installing Java 17 (Spark needs a JVM)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
stamp=.venv/.weir-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing weir and its dependencies into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[test]"
  # Bytecode, once: with PYTHONDONTWRITEBYTECODE set (as on our CI machines) nothing else
  # writes it, and every Python process Spark starts would compile pandas, pyarrow, ...
  # from source again (seconds per process). Files that do not compile are left alone.
  .venv/bin/python -m compileall -q -j 0 .venv/lib >/dev/null 2>&1 || true
  echo "$want" > "$stamp"
fi
