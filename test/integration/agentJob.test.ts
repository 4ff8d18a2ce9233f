import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWith } from '../helpers/needs';
import { resultLine, runGoals, summary, type GoalResult } from '../agent/agent';
import { IDENTITY, jsFixture, ownProgramsFixture, pythonFixture, type Fixture } from '../agent/fixtures';
import { planFor } from '../agent/plan';
import { CONFIGURATIONS, identityEnv, startSession, type ConfigurationName } from '../agent/sessions';

/**
 * Issue 26, "an agent can do the whole job": a scripted agent fixes a small bug in three kinds of project — a
 * JavaScript project (npm test, npm run lint), a Python project (pytest in a virtual environment, pip, a Makefile)
 * and a project whose tests run through its own programs (bin/tt, ./install.sh, scripts/) — through the REAL
 * server over the real MCP SDK client, inside the real bubblewrap sandbox. Every goal (list, read, git status, log
 * and diff, grep, install, the tests failing, the edit, the tests passing, the commit, a project script, an
 * interpreter one-liner, lint) is judged by its real effect. Counted per configuration:
 * - the five-minute setup the docs recommend (the same object the docs are generated from): at least 95 %;
 * - VS Code's defaults with a person who approves every card, misses included: at least 80 %.
 * Each goal prints one line; a failed one says which call failed and why (that is the product feedback).
 */

const THRESHOLD = { recommended: 0.95, vscode: 0.8 } as const;

let base: string;
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-agent-job-')));
});
afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

async function runConfiguration(config: ConfigurationName): Promise<GoalResult[]> {
  const dir = path.join(base, config);
  fs.mkdirSync(dir);
  const env = identityEnv(dir, IDENTITY);
  const fixtures: Fixture[] = [jsFixture(dir), pythonFixture(dir), ownProgramsFixture(dir)];
  const results: GoalResult[] = [];
  for (const f of fixtures) {
    const session = await startSession(config, f.ws, { env });
    try {
      const done = await runGoals(session, f.spec.name, planFor(f.spec, f.ws), f.ws);
      console.log(done.map((r) => `[${config}] ${resultLine(r)} (${r.ms} ms)`).join('\n'));
      results.push(...done);
    } finally {
      await session.close();
    }
  }
  console.log(summary(`[${config}] ${CONFIGURATIONS[config]}`, results));
  return results;
}

describeWith('bubblewrap', 'git', 'project-tools')('a scripted agent fixes a bug in each kind of project', () => {
  for (const config of ['recommended', 'vscode'] as const) {
    it(`${CONFIGURATIONS[config]}: at least ${THRESHOLD[config] * 100} % of the goals done`, async () => {
      const results = await runConfiguration(config);
      const failed = results.filter((r) => !r.done).map(resultLine);
      expect(results.length).toBeGreaterThanOrEqual(40);
      expect(results.filter((r) => r.done).length / results.length, `goals not done:\n${failed.join('\n')}`).toBeGreaterThanOrEqual(THRESHOLD[config]);
    }, 240_000);
  }

  it('the control: with no configuration (auto, the read-mostly allowlist) the project\'s tools are refused, and each failed goal says so', async () => {
    const dir = path.join(base, 'standalone');
    fs.mkdirSync(dir);
    const f = jsFixture(dir);
    const session = await startSession('standalone', f.ws, { env: identityEnv(dir, IDENTITY) });
    const results = await runGoals(session, f.spec.name, planFor(f.spec, f.ws), f.ws).finally(() => session.close());
    console.log(results.map((r) => `[standalone] ${resultLine(r)}`).join('\n'));
    const failed = Object.fromEntries(results.filter((r) => !r.done).map((r) => [r.goal.id, r.why]));
    // Reading works; what needs git, npm or node is refused before anything runs, naming the program.
    expect(results.filter((r) => r.done).map((r) => r.goal.id)).toEqual(['list', 'read', 'grep', 'edit']);
    expect(failed.install).toMatch(/^npm install: refused \(COMMAND_NOT_ALLOWED, allowlist.not-listed\): Command not allowed: npm /);
    expect(failed.commit).toMatch(/^git add src\/calc.js: refused \(COMMAND_NOT_ALLOWED/);
    expect(failed['one-liner']).toMatch(/^node -e .*: refused \(COMMAND_NOT_ALLOWED/);
    expect(fs.existsSync(path.join(f.ws, 'node_modules'))).toBe(false);
  }, 60_000);
});
