#!/usr/bin/env bash
# Peak memory of `lint` on each hostile input of issue 18 (docs/robustness.md): builds the
# inputs in a temporary directory, runs the binary under `/usr/bin/time -v` and prints the
# maximum resident set size and the exit code of each. Fails when one goes over the budget
# (256 MB) or takes longer than TIMEOUT seconds (default 300: a hang; a debug build needs
# about 80 s for the 50 MB line).
#
#   scripts/memory.sh [BINARY]     (default: target/release/kubectl-karmada_policy, else debug)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [[ -z $bin ]]; then
  target=${CARGO_TARGET_DIR:-$root/target}
  for b in "$target/release/kubectl-karmada_policy" "$target/debug/kubectl-karmada_policy"; do
    [[ -x $b ]] && { bin=$b; break; }
  done
fi
[[ -x ${bin:-} ]] || { echo "no binary: run cargo build first, or pass its path" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "SKIPPED: /usr/bin/time (GNU time) is not installed"; exit 0; }

budget_kb=$((256 * 1024))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

python3 - <<'EOF'
laughs = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
prev = 'a'
for c in 'bcdefghi':
    laughs += f'{c}: &{c} [' + ','.join([f'*{prev}'] * 9) + ']\n'
    prev = c
open('billion-laughs.yaml', 'w').write(laughs)
open('deep-block.yaml', 'w').write('- ' * 17_500 + 'x\n')
open('deep-block-1m.yaml', 'w').write('- ' * 1_000_000 + 'x\n')
open('deep-flow.yaml', 'w').write('a: ' + '[' * 1_000_000 + ']' * 1_000_000 + '\n')
open('long-line-50m.yaml', 'w').write('a: ' + 'x' * (50 << 20) + ' : b\n')
with open('over-limit-100m.yaml', 'w') as f:
    f.write('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n')
    line = '  k%d: ' + 'v' * 100 + '\n'
    for i in range(1_000_000):
        f.write(line % i)
EOF
mkdir walk && printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' >walk/a.yaml
mkfifo walk/fifo.yaml
ln -s /dev/zero walk/zero.yaml
ln -s "$work/walk/gone.yaml" walk/dangling.yaml

status=0
printf '%-26s %8s %6s %8s\n' input "peak MB" exit seconds
measure() {
  local label=$1; shift
  local start end rc kb
  start=$(date +%s.%N)
  rc=0
  timeout "${TIMEOUT:-300}" /usr/bin/time -v "$bin" lint "$@" >/dev/null 2>time.txt || rc=$?
  end=$(date +%s.%N)
  kb=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' time.txt)
  printf '%-26s %8.1f %6s %8.2f\n' "$label" "$(echo "${kb:-0} / 1024" | bc -l)" "$rc" \
    "$(echo "$end - $start" | bc -l)"
  if [[ $rc == 124 || -z $kb || $kb -gt $budget_kb || $rc -gt 2 ]]; then
    echo "  over budget, hung or crashed: $label" >&2
    status=1
  fi
}
measure billion-laughs billion-laughs.yaml
measure deep-block-17500 deep-block.yaml
measure deep-block-1m deep-block-1m.yaml
measure deep-flow-1m deep-flow.yaml
measure long-line-50MB long-line-50m.yaml
measure over-limit-100MB over-limit-100m.yaml
measure dir-fifo-zero-dangling walk
measure stdin-dev-zero - </dev/zero
exit $status
