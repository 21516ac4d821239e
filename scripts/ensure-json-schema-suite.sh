#!/usr/bin/env bash
# Makes sure the official JSON Schema Test Suite is unpacked at
# node_modules/.cache/json-schema-test-suite/ for test/node/json-schema-suite.test.ts.
# It comes from Debian's json-schema-test-suite package (drafts 3, 4, 6 and 7), fetched with
# `apt-get download` (no root needed, nothing installed) and unpacked with dpkg-deb; nothing
# from the suite is copied into the repository. Idempotent and silent when already there.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
CACHE=node_modules/.cache/json-schema-test-suite
[[ -d "$CACHE/tests/draft7" ]] && exit 0

for tool in apt-get dpkg-deb; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "ensure-json-schema-suite: $tool is not available; cannot fetch Debian's json-schema-test-suite." >&2
    exit 1
  fi
done

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "ensure-json-schema-suite: downloading Debian's json-schema-test-suite..." >&2
# A stale package list names a version the mirror no longer has: refresh it once and retry.
if ! (cd "$WORK" && apt-get download -qq json-schema-test-suite >/dev/null 2>&1); then
  if [[ $(id -u) -eq 0 ]]; then apt-get update -qq; else sudo -n apt-get update -qq; fi
  (cd "$WORK" && apt-get download -qq json-schema-test-suite >/dev/null)
fi
dpkg-deb -x "$WORK"/json-schema-test-suite_*.deb "$WORK/root"

SHARE="$WORK/root/usr/share/json-schema-test-suite"
if [[ ! -d "$SHARE/tests/draft7" ]]; then
  echo "ensure-json-schema-suite: the package did not contain $SHARE/tests/draft7." >&2
  exit 1
fi
mkdir -p "$(dirname "$CACHE")"
rm -rf "$CACHE"
cp -r "$SHARE" "$CACHE"
