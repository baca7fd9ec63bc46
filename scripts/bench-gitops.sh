#!/usr/bin/env bash
# GitOps benchmark (issue 19): a generated repository of 50 kustomize roots (25 apps, each a
# base and two overlays with namespace:, namePrefix and a placement patch, plus plain CPPs).
# Times the kustomize builds alone (the same `kubectl kustomize` or `kustomize build` the tool
# runs, at the tool's parallelism) beside a full `lint` of the repository, so the tool's own
# share is the difference.
#
#   scripts/bench-gitops.sh                # 50 roots
#   APPS=50 scripts/bench-gitops.sh        # 100 roots
#   BIN=target/release/kubectl-karmada_policy scripts/bench-gitops.sh
#
# Needs: kubectl (or kustomize) on PATH, /usr/bin/time (GNU time) for peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."

APPS=${APPS:-25}
BIN=${BIN:-target/debug/kubectl-karmada_policy}
OUT=target/bench-gitops
WORKERS=$(nproc | awk '{n=$1; if (n<2) n=2; if (n>8) n=8; print n}')
[ -x "$BIN" ] || cargo build --quiet
if command -v kustomize >/dev/null 2>&1; then KUSTOMIZE="kustomize build"; else KUSTOMIZE="kubectl kustomize"; fi

rm -rf "$OUT" && mkdir -p "$OUT/repo/infrastructure"
repo="$OUT/repo"
cat > "$repo/infrastructure/cpp.yaml" <<'YAML'
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata:
  name: platform-default
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
YAML
for i in $(seq 1 "$APPS"); do
  app="$repo/apps/app$i"
  mkdir -p "$app/base" "$app/overlays/prod" "$app/overlays/staging"
  printf 'resources: [deployment.yaml, policy.yaml]\n' > "$app/base/kustomization.yaml"
  cat > "$app/base/deployment.yaml" <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app$i
spec:
  selector: {matchLabels: {app: app$i}}
  template:
    metadata: {labels: {app: app$i}}
    spec:
      containers: [{name: app, image: "example/app:$i"}]
YAML
  cat > "$app/base/policy.yaml" <<YAML
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: app$i
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: app$i
  placement:
    clusterAffinity:
      clusterNames: [member1]
YAML
  for env in prod staging; do
    cat > "$app/overlays/$env/kustomization.yaml" <<YAML
namespace: app$i-$env
resources: [../../base]
patches:
  - path: placement.yaml
YAML
    cat > "$app/overlays/$env/placement.yaml" <<YAML
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: app$i
spec:
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
YAML
  done
done
roots=$(find "$repo/apps" -path '*/overlays/*' -name kustomization.yaml -printf '%h\n' | sort)
echo "roots: $(echo "$roots" | wc -l), kustomize: $KUSTOMIZE, workers: $WORKERS, binary: $BIN"

# Wall and CPU time (user + system) of the builds alone, then of the whole lint: on a machine
# with few cores the wall times of two runs this close differ by noise, the CPU time less so.
echo "$roots" > "$OUT/roots.txt"
/usr/bin/time -f '%e %U %S' -o "$OUT/builds.txt" \
  sh -c "xargs -P '$WORKERS' -I{} sh -c '$KUSTOMIZE {} >/dev/null' < '$OUT/roots.txt'"
read -r builds builds_user builds_sys < "$OUT/builds.txt"

/usr/bin/time -f '%e %M %U %S' -o "$OUT/time.txt" "$BIN" lint "$repo" >"$OUT/lint.txt" 2>"$OUT/lint.err" || true
read -r ours mem ours_user ours_sys < "$OUT/time.txt"
cpu() { echo "$1 + $2" | bc; }
printf 'kustomize builds alone: %.2f s wall, %.2f s CPU\n' "$builds" "$(cpu "$builds_user" "$builds_sys")"
printf 'lint (builds included): %.2f s wall, %.2f s CPU, peak %s KB\n' "$ours" "$(cpu "$ours_user" "$ours_sys")" "$mem"
printf "the tool's own time:    %.2f s wall, %.2f s CPU (lint minus the builds alone)\n" \
  "$(echo "$ours - $builds" | bc)" "$(echo "$ours_user + $ours_sys - $builds_user - $builds_sys" | bc)"
tail -n 1 "$OUT/lint.txt"; echo
