#!/usr/bin/env bash
# Runs what depends on the Node version under every Node pinned in scripts/node-versions.sh,
# one version after another (the machine has 2 cores; the suites would only slow each other):
#   - the files of the vitest `node` project named in VERSION_DEPENDENT below, with
#     RULVAR_TEST_DIST=1: stdio servers and their process groups, signals and crash loops,
#     the file journal and engines across processes (fs, child_process, process groups), the
#     built dist/, every example under examples/, the rulvar-mcp CLI, and a short smoke of
#     the rest (the model adapters over loopback, the AI SDK mocks). The runtime-neutral core suite does
#     not depend on the Node version beyond what these cover, and runs once, on the machine's
#     Node, in Chromium and in workerd;
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

# Paths under test/node/ (vitest filters by substring): what calls into Node's own child
# processes, signals, streams and file system (stdio, the file journal, engines across
# processes, the crash loop, on fewer seeds), the built dist/ and every example, the CLI, the
# Node check itself, and a smoke of the rest (the model adapters, the AI SDK mocks).
VERSION_DEPENDENT=(
  node-versions stdio.test file-journal engine-processes crash-loop dist.test examples.test
  cli.test adapters.test adapters-examples ai-sdk-mock
)
files=()
for name in "${VERSION_DEPENDENT[@]}"; do files+=("test/node/$name"); done
export RULVAR_CRASH_LOOP_ITERATIONS=16

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
  echo "-------- Node $version: the version-dependent files of the vitest node project --------"
  start=$SECONDS
  # The exit status is the summary's to decide (it also catches a file that skipped itself).
  # A 60 s harness budget per case: this lane runs niced beside the main one, and a CLI case
  # spawning a few processes once took past the main lane's 20 s there.
  PATH="$run_path" RULVAR_TEST_DIST=1 RULVAR_NODE_EXPECTED="v$version" \
    "$node_bin" node_modules/vitest/vitest.mjs run --project node "${files[@]}" --testTimeout=60000 \
    --reporter=default --reporter=json --outputFile.json="$work/$version/report.json" || true
  if summary=$("$node_bin" scripts/node-matrix-summary.mjs "$work/$version/report.json" "$version" $((SECONDS - start))); then :; else
    status=1
    summary+=$'\n'"$("$node_bin" scripts/vitest-report.mjs "$work/$version/report.json" 0)"
  fi
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
