// What every driver of the approval panel (test/vscode-*/ui.js, run by test/vscode/driver.js) shares: where the
// panel's webview is on the page, and telling the suite the UI checks are over (it waits for $E2E_OUT/ui-done).
'use strict';
const fs = require('fs'), path = require('path');

/** The approval panel's content frame: VS Code's webview iframe of this extension, then its active frame. */
function panelFrameSelector() {
  return `iframe.webview[src*="extensionId=${process.env.EXT_ID}"]`;
}
function approvalPanel(page) {
  return page.frameLocator(panelFrameSelector()).frameLocator('iframe#active-frame');
}

/** The driver's `play`: runs `playCards(page, check, say)`, then writes ui-done whatever happened. */
function playThenDone(playCards) {
  return async function play(page, { scenario: check, say }) {
    try {
      await playCards(page, check, say);
    } finally {
      fs.writeFileSync(path.join(process.env.E2E_OUT, 'ui-done'), '');
    }
  };
}

module.exports = { panelFrameSelector, approvalPanel, playThenDone };
