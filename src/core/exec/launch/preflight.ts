import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Program } from './contract';

/**
 * Why a program cannot start, in the words of Node's spawn (`spawn <file> ENOENT`, `… EACCES`), or undefined. A
 * launcher that starts its stage through a chain of helpers (unshare, bwrap, sandbox-exec) checks this first: the
 * program's own exec happens at the end of the chain, where a failure is only an exit status and a line of text.
 * Looked up on the call's PATH as execvp does; the exec itself still decides (this only words the common failure).
 */
export function startError(program: Program, env: Readonly<Record<string, string>>): Error | undefined {
  const candidates = program.file.includes('/') ? [program.file] : (env.PATH ?? '').split(':').filter(Boolean).map((d) => path.join(d, program.file));
  let code = 'ENOENT';
  for (const candidate of candidates) {
    try {
      if (!fs.statSync(candidate).isFile()) {
        code = 'EACCES';
        continue;
      }
      fs.accessSync(candidate, fs.constants.X_OK);
      return undefined;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EACCES') code = 'EACCES';
    }
  }
  return Object.assign(new Error(`spawn ${program.file} ${code}`), { code });
}
