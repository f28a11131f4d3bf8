#!/usr/bin/env bash
# The full randomized bad-input run (make test runs a sample of it): many seeds of random
# careless calls from R (tests/r_bad_input.R), then every call of the Python battery
# (scripts/fuzz_bad_input.py). Each batch runs in its own process with its address space capped; a crash or a hang
# prints the call that caused it. Findings (Python internals in a message, changed state) are
# printed as FINDING lines.
#
#   scripts/bad-input-full.sh [SEEDS] [CALLS_PER_SEED]     (default 20 seeds x 3000 calls)
set -uo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-20}
calls=${2:-3000}
export R_LIBS="$PWD/.rlib" RETICULATE_PYTHON="$PWD/.venv/bin/python"
status=0
for seed in $(seq 1 "$seeds"); do
  log=$(mktemp)
  out=$( (ulimit -v 6291456; env -u LD_LIBRARY_PATH timeout 1200 Rscript --vanilla \
          tests/r_bad_input.R "$((1000 + seed))" "$calls" "$log") 2>&1 )
  rc=$?
  echo "$out" | grep -E '^(FINDING|BAD-INPUT)'
  if [ $rc -ne 0 ]; then
    echo "R seed $((1000 + seed)): exit $rc at the call: $(tail -n 1 "$log")"
    status=1
  fi
  rm -f "$log"
done
.venv/bin/python scripts/fuzz_bad_input.py || status=1
exit $status
