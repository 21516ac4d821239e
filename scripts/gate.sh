#!/usr/bin/env bash
# `npm test`: the whole gate, phase by phase, ending with how long each took.
#
# Setup and the build stop the gate when they fail (nothing after them means anything
# without them). Every later phase runs even when an earlier one failed, so one red run shows
# every failure at once rather than the first; the exit code is 1 if any phase failed.
# dist/ is built once, here: `npm ci` runs no build (the manifest has `prepack`, not
# `prepare`), and every phase after the build tests that same dist/.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

summary=()
status=0
gate_start=$SECONDS

phase() {
  local name=$1 start=$SECONDS result
  shift
  echo
  echo "======== gate: $name ========"
  if "$@"; then result=ok; else result="FAILED (exit $?)"; status=1; fi
  summary+=("$(printf '  %-26s %5d s  %s' "$name" $((SECONDS - start)) "$result")")
  [[ $result == ok ]]
}

report() {
  echo
  echo "======== gate: timing ========"
  printf '%s\n' "${summary[@]}"
  printf '  %-26s %5d s  %s\n' "total" $((SECONDS - gate_start)) "$([[ $status -eq 0 ]] && echo ok || echo FAILED)"
}

setup() {
  bash scripts/ensure-chromium.sh &&
    bash scripts/ensure-postgres.sh >/dev/null &&
    bash scripts/ensure-json-schema-suite.sh &&
    bash scripts/ensure-node.sh
}

if ! phase "setup (chromium, postgres, node)" setup || ! phase build npx tsup --silent; then
  report
  exit 1
fi
# The Node 22/24 matrix runs beside the rest, its output kept to be printed after it: most
# of what both run waits on child processes, sockets and timers, and one lane alone left the
# second core idle for most of the gate.
matrix_log=$(mktemp)
matrix_time=$(mktemp)
trap 'rm -f "$matrix_log" "$matrix_time"' EXIT
# Timed inside the background job: waited for only after vitest, it would count that wait too.
(
  start=$SECONDS
  # Niced: the main lane's two vitest workers hold the time-bound cases, and this lane (with
  # no bound closer than a few seconds) fills the gaps they leave.
  nice -n 10 bash scripts/node-matrix.sh >"$matrix_log" 2>&1
  code=$?
  echo $((SECONDS - start)) >"$matrix_time"
  exit "$code"
) &
matrix_pid=$!

# The three static checks are single-threaded and independent: run side by side, each into its
# own log, then printed in turn with the time it took in its own job (the rows overlap).
checks_dir=$(mktemp -d)
start_check() {
  local slug=$1
  shift
  (
    start=$SECONDS
    "$@" >"$checks_dir/$slug.log" 2>&1
    code=$?
    echo $((SECONDS - start)) >"$checks_dir/$slug.time"
    exit "$code"
  ) &
  echo $! >"$checks_dir/$slug.pid"
}
finish_check() {
  local name=$1 slug=$2 result
  echo
  echo "======== gate: $name ========"
  if wait "$(cat "$checks_dir/$slug.pid")"; then result=ok; else result="FAILED (exit $?)"; status=1; fi
  cat "$checks_dir/$slug.log"
  summary+=("$(printf '  %-26s %5d s  %s' "$name" "$(cat "$checks_dir/$slug.time" 2>/dev/null || echo 0)" "$result")")
}
start_check typecheck npx tsc -p tsconfig.json --noEmit
start_check lint npx eslint .
start_check package npm run --silent check:package
finish_check "typecheck (side by side)" typecheck
finish_check "lint (side by side)" lint
finish_check "package (side by side)" package
rm -rf "$checks_dir"
vitest_report=$(mktemp)
trap 'rm -f "$matrix_log" "$matrix_time" "$vitest_report"' EXIT
phase "vitest (node, workerd, chromium)" env RULVAR_TEST_DIST=1 npx vitest run \
  --reporter=default --reporter=json --outputFile.json="$vitest_report"
vitest_recap=$(node scripts/vitest-report.mjs "$vitest_report" 12)

echo
echo "======== gate: node 22 and 24 (ran beside the phases above) ========"
if wait "$matrix_pid"; then matrix=ok; else matrix="FAILED (exit $?)"; status=1; fi
cat "$matrix_log"
echo
echo "======== gate: vitest recap (the main lane's failures and slowest files) ========"
echo "$vitest_recap"
summary+=("$(printf '  %-26s %5d s  %s' "node 22 and 24 (beside)" "$(cat "$matrix_time" 2>/dev/null || echo 0)" "$matrix")")
report
exit "$status"
