#!/usr/bin/env bash
# The servers weir's connector tests start on loopback (each test session starts its own,
# in a private directory): Redis and PostgreSQL, from Debian's packages; and Chromium for
# the dashboard's tests. Kafka's broker
# (Tansu) comes from a PyPI wheel, installed with the test extra. Idempotent.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || missing+=(postgresql)
# the browser the dashboard's tests drive (headless, through Playwright's Python package;
# never `playwright install`, which downloads its own)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} (for the tests)" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  # policy-rc.d: the packages would start system-wide services; the tests start their own.
  DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi
