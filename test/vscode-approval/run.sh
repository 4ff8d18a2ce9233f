#!/usr/bin/env bash
# The approval webview inside a real VS Code (1.139.1, the server bundled in code-server; route B of
# vscode-e2e.md): suite.js runs in the extension host and calls tools with an MCP SDK client in mode `confirm`;
# driver.js (headless Chromium) clicks the cards in the webview and saves the panel's screenshot.
# Usage: bash test/vscode-approval/run.sh [--screenshot docs/approval-panel.png]
# Prints "N passed, M failed" last; exit 0 only when everything passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
SHOT=""
[ "${1:-}" = "--screenshot" ] && SHOT=$(realpath -m "${2:?--screenshot needs a path}")

SETUP_LINE=$(bash scripts/e2e-setup.sh | tail -1) || { echo "e2e: setup failed"; echo "0 passed, 1 failed"; exit 1; }
eval "$SETUP_LINE"   # NODE24=… VSCODE_SERVER_MAIN=…
node esbuild.mjs --quiet || { echo "e2e: build failed"; echo "0 passed, 1 failed"; exit 1; }

RUN=$(mktemp -d "${TMPDIR:-/tmp}/gs-approval-e2e.XXXXXX")
EXT="$RUN/ext"; WS="$RUN/ws"; OUT="$RUN/out"
mkdir -p "$EXT" "$WS" "$OUT" "$RUN/data/User" "$RUN/server-data" "$RUN/exts"
cp package.json "$EXT/"; cp -r dist media "$EXT/"; rm -f "$EXT"/dist/*.map

# Mode confirm: every command and every change waits for a click. No sandbox, so the run does not depend on
# bubblewrap being usable in this container (the card then shows the no-isolation warning).
cat > "$RUN/data/User/settings.json" <<JSON
{
  "security.workspace.trust.enabled": false, "workbench.startupEditor": "none", "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true, "update.mode": "none", "chat.disableAIFeatures": true,
  "workbench.enableExperiments": false, "window.commandCenter": false, "workbench.layoutControl.enabled": false,
  "guardedShell.mode": "confirm",
  "guardedShell.isolation": "none",
  "guardedShell.approvalTimeout": 60,
  "guardedShell.allowCommands": ["echo", "printf", "cat"]
}
JSON

PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
export E2E_OUT="$OUT" E2E_SHOT="$SHOT" E2E_USER_SETTINGS="$RUN/data/User/settings.json"
export EXT_ID=$(node -p "const p=require('./package.json'); p.publisher+'.'+p.name")
START=$(date +%s)
XDG_DATA_HOME="$RUN/xdg" XDG_CONFIG_HOME="$RUN/xdg" setsid "$NODE24" "$VSCODE_SERVER_MAIN" --host 127.0.0.1 --port "$PORT" \
  --without-connection-token --accept-server-license-terms --enable-smoke-test-driver --disable-telemetry \
  --disable-workspace-trust --user-data-dir "$RUN/data" --server-data-dir "$RUN/server-data" --extensions-dir "$RUN/exts" \
  > "$RUN/server.log" 2>&1 &
SPID=$!
cleanup() { kill -TERM -- "-$SPID" 2>/dev/null; sleep 1; kill -KILL -- "-$SPID" 2>/dev/null; }
trap cleanup EXIT
for _ in $(seq 1 120); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.25; done

PAYLOAD=$(node -p "encodeURIComponent(JSON.stringify([['extensionDevelopmentPath','vscode-remote://127.0.0.1:$PORT$EXT'],['extensionTestsPath','vscode-remote://127.0.0.1:$PORT$ROOT/test/vscode-approval/suite.js']]))")
VSCODE_URL="http://127.0.0.1:$PORT/?folder=$WS&payload=$PAYLOAD" PLAYWRIGHT_CORE="$ROOT/node_modules/playwright-core" \
  timeout 400 node test/vscode-approval/driver.js
DRIVER_RC=$?

echo "e2e: $(( $(date +%s) - START )) s in VS Code; artifacts in $RUN"
node -e '
const fs = require("fs");
const read = (f) => { try { return JSON.parse(fs.readFileSync(f, "utf8")); } catch { return null; } };
const suite = read(process.argv[1] + "/results.json"), ui = read(process.argv[1] + "/ui-results.json");
const results = [...(suite || [{ name: "the extension tests wrote results", ok: false }]), ...(ui || [{ name: "the UI driver wrote results", ok: false }])];
if (process.argv[2] !== "0" && results.every((r) => r.ok)) results.push({ name: "the extension tests exit with code 0", ok: false });
for (const r of results) console.log(`${r.ok ? "ok" : "not ok"} - ${r.name}${r.ms !== undefined ? ` (${r.ms} ms)` : ""}${r.error ? "\n    " + String(r.error).split("\n").slice(0, 4).join("\n    ") : ""}`);
const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
' "$OUT" "$DRIVER_RC"
exit $?
