#!/usr/bin/env bash
# Sets up a fresh machine for weir: Java for Spark, a virtual environment with weir (and,
# with the argument `test`, its test tools, client libraries and the servers the connector
# tests start). Idempotent: re-running it is quick once everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v java >/dev/null 2>&1; then
  echo "setup: installing Java 17 (Spark needs a JVM)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
extras=${1:-}
if [ "$extras" = test ]; then
  bash scripts/setup_test_servers.sh
fi
stamp=.venv/.weir-installed
# The installed extras are part of the stamp: the example's setup installs fewer.
hash=$(sha256sum pyproject.toml | cut -d' ' -f1)
want="$hash ${extras:-base}"
# A venv set up for the tests has everything the example needs too.
[ -z "$extras" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash test" ] && want="$hash test"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing weir and its dependencies into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".${extras:+[$extras]}"
  # Bytecode, once: with PYTHONDONTWRITEBYTECODE set (as on our CI machines) nothing else
  # writes it, and every Python process Spark starts would compile pandas, pyarrow, ...
  # from source again (seconds per process). Files that do not compile are left alone.
  .venv/bin/python -m compileall -q -j 0 .venv/lib >/dev/null 2>&1 || true
  echo "$want" > "$stamp"
fi
# weir itself is installed editable (its source is this checkout), so the same holds for its
# own modules: every driver-side runner and new worker of every job compiled them again
# (~130 ms of CPU per process for the modules a query's planner imports). compileall only
# rewrites what changed since the last run.
.venv/bin/python -m compileall -q weir examples >/dev/null 2>&1 || true

# Spark's Python processes import this venv's pyspark with its bytecode, not pyspark.zip
# (weir.spark.spark_home, in the package itself): the .pth file earlier set-ups wrote for
# that is not needed any more.
site=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
rm -f "$site/weir_pyspark_from_site_packages.pth" "$site/weir_pyspark_from_site_packages.py"
# The archive of Spark's classes every embedded JVM starts from (weir.spark.class_archive):
# recorded once per machine (~25 s), so that the first job is as quick as the next.
.venv/bin/python -m weir warm-up --quiet
