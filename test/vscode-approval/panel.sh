#!/usr/bin/env bash
# The approval webview inside a real VS Code (1.139.1, the server bundled in code-server; route B of
# vscode-e2e.md): suite.js runs in the extension host and calls tools with an MCP SDK client in mode `confirm`;
# test/vscode/driver.js (headless Chromium) plays ui.js: it clicks the cards in the webview and saves the panel's
# screenshot. (run.sh runs this, then defaults.sh.)
# Usage: bash test/vscode-approval/panel.sh [--screenshot docs/approval-panel.png]
# Prints "N passed, M failed" last; exit 0 only when everything passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. scripts/e2e-lib.sh
SHOT=""
[ "${1:-}" = "--screenshot" ] && SHOT=$(realpath -m "${2:?--screenshot needs a path}")

e2e_prepare gs-approval-e2e
# Mode confirm: every command and every change waits for a click. No sandbox, so the run does not depend on
# bubblewrap being usable in this container (the card then shows the no-isolation warning).
e2e_write_settings <<'JSON'
  "window.commandCenter": false, "workbench.layoutControl.enabled": false,
  "guardedShell.mode": "confirm",
  "guardedShell.isolation": "none",
  "guardedShell.approvalTimeout": 60,
  "guardedShell.allowCommands": ["echo", "printf", "cat"]
JSON

export E2E_SHOT="$SHOT"
e2e_start_server
e2e_run_driver test/vscode-approval/suite.js 400 test/vscode-approval/ui.js
e2e_report
e2e_finish $?
