// Helpers shared by the real-VS-Code end-to-end suites (test/vscode, test/vscode-approval): polling, assertions,
// and the scenario recorder whose results.json the runners (scripts/e2e-lib.sh) print. Plain Node, no `vscode`
// import, so the Playwright side (driver.js and the approval UI player) uses the same recorder.
'use strict';
const fs = require('fs');
const path = require('path');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/** Equality as JSON, with both sides shown when they differ. */
function assertEqual(actual, expected, what) {
  const a = JSON.stringify(actual), b = JSON.stringify(expected);
  if (a !== b) throw new Error(`${what}:\n  actual   ${a}\n  expected ${b}`);
}

/** Rejects after `ms` with a message that names `what` (a call that hangs fails the scenario, not the run). */
async function within(ms, what, p) {
  let timer;
  try {
    return await Promise.race([p, new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`timeout after ${ms} ms: ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls until check() returns a truthy value; a throw counts as "not yet" and is shown if time runs out. */
async function until(what, check, ms = 30000, every = 250) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try {
      last = await check();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await sleep(every);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

/**
 * Records named scenarios in $E2E_OUT: one line each in `logName`, and the list written by finish() to
 * `resultsName`. A failed scenario is recorded and the next one runs (one VS Code start serves them all).
 */
function recorder({ logName, resultsName, prefix = '' }) {
  const out = process.env.E2E_OUT;
  const results = [];
  const say = (m) => fs.appendFileSync(path.join(out, logName), `${new Date().toISOString()} ${m}\n`);
  async function scenario(name, fn) {
    const t0 = Date.now();
    try {
      await fn();
      results.push({ name: `${prefix}${name}`, ok: true, ms: Date.now() - t0 });
      say(`ok - ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      results.push({ name: `${prefix}${name}`, ok: false, ms: Date.now() - t0, error: String((e && e.stack) || e) });
      say(`not ok - ${name}: ${(e && e.stack) || e}`);
    }
  }
  /** Writes the results; returns the failed ones. */
  function write() {
    fs.writeFileSync(path.join(out, resultsName), JSON.stringify(results, null, 2));
    return results.filter((r) => !r.ok);
  }
  /** Writes the results and throws when any failed (in the extension host: codeAutomationExit 1). */
  function finish() {
    const failed = write();
    if (failed.length) throw new Error(`${failed.length} scenario(s) failed: ${failed.map((f) => f.name).join('; ')}`);
  }
  return { results, say, scenario, write, finish };
}

module.exports = { sleep, assert, assertEqual, within, until, recorder };
