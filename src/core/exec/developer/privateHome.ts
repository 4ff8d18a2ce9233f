import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hashOf } from '../../files/backupStore';
import { PRIVATE_HOME_CACHES } from '../../isolation/context';

/**
 * The commands' own HOME: one folder per workspace, outside it, private to the user (mode 0700), where package
 * managers keep their caches (npm's ~/.npm, pip's ~/.cache/pip, cargo's registry, Go's module cache) from one
 * call to the next. Inside the sandbox HOME is a fresh empty folder at this path for every call, with only the
 * cache folders (isolation/context.ts PRIVATE_HOME_CACHES) bound from here: a configuration file one command
 * writes (~/.curlrc, ~/.gitconfig) does not reach the next. The person's real home folder stays hidden. VS Code
 * hands the server a folder in the extension's storage (FolderInit.commandHome); standalone it is
 * `$XDG_STATE_HOME/guarded-shell/home/<hash of the root>`.
 *
 * Without a sandbox HOME is this folder too: commands then see the same HOME either way (the same caches, the
 * same results), and programs do not pick up the person's own dotfiles by default (git's credential helpers and
 * aliases, npm's tokens in ~/.npmrc) — though, unsandboxed, a command can still open them by their path.
 * An operator who wants the real one passes HOME through (`childEnvAllowlist`).
 */

/** The standalone location for a workspace root. */
export function defaultCommandHome(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
  return path.join(state, 'guarded-shell', 'home', hashOf(Buffer.from(root)).slice(0, 16));
}

/**
 * Creates the folder if needed (parents with the usual mode, the folder itself 0700) and returns its real path.
 * Throws when it is not a folder of this user (a link, a file, someone else's folder): nobody else's folder may
 * become the commands' HOME.
 */
export function ensurePrivateHome(dir: string): string {
  if (!path.isAbsolute(dir)) throw new Error(`the commands' HOME must be an absolute path, got "${dir}"`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`the commands' HOME "${dir}" is not a folder (a link or a file is not accepted)`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`the commands' HOME "${dir}" belongs to another user`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  // The caches must exist to be bound into the sandbox (a missing path is never mounted).
  for (const cache of PRIVATE_HOME_CACHES) fs.mkdirSync(path.join(dir, cache), { recursive: true });
  return fs.realpathSync(dir);
}
