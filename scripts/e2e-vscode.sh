#!/usr/bin/env bash
# e2e-vscode.sh: the extension's tests inside a real VS Code (1.139.1, the server bundled in code-server), route B
# of docs in vscode-e2e.md: the VS Code server runs the extension from a staged copy of what the .vsix holds,
# test/vscode/suite.js runs in its extension host, headless Chromium (playwright-core) opens the workbench.
# Then this script checks that closing VS Code left no server process and no command behind.
# Prints "N passed, M failed" last; exit 0 only when everything passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
. scripts/e2e-lib.sh

e2e_prepare gs-vscode-e2e
e2e_write_settings <<'JSON'
  "guardedShell.mode": "auto",
  "guardedShell.isolation": "none",
  "guardedShell.allowCommands": ["echo", "touch", "sleep", "ls", "cat"]
JSON

SLEEP_SECONDS=$((240 + RANDOM % 30)).$((RANDOM % 10))$((RANDOM % 10))$((RANDOM % 10))   # a unique marker
export E2E_SLEEP_SECONDS="$SLEEP_SECONDS"
export MCP_SERVER_ID="${EXT_ID,,}/Guarded Shell: ws"
HOLDER=
e2e_cleanup_hook() { [ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null; }
e2e_start_server

# The client outside VS Code that keeps a command running while VS Code closes (see holdCommand.js).
node test/vscode/holdCommand.js "$OUT/endpoint.json" "$SLEEP_SECONDS" > "$RUN/holder.log" 2>&1 &
HOLDER=$!
e2e_run_driver test/vscode/suite.js 300

# "Closing VS Code leaves no process of the server or its children": the page is closed and the extension host
# ends; within a few seconds neither a server process of this run nor the command it left running may remain.
leftovers() { ps -eo pid=,args= | grep -F -e "$EXT/dist/server.js" -e "sleep $SLEEP_SECONDS" | grep -v -F -e "grep -F" ; }
e2e_wait_no_leftovers
kill "$HOLDER" 2>/dev/null

e2e_report "closing VS Code leaves no process of the server or its children" "$CLOSE_OK"
e2e_finish $?
