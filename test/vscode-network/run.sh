#!/usr/bin/env bash
# network: domains inside a real VS Code (route B of vscode-e2e.md, as test/vscode-approval/run.sh): mode confirm,
# bubblewrap required, no host on the allowed domains. suite.js (in the extension host) runs curl against a local
# server through the egress proxy; ui.js (test/vscode/driver.js, headless Chromium) plays the person: the host the
# command tries becomes a card, "Always allow" writes the user's guardedShell.domains.allowed, and the next
# command reaches the host without a card.
# Usage: bash test/vscode-network/run.sh
# Prints "N passed, M failed" last; exit 0 only when everything passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. scripts/e2e-lib.sh

e2e_prepare gs-network-e2e
# The curl calls are auto-approved by their exact lines (the suite adds them), so the only card is the host's.
# Loopback (and private, where the machine's name resolves to one) is allowed: the local server is the host.
e2e_write_settings <<'JSON'
  "window.commandCenter": false, "workbench.layoutControl.enabled": false,
  "guardedShell.mode": "confirm",
  "guardedShell.isolation": "required",
  "guardedShell.network": "domains",
  "guardedShell.fetch.allowLoopback": true,
  "guardedShell.fetch.allowPrivate": true,
  "guardedShell.approvalTimeout": 60,
  "guardedShell.allowCommands": ["curl"]
JSON

e2e_start_server
e2e_run_driver test/vscode-network/suite.js 300 test/vscode-network/ui.js
e2e_report
e2e_finish $?
