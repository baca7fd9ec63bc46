#!/usr/bin/env bash
# Benchmark of `lint --base` (issue 5): on a repository of 100,000 documents, `lint --base main`
# (both sides read, linted and compared, ownership changes from the claim engine) must take at
# most 2.5 times a plain `lint .` of the same working tree.
#
#   scripts/bench-git.sh [DOCS] [RUNS]     # defaults: 100000 documents, 3 runs of each
#
# Builds the release binary, generates the repository in a temporary directory (1,000 files:
# per file one namespace with 95 templates and 5 PropagationPolicies, by name and by label),
# commits it on `main`, changes 10 files on a branch (priorities raised, a preemptor added, a
# template relabelled) and times both commands (median of RUNS, wall clock; CPU time shown too:
# --base reads and lints its two sides on two threads, so on a busy machine the wall-clock ratio
# tends to the CPU ratio). Exits 1 if the wall-clock ratio is above 2.5. Needs git, python3, bc
# and /usr/bin/time.
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

# BENCH_KEEP=DIR keeps the generated repository in DIR (for profiling).
if [[ -n "${BENCH_KEEP:-}" ]]; then
    WORK=$BENCH_KEEP
    rm -rf "$WORK/repo"
else
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
fi
REPO="$WORK/repo"
"$ROOT/scripts/bench-repo.sh" "$REPO" "$DOCS"
cd "$REPO"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Median wall-clock seconds of RUNS runs; CPU seconds (user + sys) of the median run go to $1.cpu.
timeit() {
    local out=$1; shift
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f '%e %U %S' -o "$WORK/t" "$@" >/dev/null 2>&1 || true
        awk '{printf "%s %.2f\n", $1, $2 + $3}' "$WORK/t"
    done | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}' > "$WORK/$out"
    cut -d' ' -f1 "$WORK/$out"
}

DOC_COUNT=$("$BIN" lint -o json --fail-on none . | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["documents"])')
PLAIN=$(timeit plain "$BIN" lint --fail-on none .)
BASE=$(timeit base "$BIN" lint --fail-on none --base main)
RATIO=$(echo "$BASE / $PLAIN" | bc -l)
PLAIN_CPU=$(cut -d' ' -f2 "$WORK/plain")
BASE_CPU=$(cut -d' ' -f2 "$WORK/base")
CHANGES=$("$BIN" lint -o json --fail-on none --base main | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["ownershipChanges"]))')
printf 'documents:            %s\n' "$DOC_COUNT"
printf 'lint . (plain):       %.2f s wall, %.2f s CPU (median of %s)\n' "$PLAIN" "$PLAIN_CPU" "$RUNS"
printf 'lint --base main:     %.2f s wall, %.2f s CPU (median of %s)\n' "$BASE" "$BASE_CPU" "$RUNS"
printf 'load average:         %s\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
printf 'ownership changes:    %s\n' "$CHANGES"
printf 'ratio:                %.2f (limit 2.5)\n' "$RATIO"
if (( $(echo "$RATIO > 2.5" | bc -l) )); then
    echo "FAIL: --base is more than 2.5 times a plain lint" >&2
    exit 1
fi
