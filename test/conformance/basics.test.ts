import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createExecutor } from '../../src/core/exec/executor';
import { O_PATH } from '../../src/core/paths/fdpath';
import { findPidsWithEnv } from '../../src/core/exec/processes';
import type { Capability } from '../helpers/capabilities';
import { describeWith } from '../helpers/needs';
import { conformancePath, makeWorkspace, type ConformancePath, type PathName } from './paths';

/**
 * The conformance suite's plain promises, for every Linux launcher path (the executor's own suites also run
 * through the namespace launcher: executor.namespaces.test.ts): the exit status and signals come back, limits and
 * timeouts hold and leave nothing behind, and the stage runs in the folder that was checked.
 */
const ex = createExecutor({ concurrency: 2, killGraceMs: 300 });
let ws: ReturnType<typeof makeWorkspace>;
beforeAll(() => (ws = makeWorkspace()));
afterAll(async () => {
  await ex.shutdown();
  ws?.remove();
});

const PATHS: ReadonlyArray<{ readonly name: PathName; readonly needs: readonly Capability[] }> = [
  { name: 'fork-server', needs: ['fork-server'] },
  { name: 'namespaces', needs: ['namespaces'] },
  { name: 'bwrap', needs: ['bubblewrap'] },
  { name: 'plain', needs: [] },
];

for (const p of PATHS) {
  describeWith(...p.needs)(`launcher path ${p.name}: the plain promises`, () => {
    let way: ConformancePath;
    beforeAll(async () => {
      way = await conformancePath(p.name, ws);
    });
    const run = (argv: string[], extra: { timeoutMs?: number; outputLimitBytes?: number; tag?: string } = {}) =>
      ex.run({
        stages: [way.prepare({ file: argv[0]!, args: argv.slice(1) }, ws.root)],
        launcher: way.launcher,
        cwd: ws.root,
        env: { PATH: '/usr/bin:/bin', ...(extra.tag && { GS_CONFORMANCE_TAG: extra.tag }) },
        timeoutMs: extra.timeoutMs ?? 20_000,
        outputLimitBytes: extra.outputLimitBytes ?? 1 << 20,
      });

    it('returns the exit status, the output and the errors', async () => {
      const r = await run(['/bin/sh', '-c', 'echo out; echo err >&2; exit 7']);
      expect([r.outcome, r.exitCode, r.stdout, r.stderr]).toEqual(['failed', 7, 'out\n', 'err\n']);
    });

    it('reports a command that died of a signal: as the signal, or as 128+N where its namespace\'s init reports it', async () => {
      // A fault (the kernel's own signal): a command that is PID 1 of its namespace (the fork server's) ignores
      // a signal it sends itself, as every init does.
      const r = await run(['/usr/bin/perl', '-e', 'unpack("p", pack("J", 1))']);
      expect(r.outcome).toBe('failed');
      expect(r.signal === 'SIGSEGV' || r.exitCode === 128 + 11).toBe(true);
    });

    it('stops a command at its timeout and leaves none of its processes', async () => {
      const tag = `t${process.pid}${Math.random()}`;
      const r = await run(['/bin/sh', '-c', 'sleep 300 & sleep 300'], { timeoutMs: 500, tag });
      expect(r.outcome).toBe('timeout');
      expect(findPidsWithEnv('GS_CONFORMANCE_TAG', tag)).toEqual([]);
    });

    it('stops a command past its output limit (action kill) and keeps exactly the limit', async () => {
      const r = await run(['/usr/bin/yes'], { outputLimitBytes: 64 * 1024 });
      expect(r.outcome).toBe('output_limit');
      expect(r.stdout.length).toBe(64 * 1024);
    });

    // Real pipes between stages, and to the server, wherever the fork server runs (it starts bubblewrap's stages too):
    // Node's own are socket pairs, whose writer gets ECONNRESET ("Connection reset by peer") when its reader ends
    // early, and which a program cannot reopen by name (/dev/stdin: ENXIO).
    if (p.name === 'fork-server' || p.name === 'bwrap') it('lets a pipeline\'s writer die of SIGPIPE when its reader ends early (yes | head -n 1), as in a shell', async () => {
      const r = await ex.run({
        stages: [way.prepare({ file: '/usr/bin/yes', args: [] }, ws.root), way.prepare({ file: '/usr/bin/head', args: ['-n', '1'] }, ws.root)],
        launcher: way.launcher,
        cwd: ws.root,
        env: { PATH: '/usr/bin:/bin' },
        timeoutMs: 20_000,
        outputLimitBytes: 1 << 20,
      });
      expect([r.outcome, r.stdout, r.stderr]).toEqual(['ok', 'y\n', '']);
      // 141 where the namespace's init (coreutils' timeout, in the sandbox) reports its child's signal so.
      expect(r.stages[0]?.signal === 'SIGPIPE' || r.stages[0]?.exitCode === 141, JSON.stringify(r.stages)).toBe(true);
    });

    if (p.name === 'fork-server' || p.name === 'bwrap') it('lets a command reopen its input by name (cat /dev/stdin), as in a shell', async () => {
      const r = await ex.run({
        stages: [way.prepare({ file: '/bin/cat', args: ['/dev/stdin'] }, ws.root)],
        launcher: way.launcher,
        cwd: ws.root,
        env: { PATH: '/usr/bin:/bin' },
        stdin: 'given\n',
        timeoutMs: 20_000,
        outputLimitBytes: 1 << 20,
      });
      expect([r.outcome, r.stdout, r.stderr]).toEqual(['ok', 'given\n', '']);
    });

    it('runs in the workspace folder that was checked', async () => {
      const r = await run(['/bin/pwd', '-P']);
      expect(r.stdout).toBe(`${ws.root}\n`);
    });
  });
}

// The folder is held from the check to the start: a folder swapped for a link to elsewhere after the check is never
// followed. The launchers that start by Node's spawn enter the held descriptor itself; the fork server opens the
// path again and refuses what is not that folder. (Inside bubblewrap the stage enters its folder by path, within
// the sandbox's mounts: docs/isolation.md.)
for (const [name, needs] of [['fork-server', ['fork-server']], ['namespaces', ['namespaces']], ['plain', []]] as const) {
  describeWith(...needs)(`launcher path ${name}: the checked folder`, () => {
    it('runs in the folder it held, or refuses, when that folder was swapped for a link to /etc after the check', async () => {
      const way = await conformancePath(name, ws);
      const dir = path.join(ws.root, `held-${name}`);
      fs.mkdirSync(dir);
      const fd = fs.openSync(dir, O_PATH | fs.constants.O_DIRECTORY);
      try {
        const inode = fs.fstatSync(fd).ino;
        fs.renameSync(dir, `${dir}.moved`);
        fs.symlinkSync('/etc', dir);
        const started = way.launcher.start({
          stages: [way.prepare({ file: '/usr/bin/stat', args: ['-c', '%i', '.'] }, dir)],
          env: { PATH: '/usr/bin:/bin' },
          cwd: { real: dir, path: `/proc/self/fd/${fd}`, fd },
          stdin: 'ignore',
          stdout: 'pipe',
        });
        if (name === 'fork-server') return await expect(started).rejects.toThrow(/is not the one that was checked/);
        const [stage] = await started;
        let out = '';
        stage!.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        await new Promise((resolve) => stage!.once('close', resolve));
        expect(out.trim()).toBe(String(inode));
      } finally {
        fs.closeSync(fd);
      }
    });
  });
}
