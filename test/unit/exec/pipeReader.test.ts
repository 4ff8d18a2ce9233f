import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PipeReader } from '../../../src/core/exec/zygote/pipeReader';

// The reader of a spare's output (src/core/exec/zygote/pipeReader.ts) on real kernel pipes: a FIFO opened at both
// ends in this process, its write end standing for the command (or for a process that was handed the pipe).

let dir: string;
let writer: number | undefined;

/** A pipe: the reader on its non-blocking read end, and its write end. */
function pipe(): { fifo: string; reader: PipeReader; chunks: Buffer[]; closes: () => number; write: (s: string | Buffer) => void; endWriter: () => void } {
  const fifo = path.join(dir, `p${Math.random().toString(36).slice(2)}`);
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const readEnd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const w = fs.openSync(fifo, fs.constants.O_WRONLY);
  writer = w;
  const reader = new PipeReader(readEnd);
  const chunks: Buffer[] = [];
  let closed = 0;
  reader.on('data', (c: Buffer) => chunks.push(c));
  reader.once('close', () => closed++);
  return {
    fifo,
    reader,
    chunks,
    closes: () => closed,
    write: (s) => void fs.writeSync(w, typeof s === 'string' ? Buffer.from(s) : s),
    endWriter: () => {
      fs.closeSync(w);
      writer = undefined;
    },
  };
}

const closedSoon = (reader: PipeReader) => new Promise<void>((resolve) => reader.once('close', () => resolve()));

beforeEach(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-pipereader-'))));
afterEach(() => {
  if (writer !== undefined) fs.closeSync(writer);
  writer = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('pipe reader', () => {
  it('reads an ended writer\'s whole output in one drain, to the end of the pipe, and closes once', () => {
    const p = pipe();
    const text = 'x'.repeat(60_000) + 'end\n';
    p.write(text);
    p.endWriter();
    expect(p.reader.drain()).toBe(true);
    expect(Buffer.concat(p.chunks).toString()).toBe(text);
    expect(p.closes()).toBe(1);
    expect(p.reader.held).toBe(false);
    expect(p.reader.drain()).toBe(true); // again: nothing, no second close
    expect(p.closes()).toBe(1);
  });

  it('gives every chunk its own bytes (a kept chunk is not overwritten by the next read)', () => {
    const first = pipe();
    const second = pipe();
    first.write('first');
    first.endWriter();
    first.reader.drain();
    second.write('second');
    second.endWriter();
    second.reader.drain();
    expect(first.chunks.map(String)).toEqual(['first']);
    expect(second.chunks.map(String)).toEqual(['second']);
  });

  it('keeps what it read while a writer still holds the pipe (a process handed it), and streams the rest once attached', async () => {
    const p = pipe();
    p.write('one ');
    expect(p.reader.drain()).toBe(false);
    expect(Buffer.concat(p.chunks).toString()).toBe('one ');
    p.reader.attach();
    expect(p.reader.held).toBe(false);
    const closed = closedSoon(p.reader);
    p.write('two');
    p.endWriter();
    await closed;
    expect(Buffer.concat(p.chunks).toString()).toBe('one two');
    expect(p.closes()).toBe(1);
  });

  it('lets a writer blocked on a full pipe go on once attached, and delivers all it wrote', async () => {
    const p = pipe();
    // 1 MiB from another process: sixteen times what the pipe holds, so it blocks until the reader streams. (Our
    // own write end stays open meanwhile: the pipe has a writer however late the child opens it.)
    const child = spawn('sh', ['-c', 'head -c 1048576 /dev/zero > "$0"', p.fifo], { stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise((r) => setTimeout(r, 100));
    expect(p.reader.drain()).toBe(false); // what the pipe holds now; its writers are still there
    p.reader.attach();
    expect(await exited).toBe(0);
    const closed = closedSoon(p.reader);
    p.endWriter();
    await closed;
    expect(Buffer.concat(p.chunks).length).toBe(1024 * 1024);
  });

  it('reads no more than it is given in one drain, and streams the rest once attached', async () => {
    const p = pipe();
    p.write('y'.repeat(60_000));
    expect(p.reader.drain(16_384)).toBe(false);
    expect(Buffer.concat(p.chunks).length).toBe(16_384);
    const closed = closedSoon(p.reader);
    p.reader.attach();
    p.endWriter();
    await closed;
    expect(Buffer.concat(p.chunks).toString()).toBe('y'.repeat(60_000));
  });

  it('hands a writer that keeps writing (a process outside the namespace) to streaming: drain returns', async () => {
    const p = pipe();
    const child = spawn('sh', ['-c', 'exec yes > "$0"', p.fifo], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise((r) => setTimeout(r, 100));
    expect(p.reader.drain()).toBe(false);
    expect(Buffer.concat(p.chunks).length).toBeLessThanOrEqual(1024 * 1024);
    p.reader.attach();
    await new Promise((r) => setTimeout(r, 50));
    const closed = closedSoon(p.reader);
    p.reader.destroy();
    await closed;
    child.kill('SIGKILL');
    await exited;
  });

  it('lets a listener destroy it mid-drain (an output limit): closed once, the drain ends there', () => {
    const p = pipe();
    p.reader.on('data', () => p.reader.destroy());
    p.write('a'.repeat(1000));
    p.endWriter();
    expect(p.reader.drain()).toBe(true);
    expect(p.chunks.length).toBe(1);
    expect(p.closes()).toBe(1);
  });

  it('closes once when destroyed before anything was read, and once when destroyed while streaming', async () => {
    const idle = pipe();
    idle.reader.destroy();
    idle.reader.destroy();
    expect(idle.closes()).toBe(1);
    expect(idle.reader.drain()).toBe(true);
    idle.endWriter();

    const streaming = pipe();
    streaming.reader.attach();
    const closed = closedSoon(streaming.reader);
    streaming.reader.destroy();
    await closed;
    expect(streaming.closes()).toBe(1);
  });
});
