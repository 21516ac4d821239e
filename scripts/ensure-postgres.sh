#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries (initdb, pg_ctl, postgres) are on this machine for the
# Postgres tests and bench, and prints the directory that holds them as its last line.
# test/node/postgres-server.ts runs it before starting a throwaway server; nothing runs it
# when RULVAR_TEST_POSTGRES_URL points the suite at a server of your own.
#
# Found, in order: RULVAR_POSTGRES_BIN, Debian's /usr/lib/postgresql/<newest>/bin, `pg_config
# --bindir`, initdb on PATH. When none is there, Debian's `postgresql` package is installed
# (as with Chromium), waiting up to 120 s for another apt or dpkg to let go of its lock.
# PostgreSQL refuses to run as root, so as root this also makes sure the unprivileged
# `postgres` user exists (the package makes it; a machine with binaries from elsewhere may not).
set -euo pipefail

find_bin() {
  if [[ -n "${RULVAR_POSTGRES_BIN:-}" && -x "${RULVAR_POSTGRES_BIN}/initdb" ]]; then
    echo "$RULVAR_POSTGRES_BIN"
    return 0
  fi
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [[ -n "$dir" && -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
    echo "$dir"
    return 0
  fi
  if command -v pg_config >/dev/null 2>&1; then
    dir=$(pg_config --bindir)
    if [[ -x "$dir/initdb" ]]; then
      echo "$dir"
      return 0
    fi
  fi
  if command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return 0
  fi
  return 1
}

ensure_user() {
  [[ $(id -u) -eq 0 ]] || return 0
  id -u postgres >/dev/null 2>&1 && return 0
  echo "ensure-postgres: creating the unprivileged postgres user to run the test server" >&2
  useradd --system --user-group --no-create-home --shell /usr/sbin/nologin postgres
}

if bin=$(find_bin); then
  ensure_user
  echo "$bin"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgres: no PostgreSQL server binaries (initdb) and apt-get is not available." >&2
  echo "Install PostgreSQL, set RULVAR_POSTGRES_BIN to its bin directory, or point" >&2
  echo "RULVAR_TEST_POSTGRES_URL at a server the tests may create tables in." >&2
  exit 1
fi

source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
if ! root_prefix; then
  echo "ensure-postgres: PostgreSQL is missing and installing it needs root." >&2
  echo "Run: sudo apt-get install -y postgresql   (or set RULVAR_TEST_POSTGRES_URL)" >&2
  exit 1
fi

echo "ensure-postgres: installing Debian's postgresql package..." >&2
apt_install "${SUDO[@]}" -- postgresql

if ! bin=$(find_bin); then
  echo "ensure-postgres: apt-get finished but initdb is still missing." >&2
  exit 1
fi
ensure_user
echo "$bin"
