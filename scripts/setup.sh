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

# Spark starts its Python processes (workers, and per query a source runner and a state
# planner on the driver) with pyspark.zip first on PYTHONPATH. Python cannot cache bytecode
# for a zip, so each of them compiled pyspark from source again (~0.6 s of CPU per process,
# ~1.2 s on the critical path of every job start). This venv's pyspark is the same code,
# installed with bytecode: a .pth file drops the zips of this very installation from
# sys.path, so those processes import it from site-packages. It also forgets the zips'
# importers, which Python made before the .pth ran: Spark's workers call
# importlib.invalidate_caches() at every task, which re-reads every cached zip's directory.
site=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
if [ -d "$site/pyspark/python/lib" ]; then
  cat > "$site/weir_pyspark_from_site_packages.py" <<EOF
"""Written by weir's scripts/setup.sh; imported at start-up by the .pth file of that name."""
import os
import sys

LIB = os.path.realpath("$site/pyspark/python/lib")
ZIPS = [path for path in sys.path if os.path.dirname(os.path.realpath(path)) == LIB]
sys.path[:] = [path for path in sys.path if path not in ZIPS]
for path in ZIPS:
    sys.path_importer_cache.pop(path, None)
EOF
  echo "import weir_pyspark_from_site_packages" > "$site/weir_pyspark_from_site_packages.pth"
fi
