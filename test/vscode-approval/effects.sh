#!/usr/bin/env bash
# Command preview in a real VS Code (1.139.1, the server bundled in code-server; route B of vscode-e2e.md), with
# VS Code's defaults for everything but the allowlist: mode confirm, isolation auto (bubblewrap: required here, the
# preview needs it), commandPreview asked, editBackup storage. The workspace is a git repository with one committed
# file. effects-suite.js (extension host) is the agent: it runs commands that create and rewrite files;
# effects-ui.js (headless Chromium) is the person: it approves each command, then checks its effect card (the diff,
# the folder still untouched) and applies or discards it, undoes one from the history, and applies one after an edit
# made meanwhile (a conflict: shown, nothing overwritten).
# Usage: bash test/vscode-approval/effects.sh     Prints "N passed, M failed" last; exit 0 only when all passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. scripts/e2e-lib.sh

# The preview needs the sandbox and the copy-on-write view: without them this suite cannot show anything.
command -v bwrap >/dev/null && bwrap --ro-bind / / --proc /proc --dev /dev --unshare-all true 2>/dev/null || e2e_die "bubblewrap does not run here: command preview needs it"

e2e_prepare gs-effects-e2e
e2e_write_settings <<'JSON'
  "window.commandCenter": false, "workbench.layoutControl.enabled": false,
  "guardedShell.isolation": "required",
  "guardedShell.approvalTimeout": 120,
  "guardedShell.allowCommands": ["touch", "sh", "cat"]
JSON

node -e '
const fs = require("fs"), path = require("path");
const E = require("./test/vscode-approval/shared.js").EFFECTS;
fs.writeFileSync(path.join(process.argv[1], E.FILE), E.BEFORE);
' "$WS" || e2e_die "could not write the workspace file"
setup_git() { GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$WS" -c user.name="Fixture" -c user.email="fixture@example.test" "$@"; }
{ setup_git init -q -b main && setup_git add -A && setup_git commit -q -m "Initial commit"; } || e2e_die "could not create the workspace's repository"
export E2E_WS="$WS"

e2e_start_server
e2e_run_driver test/vscode-approval/effects-suite.js 400 test/vscode-approval/effects-ui.js
e2e_report
e2e_finish $?
