import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach } from 'vitest';

/**
 * Real temporary folders for path tests: a workspace root and a sibling "outside" folder, both with their real
 * paths (so tests compare against what realpath returns). Every folder made here is removed after each test.
 */
const made: string[] = [];

afterEach(() => {
  while (made.length) fs.rmSync(made.pop()!, { recursive: true, force: true });
});

export interface Sandbox {
  /** Parent folder holding `ws` and `outside` (and `ws-evil`, a sibling whose name starts like the root's). */
  readonly base: string;
  readonly ws: string;
  readonly outside: string;
  readonly wsEvil: string;
}

export function makeSandbox(): Sandbox {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-core-')));
  made.push(base);
  const ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const wsEvil = path.join(base, 'ws-evil');
  for (const d of [ws, outside, wsEvil]) fs.mkdirSync(d);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside secret\n');
  fs.writeFileSync(path.join(wsEvil, 'x.txt'), 'evil\n');
  return { base, ws, outside, wsEvil };
}

export function write(file: string, text = ''): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}
