#!/usr/bin/env bash
# Runs the MCP conformance suite's client scenarios (the list in test/conformance/scenarios.json)
# against the library's conformance client (test/conformance/client.ts) on Node 24, the suite's
# own runtime (it needs Node 22+; scripts/ensure-node.sh fetches the pinned binaries). Each
# scenario runs at the wire of the revision its entry names. Writes one line per scenario and
# its checks under the output directory ($1, default: a temp dir) and exits 1 if any scenario
# has a failed check. `vitest run test/node/conformance.test.ts` runs it and reports each
# scenario as a test; `npm test` reaches it through that file.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-versions.sh
bash scripts/ensure-node.sh 24.22.3 >/dev/null
node24=$(rulvar_node_bin 24.22.3)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
suite=node_modules/@modelcontextprotocol/conformance/dist/index.js
tsx=$(node -p "require('url').pathToFileURL(require.resolve('tsx')).href")
client="$node24 --import $tsx test/conformance/client.ts"

status=0
while IFS=$'\t' read -r scenario version; do
  dir="$out/${scenario//\//_}@$version"
  # An optional extension has no revision of its own: the suite picks its wire.
  at=(--spec-version "$version")
  [[ "$version" == extension ]] && at=()
  if "$node24" "$suite" client --command "$client" --scenario "$scenario" "${at[@]}" --output-dir "$dir" >"$dir.log" 2>&1; then
    echo "conformance: PASS $scenario at $version"
  else
    echo "conformance: FAIL $scenario at $version (see $dir.log)"
    status=1
  fi
done < <("$node24" -e 'for (const [s, v] of require("./test/conformance/scenarios.json")) console.log(`${s}\t${v}`)')
exit "$status"
