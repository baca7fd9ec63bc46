#!/usr/bin/env bash
# The physical reference (issue 33): on the generated 100,000-document repository (10,000
# policies, 90,000 templates, 200 files), a full `lint -o json` against parsing the same files
# with Python and libyaml (PyYAML's CSafeLoader, `yaml.load_all` over every file), and against
# the tool's own loader alone (`lint --parse-only`). The three run one after the other, RUNS
# times in turn (so a change in the machine's load touches all three alike); the ratios are
# of the medians, of wall time and, for lint against parse-only, of CPU time (user + system).
# Then the phases of `lint -o json` (KARMADA_POLICY_TIMINGS, median of RUNS).
#
#   scripts/bench-reference.sh             # 100,000 documents, 3 rounds
#   RUNS=5 DOCS=20000 scripts/bench-reference.sh
#   BIN=path/to/kubectl-karmada_policy NO_BUILD=1 scripts/bench-reference.sh   # another build
#   INSTR=1 scripts/bench-reference.sh     # also instruction counts (valgrind callgrind),
#                                          # which the machine's load does not change
#
# Needs: cargo, python3 with PyYAML built on libyaml (`python3 -c 'import yaml;
# print(yaml.__with_libyaml__)'` prints True), GNU time; valgrind for INSTR=1.
set -euo pipefail
cd "$(dirname "$0")/.."

DOCS=${DOCS:-100000}
RUNS=${RUNS:-3}
BIN=${BIN:-target/release/kubectl-karmada_policy}
GEN=target/release/examples/gen_repo
OUT=target/bench
PY=${PY:-python3}
"$PY" -c 'import yaml, sys; sys.exit(0 if yaml.__with_libyaml__ else 1)' 2>/dev/null \
  || { echo "SKIPPED: $PY has no PyYAML built on libyaml (pip install pyyaml)"; exit 0; }
if [ -z "${NO_BUILD:-}" ]; then
  echo "== building (release)"
  cargo build --release --quiet --bin kubectl-karmada_policy --example gen_repo
fi
mkdir -p "$OUT"
repo=$OUT/repo-$DOCS
[ -d "$repo" ] || "$GEN" --documents "$DOCS" --seed 1 --out "$repo" >/dev/null

libyaml=$OUT/libyaml-parse.py
cat >"$libyaml" <<'PY'
import glob, sys, yaml
n = 0
for path in sorted(glob.glob(sys.argv[1] + "/**/*.yaml", recursive=True)):
    with open(path, "rb") as f:
        for _ in yaml.load_all(f, Loader=yaml.CSafeLoader):
            n += 1
print(n)
PY

# wall CMD...: wall seconds of one run; its CPU seconds (user + system, GNU time) go to the
# file $cpu_out. On a shared machine the wall time of one build varies by tens of percent from
# minute to minute; the CPU time shows whether lint does more work or only waits longer.
cpu_out=$OUT/cpu.txt
wall() {
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$cpu_out" "$@" >/dev/null
  end=$(date +%s.%N)
  awk "BEGIN{printf \"%.3f\", $end-$start}"
}
cpu() { awk '{printf "%.2f", $1 + $2}' "$cpu_out"; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "machine: $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $DOCS documents, $(du -sm "$repo" | cut -f1) MB"
py=() parse=() lint=() parse_cpu=() lint_cpu=()
for i in $(seq 1 "$RUNS"); do
  py+=("$(wall "$PY" "$libyaml" "$repo")")
  parse+=("$(wall "$BIN" lint --parse-only "$repo")")
  parse_cpu+=("$(cpu)")
  lint+=("$(wall "$BIN" lint -o json "$repo")")
  lint_cpu+=("$(cpu)")
  echo "  round $i: libyaml ${py[-1]} s, parse-only ${parse[-1]} s (CPU ${parse_cpu[-1]}), lint -o json ${lint[-1]} s (CPU ${lint_cpu[-1]})"
done
mp=$(median "${py[@]}") mo=$(median "${parse[@]}") ml=$(median "${lint[@]}")
co=$(median "${parse_cpu[@]}") cl=$(median "${lint_cpu[@]}")
echo "median: libyaml $mp s, parse-only $mo s, lint -o json $ml s; CPU parse-only $co s, lint $cl s"
echo "lint / libyaml $(awk "BEGIN{printf \"%.3f\", $ml/$mp}")   lint / parse-only $(awk "BEGIN{printf \"%.2f\", $ml/$mo}")   parse-only / libyaml $(awk "BEGIN{printf \"%.3f\", $mo/$mp}")   CPU lint / parse-only $(awk "BEGIN{printf \"%.2f\", $cl/$co}")"

echo
echo "phases of lint -o json (ms, median of $RUNS; each phase's own time):"
for i in $(seq 1 "$RUNS"); do
  KARMADA_POLICY_TIMINGS=1 "$BIN" lint -o json "$repo" 2>&1 >/dev/null | grep '^timing:' >"$OUT/phases-$i.txt" || true
done
"$PY" - "$OUT" "$RUNS" <<'PY'
import re, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
table = {}
order = []
for i in range(1, runs + 1):
    last = 0.0
    for line in open(f"{out}/phases-{i}.txt"):
        m = re.match(r"timing:\s+([\d.]+) ms\s+(\d+) MB \(\s*(\d+) MB peak\)\s+(.*)", line)
        if not m:
            continue
        at, peak, phase = float(m[1]), int(m[3]), m[4]
        if phase not in table:
            table[phase] = ([], [])
            order.append(phase)
        table[phase][0].append(at - last)
        table[phase][1].append(peak)
        last = at
for phase in order:
    ms, peak = table[phase]
    print(f"  {statistics.median(ms):8.1f} ms  {statistics.median(peak):5.0f} MB peak  {phase}")
PY

if [ -n "${INSTR:-}" ]; then
  echo
  echo "instructions (valgrind callgrind, all threads):"
  for what in "--parse-only" "-o json"; do
    log=$(mktemp)
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" lint $what "$repo" >/dev/null 2>"$log" || true
    printf '  lint %-13s %s\n' "$what" "$(grep -o 'Collected : [0-9]*' "$log" | cut -d' ' -f3)"
    rm -f "$log"
  done
fi
