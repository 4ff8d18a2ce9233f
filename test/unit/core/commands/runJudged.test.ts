import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog, memorySink } from '../../../../src/core/audit';
import { runCommand, type CommandDeps } from '../../../../src/core/commands/run';
import { createExecutor } from '../../../../src/core/exec/executor';
import type { ExecSpec, Executor } from '../../../../src/core/exec/types';
import { parsePolicy, type PolicyInput } from '../../../../src/core/policy';
import { makeSandbox } from '../tempWorkspace';

/** runCommand spawns the program decide judged, under the name it was called by; a missing program is never spawned. */
function deps(overrides: Partial<PolicyInput>, executor: Executor): CommandDeps {
  const s = makeSandbox();
  return {
    policy: () => parsePolicy({ root: s.ws, mode: 'auto', ...overrides }),
    executor,
    approver: () => ({ kind: 'test', approve: async () => ({ approved: false, by: 'user' }) }),
    audit: new AuditLog([memorySink()]),
    isolation: () => ({ kind: 'none' }),
    parentEnv: { PATH: '/usr/local/bin:/usr/bin:/bin' },
  };
}

/** Records what the executor was asked to run, then really runs it. */
function recording(): { executor: Executor; specs: ExecSpec[] } {
  const real = createExecutor({ concurrency: 2 });
  const specs: ExecSpec[] = [];
  return { specs, executor: { ...real, run: (spec) => (specs.push(spec), real.run(spec)), shutdown: () => real.shutdown(), setConcurrency: (n) => real.setConcurrency(n), get active() { return real.active; }, get queued() { return real.queued; } } };
}

describe('runCommand runs the judged program', () => {
  it('starts the absolute path found by the PATH lookup, at the end of the launcher\'s argv, with the name it was called by (echo prints its arguments)', async () => {
    const { executor, specs } = recording();
    const r = await runCommand({ command: ['echo', 'judged'] }, deps({ allowCommands: ['echo'], safePath: '/usr/bin:/bin' }, executor), { tool: 't' });
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('judged\n');
    const stage = specs[0]!.stages[0]!;
    const program = stage.program!;
    expect(path.isAbsolute(program.file)).toBe(true);
    expect(fs.realpathSync(program.file)).toBe(fs.realpathSync(path.join(path.dirname(program.file), 'echo')));
    expect(program.argv0).toBe('echo');
    // The launcher wraps the judged program, never replaces it: its argv ends with exactly that program.
    expect([stage.file, ...stage.args].slice(-2)).toEqual([program.file, 'judged']);
  });

  it('never spawns a program the PATH lookup did not find (a later lookup could find an unjudged one)', async () => {
    const { executor, specs } = recording();
    const r = await runCommand({ command: ['no-such-program-gs', 'x'] }, deps({ allowCommands: ['no-such-program-gs'] }, executor), { tool: 't' });
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/no-such-program-gs ENOENT/);
    expect(specs).toEqual([]);
  });
});
