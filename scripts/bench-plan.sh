#!/usr/bin/env bash
# Benchmark of `plan --base`: on the repository of scripts/bench-repo.sh (100,000 documents, 10
# files changed on a branch), `plan --base main` (both sides read and admitted, the claims
# settled, each touched template's deliveries computed on both sides) must take at most 2 times a
# plain `lint .` of the same working tree.
#
#   scripts/bench-plan.sh [DOCS] [RUNS]     # defaults: 100000 documents, 3 runs of each
#
# Times both commands (median of RUNS, wall clock; CPU time shown too: plan reads its two sides
# on two threads, so on a busy machine the wall-clock ratio tends to the CPU ratio). Exits 1 if
# the wall-clock ratio is above 2. Needs git, python3, bc and /usr/bin/time.
set -euo pipefail

DOCS=${1:-100000}
RUNS=${2:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# BENCH_BIN=PATH times an already built binary instead of building the release one.
if [[ -n "${BENCH_BIN:-}" ]]; then
    BIN=$BENCH_BIN
else
    cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
    BIN="$ROOT/target/release/kubectl-karmada_policy"
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
REPO="$WORK/repo"
"$ROOT/scripts/bench-repo.sh" "$REPO" "$DOCS"
cd "$REPO"

# Median wall-clock seconds of RUNS runs; "WALL CPU" of the median run go to $WORK/$1.
timeit() {
    local out=$1; shift
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f '%e %U %S' -o "$WORK/t" "$@" >/dev/null 2>&1 || true
        tail -n 1 "$WORK/t" | awk '{printf "%s %.2f\n", $1, $2 + $3}'
    done | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}' > "$WORK/$out"
    cut -d' ' -f1 "$WORK/$out"
}

# plan exits 1 when there are changes: check it ran (not 2 or more) before timing.
code=0
"$BIN" plan --base main -o json > "$WORK/plan.json" || code=$?
if (( code > 1 )); then
    echo "FAIL: plan --base main exited $code" >&2
    exit 2
fi
SUMMARY=$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(v["summary"]["templates"], v["summary"]["hazards"])' "$WORK/plan.json")
PLAIN=$(timeit plain "$BIN" lint --fail-on none .)
PLAN=$(timeit plan "$BIN" plan --base main)
RATIO=$(echo "$PLAN / $PLAIN" | bc -l)
printf 'documents:            %s\n' "$DOCS"
printf 'lint . (plain):       %.2f s wall, %.2f s CPU (median of %s)\n' "$PLAIN" "$(cut -d' ' -f2 "$WORK/plain")" "$RUNS"
printf 'plan --base main:     %.2f s wall, %.2f s CPU (median of %s)\n' "$PLAN" "$(cut -d' ' -f2 "$WORK/plan")" "$RUNS"
printf 'templates, hazards:   %s\n' "$SUMMARY"
printf 'load average:         %s\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
printf 'ratio:                %.2f (limit 2)\n' "$RATIO"
if (( $(echo "$RATIO > 2" | bc -l) )); then
    echo "FAIL: plan --base is more than 2 times a plain lint" >&2
    exit 1
fi
