#!/usr/bin/env bash
# `npm run check:package`: publint and attw over the tarball `npm pack` makes of the dist/ the
# gate already built. Packed with --ignore-scripts: `attw --pack` would run prepack, a second
# full build of the same files (some 40 s of the gate).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
npx publint
tarball=$(npm pack --ignore-scripts --silent --pack-destination "$out" | tail -1)
npx attw "$out/$tarball" --profile esm-only
