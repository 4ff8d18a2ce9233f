#!/usr/bin/env bash
# The approval panel in a real VS Code, in two VS Code sessions one after the other:
#   panel.sh     the panel's own behaviour (cards, Deny reasons, diffs, batches, remembered approvals, Undo);
#   defaults.sh  VS Code's defaults as a new user has them (no guardedShell setting): misses become cards, a git
#                commit after approvals (each command's effect applied from its card), "Always allow" with an edited rule;
#   effects.sh   command preview: effect cards with the diff before anything is written, Apply, Discard, Undo of a
#                command from the history, a conflict shown and not overwritten.
# Usage: bash test/vscode-approval/run.sh [--screenshot docs/approval-panel.png]   (the screenshot is panel.sh's)
# Prints each session's results, then "N passed, M failed" for both; exit 0 only when everything passed.
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
LAST=$(mktemp)
trap 'rm -f "$LAST"' EXIT
passed=0 failed=0
for part in panel defaults effects; do
  echo "== test/vscode-approval/$part.sh"
  if [ "$part" = panel ]; then bash "$DIR/$part.sh" "$@"; else bash "$DIR/$part.sh"; fi | tee "$LAST"
  # Each session prints "N passed, M failed" last; a session that printed no count failed as a whole.
  if [[ "$(tail -1 "$LAST")" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
  else
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
