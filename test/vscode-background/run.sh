#!/usr/bin/env bash
# Background commands inside a real VS Code (route B of vscode-e2e.md, as test/vscode-network/run.sh): mode confirm,
# the sandbox required. suite.js (in the extension host) starts a watcher in the background through MCP; ui.js
# (test/vscode/driver.js, headless Chromium) plays the person: approves the start from its card (which says it runs
# on), sees the command listed in the panel with its folder, sandbox, elapsed time and last lines while its output
# updates, presses Stop; the suite then checks the command ended (stopped by a person), nothing of it runs, the
# status bar counted it, and the history shows its start and end.
# Usage: bash test/vscode-background/run.sh
# Prints "N passed, M failed" last; exit 0 only when everything passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. scripts/e2e-lib.sh

e2e_prepare gs-background-e2e
e2e_write_settings <<'JSON'
  "window.commandCenter": false, "workbench.layoutControl.enabled": false,
  "guardedShell.mode": "confirm",
  "guardedShell.isolation": "required",
  "guardedShell.approvalTimeout": 120,
  "guardedShell.allowCommands": ["python3"]
JSON

MARKER="gs-bg-e2e-$RANDOM$RANDOM"   # in the watcher's argv: /proc finds exactly its processes
export E2E_BG_MARKER="$MARKER"
e2e_start_server
e2e_run_driver test/vscode-background/suite.js 300 test/vscode-background/ui.js

# Closing VS Code leaves nothing of the server or of a background command behind.
leftovers() { ps -eo pid=,args= | grep -F -e "$EXT/dist/server.js" -e "$MARKER" | grep -v -F -e "grep -F"; }
e2e_wait_no_leftovers
e2e_report "closing VS Code leaves no process of the server or of a background command" "$CLOSE_OK"
e2e_finish $?
