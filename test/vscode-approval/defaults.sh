#!/usr/bin/env bash
# VS Code's defaults as a new user has them, in a real VS Code (1.139.1, the server bundled in code-server; route B
# of vscode-e2e.md): no guardedShell setting at all (mode confirm, read-only git on the allowlist, isolation auto:
# bubblewrap where it runs). The workspace is a git repository with one committed file; the server's HOME holds the
# person's ~/.gitconfig. defaults-suite.js (extension host) is the agent: it edits the file, stages and commits it;
# defaults-ui.js (headless Chromium) is the person at the approval panel: it approves the cards, and for a miss
# saves an edited "Always allow" rule; the next matching command must run without a card, another still asks.
# Usage: bash test/vscode-approval/defaults.sh     Prints "N passed, M failed" last; exit 0 only when all passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. scripts/e2e-lib.sh

e2e_prepare gs-defaults-e2e
# Only the quiet-workbench settings: every guardedShell setting keeps its default.
e2e_write_settings <<'JSON'
  "window.commandCenter": false, "workbench.layoutControl.enabled": false
JSON

# The person's home with their git identity (this runner's own ~/.gitconfig has another, which must not be used),
# and the repository the person opens: one file, committed by someone else (so the agent's commit can only have
# its author from the person's ~/.gitconfig). No global or system configuration takes part in the setup.
export E2E_SERVER_HOME="$RUN/home"
mkdir -p "$E2E_SERVER_HOME"
node -e '
const fs = require("fs"), path = require("path");
const d = require("./test/vscode-approval/shared.js").DEFAULTS;
const [home, ws] = process.argv.slice(1);
fs.writeFileSync(path.join(home, ".gitconfig"), `[user]\n\tname = ${d.NAME}\n\temail = ${d.EMAIL}\n`);
fs.writeFileSync(path.join(ws, d.FILE), d.BEFORE);
' "$E2E_SERVER_HOME" "$WS" || e2e_die "could not write the test's ~/.gitconfig and workspace file"
setup_git() { GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$WS" -c user.name="Fixture" -c user.email="fixture@example.test" "$@"; }
{ setup_git init -q -b main && setup_git add -A && setup_git commit -q -m "Initial commit"; } || e2e_die "could not create the workspace's repository"

# Whether the defaults must give a sandbox here: bubblewrap runs (the suite then requires isolation bwrap).
E2E_EXPECT_SANDBOX=0
command -v bwrap >/dev/null && bwrap --ro-bind / / --proc /proc --dev /dev --unshare-all true 2>/dev/null && E2E_EXPECT_SANDBOX=1
export E2E_EXPECT_SANDBOX

e2e_start_server
e2e_run_driver test/vscode-approval/defaults-suite.js 400 test/vscode-approval/defaults-ui.js
e2e_report
e2e_finish $?
