#!/usr/bin/env bash
# A three-folder workspace (.code-workspace) in a real VS Code (1.139.1, the server bundled in code-server; route B
# of vscode-e2e.md): suite.js proves that ONE server process serves all three folders, each under its own policy
# and root, and measures the processes' total RSS and the time from activation to the tools being listed. The
# figures are printed and written to test-results/vscode-multiroot.json (BENCHMARKS.md quotes them).
# Usage: bash test/vscode-multiroot/run.sh        Prints "N passed, M failed" last; exit 0 only when all passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. scripts/e2e-lib.sh

e2e_prepare gs-multiroot-e2e
e2e_write_settings <<'JSON'
  "guardedShell.mode": "auto",
  "guardedShell.isolation": "none",
  "guardedShell.allowCommands": ["echo", "touch", "ls", "cat"]
JSON

# Three folders; alpha makes its own mode stricter (readOnly) in its folder settings, beta and gamma keep auto.
for f in alpha beta gamma; do mkdir -p "$WS/$f"; done
mkdir -p "$WS/alpha/.vscode"
echo '{ "guardedShell.mode": "readOnly" }' > "$WS/alpha/.vscode/settings.json"
echo '{ "folders": [{ "path": "alpha" }, { "path": "beta" }, { "path": "gamma" }], "settings": {} }' > "$WS/three.code-workspace"
export E2E_WORKSPACE_FILE="$WS/three.code-workspace"
mkdir -p "$ROOT/test-results"
export E2E_REPORT="$ROOT/test-results/vscode-multiroot.json"
rm -f "$E2E_REPORT"
export MCP_SERVER_PREFIX="${EXT_ID,,}/Guarded Shell: "
e2e_start_server
e2e_run_driver test/vscode-multiroot/suite.js 300

# Closing VS Code leaves no server process behind (the one process of the window included).
leftovers() { ps -eo pid=,args= | grep -F -e "$EXT/dist/server.js" | grep -v -F -e "grep -F"; }
e2e_wait_no_leftovers

[ -f "$E2E_REPORT" ] && echo "e2e: figures ($E2E_REPORT): $(cat "$E2E_REPORT")"
e2e_report "closing VS Code leaves no server process" "$CLOSE_OK"
e2e_finish $?
