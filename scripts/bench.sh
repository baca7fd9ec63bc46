#!/usr/bin/env bash
# Whole-process benchmark (issue 8): on one generated GitOps repository, time the tool's loader
# alone (`lint --parse-only`, a hidden benchmarking flag), a full `lint`, `lint --base` (git mode,
# against the previous commit of a scratch git repository holding the same files) and `explain`;
# then the peers on the same files: checkov (--framework kubernetes), kubernetes-validate and
# yamllint, installed from PyPI into a venv under target/bench. Reports wall time, documents per
# second and peak memory (GNU time -v), and each run's ratio to our full lint.
#
#   scripts/bench.sh                     # 100,000 documents (10k policies, 90k templates)
#   DOCS="10000 100000 1000000" scripts/bench.sh   # growth curve
#   PEERS=0 scripts/bench.sh             # ours only
#   BASE_MAX_DOCS=N                      # skip lint --base above N documents (default 300000)
#   RUNS=3 scripts/bench.sh              # best of 3 for our commands
#
# Needs: cargo, python3 (venv) for the peers, git for `lint --base`, /usr/bin/time (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."

DOCS=${DOCS:-100000}
RUNS=${RUNS:-1}
PEERS=${PEERS:-1}
BASE_MAX_DOCS=${BASE_MAX_DOCS:-300000}
# Peers are slow (seconds per thousand documents): they run on at most this many documents
# (a prefix of the same repository's files) and their rate is compared per document.
PEER_DOCS=${PEER_DOCS:-5000}
OUT=target/bench
BIN=target/release/kubectl-karmada_policy
GEN=target/release/examples/gen_repo
TIME=/usr/bin/time
mkdir -p "$OUT"

[ -x "$TIME" ] || { echo "GNU time is required at $TIME (apt-get install time)" >&2; exit 2; }
echo "== building (release)"
cargo build --release --quiet --bin kubectl-karmada_policy --example gen_repo

nproc_=$(nproc 2>/dev/null || echo "?")
echo "machine: $(uname -m), $nproc_ cores; $(rustc --version)"

# measure LABEL DOCS -- CMD...: best wall of $RUNS runs, peak RSS of that run.
# Sets WALL (seconds) and RSS (KB); prints one row.
measure() {
  local label=$1 docs=$2 runs=$3
  shift 4
  local best="" best_rss=""
  for _ in $(seq 1 "$runs"); do
    local log
    log=$(mktemp)
    set +e
    "$TIME" -v "$@" >/dev/null 2>"$log"
    local rc=$?
    set -e
    if [ "$rc" -gt 1 ]; then
      echo "  $label: exit $rc" >&2
      tail -5 "$log" >&2
    fi
    local wall rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    rm -f "$log"
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then
      best=$wall
      best_rss=$rss
    fi
  done
  WALL=$best
  RSS=$best_rss
  printf "  %-34s %8.2f s %12.0f docs/s %8.0f MB" "$label" "$WALL" "$(awk "BEGIN{print $docs/($WALL>0?$WALL:0.001)}")" "$(awk "BEGIN{print $RSS/1024}")"
}

ratio() { awk "BEGIN{printf \"%.2f\", $1/($2>0?$2:0.001)}"; }

setup_peers() {
  local venv=$OUT/venv
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" || { echo "  (no python3 venv: peers skipped)"; return 1; }
  fi
  for pkg in checkov kubernetes-validate yamllint; do
    "$venv/bin/pip" show -q "$pkg" >/dev/null 2>&1 \
      || "$venv/bin/pip" install --quiet "$pkg" >/dev/null 2>&1 \
      || echo "  note: $pkg could not be installed from PyPI; skipped"
  done
}

for docs in $DOCS; do
  repo=$OUT/repo-$docs
  if [ ! -d "$repo" ]; then
    "$GEN" --documents "$docs" --seed 1 --out "$repo" >/dev/null
  fi
  bytes=$(du -sb "$repo" | cut -f1)
  files=$(find "$repo" -name '*.yaml' | wc -l)
  echo
  echo "== $docs documents ($((docs / 10)) policies), $files files, $((bytes / 1024 / 1024)) MB"

  measure "parse only (lint --parse-only)" "$docs" "$RUNS" -- "$BIN" lint --parse-only "$repo"
  parse=$WALL
  echo
  measure "lint" "$docs" "$RUNS" -- "$BIN" lint "$repo"
  lint=$WALL
  lint_rss=$RSS
  echo "   lint/parse $(ratio "$lint" "$parse"), peak memory $(ratio "$((lint_rss * 1024))" "$bytes") x input"

  # explain: the first Deployment from the middle of the repository on.
  i=$(( (docs - docs / 10) / 2 ))
  while :; do
    t=$(printf "app-%07d" "$i")
    meta=$(grep -rh -B2 -A1 "^  name: $t\$" "$repo" | head -4)
    if echo "$meta" | grep -q "^kind: Deployment"; then break; fi
    i=$((i + 1))
  done
  ns=$(echo "$meta" | sed -n 's/^  namespace: //p')
  measure "explain deploy/$t" "$docs" "$RUNS" -- "$BIN" explain "deploy/$t" -n "$ns" -f "$repo"
  echo

  # lint --base: a scratch repository with two commits (the second changes one policy).
  # Both sides are streamed and unchanged files read once (lint/streamed_base.rs); older builds
  # held both sides' whole trees: BASE_MAX_DOCS keeps the growth runs short.
  if [ "$docs" -gt "$BASE_MAX_DOCS" ]; then
    echo "  lint --base: skipped above BASE_MAX_DOCS=$BASE_MAX_DOCS documents"
  elif command -v git >/dev/null 2>&1 && "$BIN" lint --help 2>/dev/null | grep -q -- "--base"; then
    g=$OUT/git-$docs
    if [ ! -d "$g/.git" ]; then
      rm -rf "$g"
      mkdir -p "$g"
      cp -r "$repo"/. "$g"/
      (cd "$g" && git init -q && git add -A && git -c user.name=bench -c user.email=bench@example.com commit -qm base \
        && f=$(find . -name '*.yaml' | sort | head -1) && sed -i '0,/priority: /s/priority: \([0-9]*\)/priority: 7\1/' "$f" \
        && git -c user.name=bench -c user.email=bench@example.com commit -qam change)
    fi
    measure "lint --base HEAD~1" "$docs" "$RUNS" -- sh -c "cd '$g' && exec '$PWD/$BIN' lint --base HEAD~1 ."
    echo "   lint --base / lint $(ratio "$WALL" "$lint"), peak memory $(ratio "$((RSS * 1024))" "$bytes") x input"
  else
    echo "  lint --base: skipped (no git, or this build has no git mode)"
  fi

  if [ "$PEERS" = 1 ] && setup_peers; then
    venv=$OUT/venv
    # The peers read the first files of the repository, up to PEER_DOCS documents.
    per_file=$(( (docs + files - 1) / files ))
    n_files=$(( (PEER_DOCS + per_file - 1) / per_file ))
    [ "$n_files" -gt "$files" ] && n_files=$files
    peer_dir=$OUT/peer-$docs
    rm -rf "$peer_dir"
    mkdir -p "$peer_dir"
    find "$repo" -name '*.yaml' | sort | head -"$n_files" | while read -r f; do cp "$f" "$peer_dir/$(echo "$f" | tr / _)"; done
    peer_docs=$(( n_files * per_file ))
    [ "$peer_docs" -gt "$docs" ] && peer_docs=$docs
    echo "  peers on $peer_docs documents ($n_files files); ratio = their time per document / ours (full lint)"
    ours_rate=$(awk "BEGIN{print $lint/$docs}")
    measure "ours: lint (same $peer_docs docs)" "$peer_docs" 1 -- "$BIN" lint "$peer_dir"
    echo
    if [ -x "$venv/bin/yamllint" ]; then
      measure "yamllint" "$peer_docs" 1 -- "$venv/bin/yamllint" -d relaxed "$peer_dir"
      echo "   x$(ratio "$(awk "BEGIN{print $WALL/$peer_docs}")" "$ours_rate") slower per document"
    fi
    if [ -x "$venv/bin/kubernetes-validate" ]; then
      measure "kubernetes-validate" "$peer_docs" 1 -- sh -c "'$venv/bin/kubernetes-validate' --quiet '$peer_dir'/*.yaml"
      echo "   x$(ratio "$(awk "BEGIN{print $WALL/$peer_docs}")" "$ours_rate") slower per document"
    fi
    if [ -x "$venv/bin/checkov" ]; then
      measure "checkov --framework kubernetes" "$peer_docs" 1 -- "$venv/bin/checkov" --framework kubernetes -d "$peer_dir" --quiet --compact
      echo "   x$(ratio "$(awk "BEGIN{print $WALL/$peer_docs}")" "$ours_rate") slower per document"
    fi
  fi
done
