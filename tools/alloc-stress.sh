#!/usr/bin/env bash
# Run the allocation tests again and again on a loaded machine (issue 26): each round is one jest run
# (its usual workers) of every test that measures allocation with test/helpers/allocProbe, while
# `stress-ng --cpu WORKERS` keeps every core busy. Prints one line per round and a closing tally.
#
#   tools/alloc-stress.sh [ROUNDS=20] [WORKERS=4] [all]
#
# With `all` a round is the whole `npm test` instead. Needs stress-ng (Debian: apt-get install stress-ng)
# and TsProject's node_modules. Exit status 1 when any round failed; the failing rounds' output is kept
# in $TMPDIR/alloc-stress-round-N.log.
set -uo pipefail
ROUNDS=${1:-20}
WORKERS=${2:-4}
MODE=${3:-alloc}
cd "$(dirname "$0")/../TsProject"
command -v stress-ng >/dev/null || { echo "alloc-stress: stress-ng is not installed (apt-get install stress-ng)" >&2; exit 2; }
FILES=$(grep -l "runAllocProbe\|bytesPerCall" test/*.test.ts | tr '\n' ' ')
PATTERN='allocat|allocation probe|apply, measure and update'
stress-ng --cpu "$WORKERS" --timeout 0 --quiet &
STRESS=$!
trap 'kill "$STRESS" 2>/dev/null; wait "$STRESS" 2>/dev/null' EXIT INT TERM
sleep 1
LOG_DIR=${TMPDIR:-/tmp}
pass=0
fail=0
for r in $(seq 1 "$ROUNDS"); do
  log="$LOG_DIR/alloc-stress-round-$r.log"
  start=$(date +%s)
  if [ "$MODE" = all ]; then
    npm test >"$log" 2>&1
  else
    node --expose-gc node_modules/jest/bin/jest.js $FILES -t "$PATTERN" >"$log" 2>&1
  fi
  rc=$?
  tests=$(grep -E '^Tests:' "$log" | tail -1)
  if [ $rc -eq 0 ]; then pass=$((pass + 1)); rm -f "$log"; else fail=$((fail + 1)); fi
  echo "round $r/$ROUNDS: exit $rc in $(( $(date +%s) - start )) s; $tests"
  [ $rc -ne 0 ] && grep -E '●.*›|Expected|Received' "$log" | head -12
done
echo "alloc-stress: $pass passed, $fail failed ($ROUNDS rounds, stress-ng --cpu $WORKERS, $MODE)"
[ $fail -eq 0 ]
