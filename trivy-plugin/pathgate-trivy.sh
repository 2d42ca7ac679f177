#!/bin/sh
# Trivy output plugin: the report arrives on stdin; pathgate's merge gate decides. PATHGATE overrides the
# command (default: `pathgate` on PATH, as `npm install -g pathgate` puts it).
set -eu
report=$(mktemp "${TMPDIR:-/tmp}/pathgate-trivy.XXXXXX")
trap 'rm -f "$report"' EXIT
cat > "$report"
status=0
${PATHGATE:-pathgate} gate -source trivy -report "$report" "$@" || status=$?
exit "$status"
