import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { guardFor } from '../../../src/core/paths/guard';
import { parsePolicy } from '../../../src/core/policy';
import { tempWorkspace } from '../files/helpers';
import { stage, tagged } from './helpers';

// The redirect opens at USE time, independent of the decision (a file can change between the two): the one list
// of hidden / read-only paths, the hard-link rule, links on any component, FIFOs — all checked again there.
let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());
const ex = createExecutor({ concurrency: 2 });
const p = (rel: string) => path.join(ws.root, rel);

describe('redirects opened at use time by descriptor', () => {
  it('refuses a hidden input file and a read-only output file that the decision never saw as such', async () => {
    fs.mkdirSync(p('secret'));
    fs.writeFileSync(p('secret/key'), 'HIDDEN\n');
    fs.mkdirSync(p('deploy'));
    fs.writeFileSync(p('deploy/prod.conf'), 'prod\n');
    const pathGuard = guardFor(parsePolicy({ root: ws.root, sandboxHiddenPaths: ['secret'], sandboxReadOnlyPaths: ['deploy'] }));
    const r = await ex.run(tagged([stage('cat')], { cwd: ws.root, stdinFile: p('secret/key'), pathGuard }).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/hidden path/);
    expect(r.stdout).toBe('');
    const w = await ex.run(tagged([stage('echo', 'x')], { cwd: ws.root, stdoutFile: { path: p('deploy/prod.conf'), append: true }, pathGuard }).spec);
    expect(w.error).toMatch(/read-only path/);
    expect(fs.readFileSync(p('deploy/prod.conf'), 'utf8')).toBe('prod\n');
  });

  it('refuses a folder on the path that became a link, and a file that gained a hard link outside', async () => {
    fs.mkdirSync(p('sub'));
    fs.writeFileSync(path.join(ws.outside, 'o.txt'), 'OUT\n');
    const pathGuard = guardFor(parsePolicy({ root: ws.root }));
    // Decided as ws/sub/o.txt (real), then sub became a link to outside.
    fs.rmdirSync(p('sub'));
    fs.symlinkSync(ws.outside, p('sub'));
    const r = await ex.run(tagged([stage('cat')], { cwd: ws.root, stdinFile: p('sub/o.txt'), pathGuard }).spec);
    expect(r.error).toMatch(/symbolic link now/);
    fs.linkSync(path.join(ws.outside, 'o.txt'), p('hl'));
    const a = await ex.run(tagged([stage('echo', 'PLANTED')], { cwd: ws.root, stdoutFile: { path: p('hl'), append: true }, pathGuard }).spec);
    expect(a.error).toMatch(/2 hard links/);
    expect(fs.readFileSync(path.join(ws.outside, 'o.txt'), 'utf8')).toBe('OUT\n');
  });

  it('pumps an input file through a pipe (the command gets no descriptor of it) and never opens a FIFO', async () => {
    fs.writeFileSync(p('in.txt'), 'data\n');
    const pathGuard = guardFor(parsePolicy({ root: ws.root }));
    const r = await ex.run(tagged([stage('readlink', '/proc/self/fd/0')], { cwd: ws.root, stdinFile: p('in.txt'), pathGuard }).spec);
    expect(r.stdout).toMatch(/^(pipe|socket):\[/); // Node's stdio pipe, not the file
    expect(r.stdout).not.toContain('in.txt');
    execFileSync('mkfifo', [p('fifo')]);
    // Opening a FIFO with no writer blocks for ever: returning at all (within the test's timeout) is the proof.
    const f = await ex.run(tagged([stage('cat')], { cwd: ws.root, stdinFile: p('fifo'), pathGuard }).spec);
    expect(f.error).toMatch(/FIFO/);
  });
});
