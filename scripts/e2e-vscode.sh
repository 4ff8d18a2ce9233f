#!/usr/bin/env bash
# e2e-vscode.sh: the extension's tests inside a real VS Code (1.139.1, the server bundled in code-server), route B
# of docs in vscode-e2e.md: the VS Code server runs the extension from a staged copy of what the .vsix holds,
# test/vscode/suite.js runs in its extension host, headless Chromium (playwright-core) opens the workbench.
# Then this script checks that closing VS Code left no server process and no command behind.
# Prints "N passed, M failed" last; exit 0 only when everything passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

SETUP_LINE=$(bash scripts/e2e-setup.sh | tail -1) || { echo "e2e: setup failed"; echo "0 passed, 1 failed"; exit 1; }
eval "$SETUP_LINE"   # NODE24=… VSCODE_SERVER_MAIN=…
# The production bundles, as `npm run package` builds them.
node esbuild.mjs --production --quiet || { echo "e2e: build failed"; echo "0 passed, 1 failed"; exit 1; }

RUN=$(mktemp -d "${TMPDIR:-/tmp}/gs-vscode-e2e.XXXXXX")
EXT="$RUN/ext"; WS="$RUN/ws"; OUT="$RUN/out"
mkdir -p "$EXT" "$WS" "$OUT" "$RUN/data/User" "$RUN/server-data" "$RUN/exts"
# Exactly the files the .vsix ships (vsce applies .vscodeignore), so a file missing from the package fails here.
FILES=$(npx --no-install vsce ls --no-dependencies) || { echo "e2e: vsce ls failed"; echo "0 passed, 1 failed"; exit 1; }
while IFS= read -r f; do [ -n "$f" ] && mkdir -p "$EXT/$(dirname "$f")" && cp "$f" "$EXT/$f"; done <<< "$FILES"

SLEEP_SECONDS=$((240 + RANDOM % 30)).$((RANDOM % 10))$((RANDOM % 10))$((RANDOM % 10))   # a unique marker
cat > "$RUN/data/User/settings.json" <<JSON
{
  "security.workspace.trust.enabled": false, "workbench.startupEditor": "none", "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true, "update.mode": "none", "chat.disableAIFeatures": true,
  "workbench.enableExperiments": false,
  "guardedShell.mode": "auto",
  "guardedShell.isolation": "none",
  "guardedShell.allowCommands": ["echo", "touch", "sleep", "ls", "cat"]
}
JSON

PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
export E2E_OUT="$OUT" E2E_SLEEP_SECONDS="$SLEEP_SECONDS"
export EXT_ID=$(node -p "const p=require('./package.json'); p.publisher+'.'+p.name")
export MCP_SERVER_ID="${EXT_ID,,}/Guarded Shell: ws"
export PLAYWRIGHT_CORE="$ROOT/node_modules/playwright-core"
START=$(date +%s)
XDG_DATA_HOME="$RUN/xdg" XDG_CONFIG_HOME="$RUN/xdg" setsid "$NODE24" "$VSCODE_SERVER_MAIN" --host 127.0.0.1 --port "$PORT" \
  --without-connection-token --accept-server-license-terms --enable-smoke-test-driver --disable-telemetry \
  --disable-workspace-trust --user-data-dir "$RUN/data" --server-data-dir "$RUN/server-data" --extensions-dir "$RUN/exts" \
  > "$RUN/server.log" 2>&1 &
SPID=$!
HOLDER=
cleanup() { [ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null; kill -TERM -- "-$SPID" 2>/dev/null; sleep 1; kill -KILL -- "-$SPID" 2>/dev/null; }
trap cleanup EXIT
for _ in $(seq 1 120); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.25; done

# The client outside VS Code that keeps a command running while VS Code closes (see holdCommand.js).
node test/vscode/holdCommand.js "$OUT/endpoint.json" "$SLEEP_SECONDS" > "$RUN/holder.log" 2>&1 &
HOLDER=$!
PAYLOAD=$(node -p "encodeURIComponent(JSON.stringify([['extensionDevelopmentPath','vscode-remote://127.0.0.1:$PORT$EXT'],['extensionTestsPath','vscode-remote://127.0.0.1:$PORT$ROOT/test/vscode/suite.js']]))")
VSCODE_URL="http://127.0.0.1:$PORT/?folder=$WS&payload=$PAYLOAD" timeout 300 node test/vscode/driver.js
DRIVER_RC=$?

# "Closing VS Code leaves no process of the server or its children": the page is closed and the extension host
# ends; within a few seconds neither a server process of this run nor the command it left running may remain.
leftovers() { ps -eo pid=,args= | grep -F -e "$EXT/dist/server.js" -e "sleep $SLEEP_SECONDS" | grep -v -F -e "grep -F" ; }
CLOSE_OK=0
for _ in $(seq 1 40); do
  if [ -z "$(leftovers)" ]; then CLOSE_OK=1; break; fi
  sleep 0.5
done
if [ "$CLOSE_OK" != 1 ]; then
  echo "e2e: left behind after VS Code closed:"; leftovers
  for pid in $(leftovers | awk '{print $1}'); do kill -KILL "$pid" 2>/dev/null; done   # this run's processes only
fi
kill "$HOLDER" 2>/dev/null

echo "e2e: $(( $(date +%s) - START )) s in VS Code; artifacts in $RUN (removed when all pass, unless E2E_KEEP=1)"
node -e '
const fs = require("fs");
let results = [];
try { results = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch { console.log("e2e: the suite wrote no results (see " + process.argv[2] + ")"); }
results.push({ name: "closing VS Code leaves no process of the server or its children", ok: process.argv[3] === "1" });
if (process.argv[4] !== "0" && results.every((r) => r.ok)) results.push({ name: "the extension tests exit with code 0", ok: false });
for (const r of results) console.log(`${r.ok ? "ok" : "not ok"} - ${r.name}${r.ms !== undefined ? ` (${r.ms} ms)` : ""}${r.error ? "\n    " + r.error.split("\n").slice(0, 3).join("\n    ") : ""}`);
const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
' "$OUT/results.json" "$RUN" "$CLOSE_OK" "$DRIVER_RC"
RC=$?
# Artifacts (logs, screenshot) are kept when something failed or E2E_KEEP=1.
if [ "$RC" = 0 ] && [ -z "${E2E_KEEP:-}" ]; then cleanup; trap - EXIT; rm -rf "$RUN"; fi
exit $RC
