#!/usr/bin/env bash
# The benchmark repository of `lint --base` and `plan --base` (scripts/bench-git.sh,
# scripts/bench-plan.sh): DOCS documents in 1,000 files (per file one namespace with 95 templates
# and 5 PropagationPolicies, by name and by label) committed on `main`, then a branch `change`
# (checked out) that changes 10 files: a priority raised, a template relabelled, a preemptor
# added.
#
#   scripts/bench-repo.sh DIR DOCS
set -euo pipefail

REPO=$1
DOCS=$2
mkdir -p "$REPO"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

python3 - "$REPO" "$DOCS" <<'EOF'
import os, sys
repo, docs = sys.argv[1], int(sys.argv[2])
per_file = 100
files = max(1, docs // per_file)
for f in range(files):
    ns = f"ns-{f:04d}"
    out = []
    for i in range(per_file - 5):
        kind = "Deployment" if i % 2 == 0 else "ConfigMap"
        api = "apps/v1" if kind == "Deployment" else "v1"
        out.append(f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: app-{i}\n  namespace: {ns}\n"
                   f"  labels:\n    tier: t{i % 5}\n")
    for p in range(5):
        sel = (f"    - apiVersion: apps/v1\n      kind: Deployment\n      name: app-{p * 2}\n" if p < 3 else
               f"    - apiVersion: v1\n      kind: ConfigMap\n      labelSelector:\n        matchLabels:\n          tier: t{p}\n")
        out.append(f"apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: pp-{p}\n"
                   f"  namespace: {ns}\nspec:\n  priority: {p}\n  preemption: Always\n  resourceSelectors:\n{sel}"
                   f"  placement:\n    clusterAffinity:\n      clusterNames: [member1, member2]\n")
    d = os.path.join(repo, "apps", f"team-{f // 100:02d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{ns}.yaml"), "w") as fh:
        fh.write("---\n".join(out))
EOF

cd "$REPO"
printf 'featureGates:\n  PropagationPolicyPreemption: true\n' > .karmada-policy.yaml
git init -q -b main
git add -A
git commit -q -m base
git checkout -q -b change
python3 - <<'EOF'
import glob
for n, path in enumerate(sorted(glob.glob("apps/*/*.yaml"))[:10]):
    text = open(path).read()
    text = text.replace("name: pp-0\n", "name: pp-0\n", 1).replace("  priority: 0\n", "  priority: 9\n", 1)
    text = text.replace("tier: t1\n", "tier: t3\n", 1)
    ns = path.rsplit("/", 1)[1][:-5]
    text += (f"---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: extra\n"
             f"  namespace: {ns}\nspec:\n  priority: 4\n  preemption: Always\n  resourceSelectors:\n"
             f"    - apiVersion: apps/v1\n      kind: Deployment\n      name: app-8\n")
    open(path, "w").write(text)
EOF
git commit -q -am change
