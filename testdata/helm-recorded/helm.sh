#!/bin/sh
# Stands in for `helm template RELEASE DIR -f VALUES...` (see README.md): prints the recording.
[ "$1" = template ] || { echo "Error: unknown command \"$1\"" >&2; exit 1; }
exec cat "$(dirname "$0")/podinfo-template.txt"
