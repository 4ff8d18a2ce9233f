# e2e-lib.sh: the setup shared by the real-VS-Code end-to-end runners (scripts/e2e-vscode.sh,
# test/vscode-approval/panel.sh and defaults.sh, test/vscode-multiroot/run.sh), sourced by each. Route B of vscode-e2e.md: the VS Code server bundled in
# code-server runs the extension from a staged copy of exactly what the .vsix holds; the suite's extensionTestsPath
# module runs in its extension host; test/vscode/driver.js (headless Chromium) opens the workbench.
# A runner calls, in order:
#   e2e_prepare <run-dir-prefix>      setup, production build, stage the .vsix files; sets RUN EXT WS OUT, exports
#                                     E2E_OUT E2E_USER_SETTINGS EXT_ID PLAYWRIGHT_CORE
#   e2e_write_settings <<JSON ...     the user settings: the common quiet-workbench ones plus the suite's lines
#   (export what the suite reads: the extension host inherits the VS Code server's environment)
#   e2e_start_server                  sets PORT START SPID; cleanup on EXIT (calls e2e_cleanup_hook if defined);
#                                     with E2E_SERVER_HOME set, that folder is the server's HOME (the extension host's
#                                     and so Guarded Shell's: its ~/.gitconfig is the person's), not the runner's
#   e2e_run_driver <suite.js> <seconds> [player.js]   sets DRIVER_RC
#   e2e_wait_no_leftovers             (after the driver) sets CLOSE_OK; needs a `leftovers` function
#   e2e_report "<extra check name>" <1|0> ...          prints every result and "N passed, M failed"; returns 1 on any failure
#   e2e_finish <rc>                   removes the run folder when all passed (unless E2E_KEEP=1), exits <rc>
# Every early failure prints "0 passed, 1 failed", so the last line always counts.

e2e_die() { echo "e2e: $1"; echo "0 passed, 1 failed"; exit 1; }

e2e_prepare() {
  local setup_line files f
  setup_line=$(bash scripts/e2e-setup.sh | tail -1) || e2e_die "setup failed"
  eval "$setup_line"   # NODE24=… VSCODE_SERVER_MAIN=…
  # The production bundles, as `npm run package` builds them.
  node esbuild.mjs --production --quiet || e2e_die "build failed"
  RUN=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  EXT="$RUN/ext"; WS="$RUN/ws"; OUT="$RUN/out"
  mkdir -p "$EXT" "$WS" "$OUT" "$RUN/data/User" "$RUN/server-data" "$RUN/exts"
  # Exactly the files the .vsix ships (vsce applies .vscodeignore), so a file missing from the package fails here.
  files=$(GUARDED_SHELL_NODE22="$NODE24" node scripts/vsce.mjs ls --no-dependencies) || e2e_die "vsce ls failed"
  while IFS= read -r f; do [ -n "$f" ] && mkdir -p "$EXT/$(dirname "$f")" && cp "$f" "$EXT/$f"; done <<< "$files"
  export E2E_OUT="$OUT" E2E_USER_SETTINGS="$RUN/data/User/settings.json"
  EXT_ID=$(node -p "const p=require('./package.json'); p.publisher+'.'+p.name")
  export EXT_ID
  export PLAYWRIGHT_CORE="$ROOT/node_modules/playwright-core"
}

# The suite's own settings come on stdin: JSON members without the braces (the last one without a comma).
e2e_write_settings() {
  {
    cat <<'JSON'
{
  "security.workspace.trust.enabled": false, "workbench.startupEditor": "none", "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true, "update.mode": "none", "chat.disableAIFeatures": true,
  "workbench.enableExperiments": false,
JSON
    cat
    echo "}"
  } > "$E2E_USER_SETTINGS"
  node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$E2E_USER_SETTINGS" || e2e_die "the user settings are not JSON"
}

e2e_cleanup() {
  if declare -F e2e_cleanup_hook >/dev/null; then e2e_cleanup_hook; fi
  # The server runs in its own session (setsid): its whole process group goes.
  kill -TERM -- "-$SPID" 2>/dev/null; sleep 1; kill -KILL -- "-$SPID" 2>/dev/null
}

e2e_start_server() {
  PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
  START=$(date +%s)
  XDG_DATA_HOME="$RUN/xdg" XDG_CONFIG_HOME="$RUN/xdg" setsid env ${E2E_SERVER_HOME:+HOME="$E2E_SERVER_HOME"} "$NODE24" "$VSCODE_SERVER_MAIN" --host 127.0.0.1 --port "$PORT" \
    --without-connection-token --accept-server-license-terms --enable-smoke-test-driver --disable-telemetry \
    --disable-workspace-trust --user-data-dir "$RUN/data" --server-data-dir "$RUN/server-data" --extensions-dir "$RUN/exts" \
    > "$RUN/server.log" 2>&1 &
  SPID=$!
  trap e2e_cleanup EXIT
  for _ in $(seq 1 120); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.25; done
}

# $1: the extensionTestsPath module (repository-relative), $2: the driver's hard limit in seconds, $3: a player.
# VS Code opens $WS, or the .code-workspace file $E2E_WORKSPACE_FILE when that is set (a multi-root workspace).
e2e_run_driver() {
  local payload target="folder=$WS"
  [ -n "${E2E_WORKSPACE_FILE:-}" ] && target="workspace=$E2E_WORKSPACE_FILE"
  payload=$(node -p "encodeURIComponent(JSON.stringify([['extensionDevelopmentPath','vscode-remote://127.0.0.1:$PORT$EXT'],['extensionTestsPath','vscode-remote://127.0.0.1:$PORT$ROOT/$1']]))")
  PLAYER=${3:-}
  VSCODE_URL="http://127.0.0.1:$PORT/?$target&payload=$payload" timeout "$2" node test/vscode/driver.js ${PLAYER:+"$PLAYER"}
  DRIVER_RC=$?
}

# After VS Code closed: waits (20 s at most) until `leftovers` — a function the runner defines that prints this run's
# processes, one per line — prints nothing. Sets CLOSE_OK=1 then; otherwise names what is left and kills it (this
# run's processes only).
e2e_wait_no_leftovers() {
  CLOSE_OK=0
  for _ in $(seq 1 40); do
    if [ -z "$(leftovers)" ]; then CLOSE_OK=1; return; fi
    sleep 0.5
  done
  echo "e2e: left behind after VS Code closed:"; leftovers
  for pid in $(leftovers | awk '{print $1}'); do kill -KILL "$pid" 2>/dev/null; done
}

# Arguments: pairs of a check the runner made itself and its outcome (1 = passed).
e2e_report() {
  echo "e2e: $(( $(date +%s) - START )) s in VS Code; artifacts in $RUN (removed when all pass, unless E2E_KEEP=1)"
  node -e '
const fs = require("fs");
const [out, driverRc, played, ...extra] = process.argv.slice(1);
const read = (f) => { try { return JSON.parse(fs.readFileSync(`${out}/${f}`, "utf8")); } catch { return null; } };
const results = [...(read("results.json") || [{ name: "the extension tests wrote results", ok: false }])];
// ui-results.json: the checks of the person the driver played at the workbench (when it played one).
if (played) results.push(...(read("ui-results.json") || [{ name: "the UI driver wrote results", ok: false }]));
for (let i = 0; i + 1 < extra.length; i += 2) results.push({ name: extra[i], ok: extra[i + 1] === "1" });
if (driverRc !== "0" && results.every((r) => r.ok)) results.push({ name: "the extension tests exit with code 0", ok: false });
for (const r of results) console.log(`${r.ok ? "ok" : "not ok"} - ${r.name}${r.ms !== undefined ? ` (${r.ms} ms)` : ""}${r.error ? "\n    " + String(r.error).split("\n").slice(0, 4).join("\n    ") : ""}`);
const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
' "$OUT" "$DRIVER_RC" "$PLAYER" "$@"
}

e2e_finish() {
  # Artifacts (logs, screenshots) are kept when something failed or E2E_KEEP=1.
  if [ "$1" = 0 ] && [ -z "${E2E_KEEP:-}" ]; then e2e_cleanup; trap - EXIT; rm -rf "$RUN"; fi
  exit "$1"
}
