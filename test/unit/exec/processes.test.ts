import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { descendantsOf, findPidsWithEnv, isProcessAlive, listProcesses, readProcStat } from '../../../src/core/exec/processes';
import { sleep } from './helpers';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.pid) try { process.kill(-c.pid, 'SIGKILL'); } catch { /* gone */ }
});

function start(script: string, env: Record<string, string>): ChildProcess {
  const c = spawn('sh', ['-c', script], { env: { PATH: '/usr/bin:/bin', ...env }, stdio: 'ignore', detached: true });
  children.push(c);
  return c;
}

describe('process table helpers (/proc)', () => {
  it('finds a process by an environment entry that sits past 64 KiB of other variables (chunked read)', async () => {
    const tag = randomUUID();
    const filler = { A: 'a'.repeat(40_000), B: 'b'.repeat(40_000), C: 'c'.repeat(40_000) };
    const c = start('exec sleep 30', { ...filler, GS_PROBE: tag });
    await sleep(200);
    expect(findPidsWithEnv('GS_PROBE', tag)).toEqual([c.pid]);
  });

  it('matches whole entries only: a longer value or a longer name with the same prefix is not a hit', async () => {
    const tag = randomUUID();
    start('exec sleep 30', { GS_PROBE: `${tag}x`, XGS_PROBE: tag });
    await sleep(200);
    expect(findPidsWithEnv('GS_PROBE', tag)).toEqual([]);
  });

  it('follows parent links to grandchildren and reads process groups', async () => {
    const c = start('sleep 30 & sleep 30 & wait', {});
    await sleep(200);
    const kids = descendantsOf([c.pid!]);
    expect(kids).toHaveLength(2);
    for (const k of kids) expect(readProcStat(k)!.pgid).toBe(c.pid);
    expect(listProcesses().some((p) => p.pid === c.pid && p.ppid === process.pid)).toBe(true);
  });

  it('parses a command name with spaces and parentheses in /proc/<pid>/stat', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-proc-'));
    try {
      fs.symlinkSync('/bin/sleep', path.join(dir, 'a) b (c'));
      const c = start(`exec "${dir}/a) b (c" 30`, {});
      await sleep(200);
      expect(fs.readFileSync(`/proc/${c.pid}/comm`, 'utf8')).toBe('a) b (c\n');
      const entry = readProcStat(c.pid!);
      expect(entry?.ppid).toBe(process.pid);
      expect(entry?.pgid).toBe(c.pid);
      expect(isProcessAlive(c.pid!)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
