#!/usr/bin/env bash
# Builds release archives, SHA256SUMS and the rendered krew manifest into dist/, with the same
# layout as .github/workflows/release.yml (both package through scripts/package.py).
#
#   scripts/release.sh [vX.Y.Z] [TARGET...]
#
# The version defaults to Cargo.toml's. The default target on a Linux x86_64 machine is
# x86_64-unknown-linux-gnu.2.17: cargo-zigbuild links against glibc 2.17 (RHEL 7/8, Amazon Linux
# 2, Ubuntu 20.04 and later all run it) and zlib is linked statically; cargo-zigbuild and zig
# come from PyPI into a virtual environment (scripts/tools-venv.sh). Other targets need their
# Rust standard library installed (rustup target add ...). Honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "release.sh: $*" >&2; exit 1; }

crate_version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
version=${1:-v$crate_version}
[ "$version" = "v$crate_version" ] || die "version $version does not match Cargo.toml ($crate_version)"
shift || true
targets=("$@")
host=$(rustc -vV | sed -n 's/^host: //p')
if [ ${#targets[@]} -eq 0 ]; then
  case "$host" in
    x86_64-unknown-linux-gnu) targets=(x86_64-unknown-linux-gnu.2.17) ;;
    *) targets=("$host") ;;
  esac
fi
target_dir=${CARGO_TARGET_DIR:-target}

platform_of() { # target triple -> krew's os-arch
  case "$1" in
    x86_64-unknown-linux-*) echo linux-amd64 ;;
    aarch64-unknown-linux-*) echo linux-arm64 ;;
    x86_64-apple-darwin) echo darwin-amd64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-pc-windows-*) echo windows-amd64 ;;
    *) die "unsupported target $1" ;;
  esac
}

uses_zig() { # glibc-versioned and musl Linux targets build with cargo-zigbuild
  case "$1" in *-linux-gnu.*|*-linux-musl*) return 0 ;; *) return 1 ;; esac
}

build() { # target -> path of the built binary
  local target=$1 dir=${1%%.*}
  if uses_zig "$target"; then
    local tools
    tools=$(scripts/tools-venv.sh)
    PATH="$tools:$PATH" cargo zigbuild --locked --release --target "$target" >&2
  else
    cargo build --locked --release --target "$target" >&2
  fi
  local exe=""
  case "$target" in *windows*) exe=.exe ;; esac
  local bin="$target_dir/$dir/release/kubectl-karmada_policy$exe"
  [ -f "$bin" ] || die "cargo did not produce $bin"
  echo "$bin"
}

rm -rf dist "$target_dir/release-assets"
mkdir -p dist
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
assets="$target_dir/release-assets"
for target in "${targets[@]}"; do
  platform=$(platform_of "$target")
  bin=$(build "$target")
  if [ ! -d "$assets" ]; then
    # Completions and man pages come from a binary that runs here: this one if it can.
    runner=$bin
    if ! "$runner" --version >/dev/null 2>&1; then
      cargo build --locked --release >&2
      runner="$target_dir/release/kubectl-karmada_policy"
    fi
    scripts/release-assets.sh "$runner" "$assets"
  fi
  python3 scripts/package.py "$bin" "$platform" "$version" "$assets" dist
done
(cd dist && sha256sum -- kubectl-karmada_policy-* > SHA256SUMS)
python3 scripts/render-krew.py --tag "$version" --sums dist/SHA256SUMS krew-manifest.yaml > dist/karmada-policy.yaml
cat dist/SHA256SUMS
