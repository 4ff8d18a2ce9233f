// How the approval panel's diff table reads, row by row: [kind, text] for file and hunk header rows,
// [kind, old line, new line, sign, text] for ctx/add/del lines. Shared by the panel's Chromium tests
// (test/webview/panel.test.ts) and the approval e2e in a real VS Code (test/vscode-approval/ui.js).
// It runs INSIDE the page (Playwright's $$eval / evaluateAll serialize it): it must use nothing from outside.
'use strict';
function readDiffRows(trs) {
  return trs.map((tr) => {
    const kind = tr.className.replace('line ', '');
    const cells = [...tr.querySelectorAll('td')];
    if (cells.length === 1) return [kind, cells[0].textContent];
    return [kind, cells[0].textContent, cells[1].textContent, cells[2].querySelector('[aria-hidden]').textContent, cells[3].textContent];
  });
}
module.exports = { readDiffRows };
