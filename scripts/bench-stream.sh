#!/usr/bin/env bash
# Peak memory of one large input against the same documents split into files (issue 33): for
# each size, generates a repository of small files (50 documents each, as a kustomize or Helm
# output split by resource would be), joins its files into one (`---` between them, in the
# order `lint DIR` reads them), and takes the peak RSS (GNU time, median of RUNS runs) of
#
#   lint DIR             the files
#   lint FILE            the one file
#   lint - < FILE        stdin redirected from the file
#   cat FILE | lint -    stdin from a pipe (its size unknown)
#
# and of `lint` on a one-document file: the fixed base of any run (the binary, its threads, the
# CRD schemas). Prints each against `lint DIR` and against the input.
#
#   scripts/bench-stream.sh                       # 20,000 and 100,000 documents
#   DOCS="20000" RUNS=5 scripts/bench-stream.sh
#   BIN=path/to/kubectl-karmada_policy NO_BUILD=1 scripts/bench-stream.sh   # another build
#
# Needs: cargo, GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."

DOCS=${DOCS:-"20000 100000"}
RUNS=${RUNS:-3}
BIN=${BIN:-target/release/kubectl-karmada_policy}
GEN=target/release/examples/gen_repo
OUT=target/bench
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "SKIPPED: GNU time is not installed at $TIME"; exit 0; }
if [ -z "${NO_BUILD:-}" ]; then
  echo "== building (release)"
  cargo build --release --quiet --bin kubectl-karmada_policy --example gen_repo
fi
mkdir -p "$OUT"

# rss CMD...: peak RSS in KB of one run (stdin from $IN when set; exit 0 or 1 expected).
rss() {
  local log rc=0
  log=$(mktemp)
  if [ -n "${IN:-}" ]; then
    "$TIME" -f %M "$@" <"$IN" >/dev/null 2>"$log" || rc=$?
  else
    "$TIME" -f %M "$@" >/dev/null 2>"$log" || rc=$?
  fi
  if [ "$rc" -gt 1 ]; then
    echo "exit $rc: $*" >&2
    cat "$log" >&2
    exit 1
  fi
  tail -1 "$log"
  rm -f "$log"
}

# median CMD...: the median of RUNS peaks, in MB with one decimal.
median() {
  local values=()
  for _ in $(seq 1 "$RUNS"); do values+=("$(rss "$@")"); done
  printf '%s\n' "${values[@]}" | sort -n | awk '{v[NR]=$1} END {printf "%.1f", v[int((NR+1)/2)]/1024}'
}

ratio() { awk "BEGIN{printf \"%.2f\", $1/$2}"; }

one=$OUT/stream-one.yaml
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one, namespace: default}\n' >"$one"
base=$(median "$BIN" lint "$one")
echo "machine: $(uname -m), $(nproc) cores; runs per figure: $RUNS (median)"
echo "base (lint of a one-document file): $base MB"
printf '\n%-9s %9s %10s %10s %12s %14s %9s %9s %22s\n' documents "input MB" "lint DIR" "lint FILE" "lint - <FILE" "cat FILE|lint -" FILE/DIR stdin/DIR "(FILE-base)/input"
for docs in $DOCS; do
  dir=$OUT/stream-$docs
  file=$OUT/stream-$docs.yaml
  if [ ! -d "$dir" ]; then
    "$GEN" --documents "$docs" --files $((docs / 50)) --seed 1 --out "$dir" >/dev/null
  fi
  if [ ! -f "$file" ]; then
    find "$dir" -name '*.yaml' | LC_ALL=C sort | while read -r f; do
      cat "$f"
      printf -- '---\n'
    done >"$file"
  fi
  input=$(awk "BEGIN{printf \"%.1f\", $(stat -c %s "$file")/1048576}")
  d=$(median "$BIN" lint "$dir")
  f=$(median "$BIN" lint "$file")
  s=$(IN=$file median "$BIN" lint -)
  p=$(median sh -c "cat '$file' | '$BIN' lint -")
  printf '%-9s %9s %10s %10s %12s %14s %9s %9s %22s\n' "$docs" "$input" "$d" "$f" "$s" "$p" \
    "$(ratio "$f" "$d")" "$(ratio "$s" "$d")" "$(ratio "$(awk "BEGIN{print $f-$base}")" "$input")"
done
