#!/usr/bin/env bash
# Runs what depends on the Node version under every Node pinned in scripts/node-versions.sh,
# one version after another (the machine has 2 cores; the suites would only slow each other):
#   - the vitest `node` project with RULVAR_TEST_DIST=1: test/node, i.e. stdio servers and
#     their process groups, crash loops, the file journal, the built dist/, every example
#     under examples/ and the rulvar-mcp CLI;
#   - the demo, as `npm run demo` runs it after its build.
# `npm test` runs this last, after it has built dist/ and run everything on the machine's Node.
# Every version is run and reported even when an earlier one fails; the exit code is 1 if any
# did. A version whose binary cannot be had fails (scripts/ensure-node.sh says what to do).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-versions.sh

bash scripts/ensure-node.sh
if [[ ! -f dist/node/index.js ]]; then
  echo "node-matrix: dist/ is not built; run \`npm run build\` first (npm test does)." >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summaries=()
status=0

for version in "${RULVAR_NODE_VERSIONS[@]}"; do
  node_bin=$(rulvar_node_bin "$version")
  # A PATH entry holding this Node alone as `node`: servers started as plain `node`, npm bins
  # starting `#!/usr/bin/env node` (the real MCP servers, tsx) and anything else a test spawns
  # from PATH must run this version too, not the machine's. (What the tests start with
  # process.execPath is this version already; vitest forks its workers from it.)
  bin_dir="$work/$version/bin"
  mkdir -p "$bin_dir"
  ln -s "$node_bin" "$bin_dir/node"
  run_path="$bin_dir:$PATH"

  echo
  echo "======== Node $version ($node_bin) ========"
  echo "-------- Node $version: vitest node project (test/node, dist/, examples, CLI) --------"
  start=$SECONDS
  # The exit status is the summary's to decide (it also catches a file that skipped itself).
  PATH="$run_path" RULVAR_TEST_DIST=1 RULVAR_NODE_EXPECTED="v$version" \
    "$node_bin" node_modules/vitest/vitest.mjs run --project node \
    --reporter=default --reporter=json --outputFile.json="$work/$version/report.json" || true
  if summary=$("$node_bin" scripts/node-matrix-summary.mjs "$work/$version/report.json" "$version" $((SECONDS - start))); then :; else status=1; fi
  echo "$summary"
  summaries+=("$summary")

  echo "-------- Node $version: the demo (node --import tsx examples/demo.ts, as npm run demo runs it) --------"
  # dist/ is the one npm test built and tested; npm run demo would rebuild the same files first.
  start=$SECONDS
  if PATH="$run_path" "$node_bin" --import tsx examples/demo.ts; then
    summary="node-matrix: Node $version: demo PASSED in $((SECONDS - start)) s"
  else
    summary="node-matrix: Node $version: demo FAILED (exit $?) after $((SECONDS - start)) s"
    status=1
  fi
  echo "$summary"
  summaries+=("$summary")
done

echo
echo "======== Node version matrix (beside the machine's $(node --version), on which npm test runs everything) ========"
printf '%s\n' "${summaries[@]}"
exit "$status"
