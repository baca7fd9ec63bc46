#!/usr/bin/env bash
# Fetches data that some tests validate against, from the package registries, into
# target/test-deps/ (never committed). Tests that need a file skip with a reason when it is absent.
#
# - sarif-2.1.0.json: the official SARIF 2.1.0 JSON schema (OASIS, rtm.5), as shipped in the
#   npm package @microsoft/jest-sarif.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=target/test-deps
mkdir -p "$dest"
if [ ! -s "$dest/sarif-2.1.0.json" ] && command -v npm >/dev/null 2>&1; then
  tmp=$(mktemp -d)
  if (cd "$tmp" && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null 2>&1); then
    tar -xzf "$tmp"/microsoft-jest-sarif-*.tgz -C "$tmp"
    cp "$tmp/package/lib/schemas/sarif-2.1.0-rtm.5.json" "$dest/sarif-2.1.0.json"
  else
    echo "could not fetch the SARIF schema; the SARIF schema test will skip" >&2
  fi
  rm -rf "$tmp"
fi
