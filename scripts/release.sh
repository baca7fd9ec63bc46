#!/usr/bin/env bash
# Builds release archives for the krew platforms and fills their sha256 into krew-manifest.yaml.
#
#   scripts/release.sh v0.1.0 [TARGET...]
#
# Each TARGET is a Rust target triple whose toolchain is installed (rustup target add ...);
# by default only the host is built. Archives land in dist/; the manifest is rewritten in place
# for the version and for each platform that was built (others keep their previous sha256).
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:?usage: scripts/release.sh vX.Y.Z [TARGET...]}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=("$(rustc -vV | sed -n 's/^host: //p')")
fi

platform_of() { # target triple -> "os arch" as krew names them
  case "$1" in
    x86_64-unknown-linux-*) echo "linux amd64" ;;
    aarch64-unknown-linux-*) echo "linux arm64" ;;
    x86_64-apple-darwin) echo "darwin amd64" ;;
    aarch64-apple-darwin) echo "darwin arm64" ;;
    *) echo "unsupported target $1" >&2; return 1 ;;
  esac
}

mkdir -p dist
sed -i.bak "s/^  version: .*/  version: ${version}/; s#/download/v[^/]*/kubectl-karmada_policy-v[^-]*-#/download/${version}/kubectl-karmada_policy-${version}-#" krew-manifest.yaml
for target in "${targets[@]}"; do
  read -r os arch < <(platform_of "$target")
  cargo build --release --locked --target "$target"
  stage=$(mktemp -d)
  cp "target/$target/release/kubectl-karmada_policy" LICENSE README.md "$stage/" 2>/dev/null || cp "target/$target/release/kubectl-karmada_policy" README.md "$stage/"
  archive="dist/kubectl-karmada_policy-${version}-${os}-${arch}.tar.gz"
  tar -C "$stage" -czf "$archive" .
  rm -rf "$stage"
  sum=$(sha256sum "$archive" | cut -d' ' -f1)
  # Replace the sha256 on the line after this platform's uri.
  python3 - "$os" "$arch" "$sum" <<'PY'
import re, sys
os_, arch, digest = sys.argv[1:]
text = open("krew-manifest.yaml").read()
pattern = re.compile(r"(uri: \S+-%s-%s\.tar\.gz\n\s+sha256: )\"[0-9a-f]{64}\"" % (os_, arch))
text, n = pattern.subn(r'\g<1>"%s"' % digest, text)
assert n == 1, f"no platform entry for {os_}/{arch}"
open("krew-manifest.yaml", "w").write(text)
PY
  echo "$archive $sum"
done
rm -f krew-manifest.yaml.bak
