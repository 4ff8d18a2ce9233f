import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { attempt } from '../attempt';
import { ToolError } from '../errors';
import { isInside } from '../paths/confine';
import { at, closeQuietly, createExclusive, openEntry, openRootDir, procFdWorks, reopen, syncDir, type Dir } from '../paths/fdpath';

/**
 * `editBackup: storage`: the previous bytes of every file change, kept OUTSIDE the workspace so the Explorer shows
 * no `.bkN` files and an agent's tools cannot reach them (the store is not below the root). One entry per change
 * (keyed by its request id), one file per entry, written atomically (temp file created O_EXCL in the store's
 * folder, fsync, rename; every name relative to the held folder descriptor). Bounded by count and bytes: the
 * oldest entries are dropped. Undo (undo.ts) reads an entry back.
 */

/** One file of a change, as the change is about to apply it. `null` = the file does not exist (before) / will not (after). */
export interface KeptFile {
  /** Path relative to the workspace root. */
  readonly file: string;
  readonly before: Buffer | null;
  /** Permission bits of the previous file (restored by Undo). */
  readonly mode?: number;
  readonly after: Buffer | null;
}

/** One file as the store has it: the previous bytes, and a hash of what the change wrote (to tell "changed since"). */
export interface StoredFile {
  readonly file: string;
  readonly before: Buffer | null;
  readonly mode?: number;
  /** sha256 (hex) of the bytes the change left, or null when it left no file. */
  readonly afterHash: string | null;
}

export interface StoredChange {
  readonly id: string;
  readonly tool: string;
  /** ISO time the change was kept. */
  readonly at: string;
  readonly files: readonly StoredFile[];
}

export interface BackupLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

export const DEFAULT_BACKUP_LIMITS: BackupLimits = { maxEntries: 200, maxBytes: 64 * 1024 * 1024 };
const SUFFIX = '.gsb';
const C = fs.constants;

export function hashOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The standalone store of one workspace root: `$XDG_STATE_HOME/guarded-shell/backups/<hash of the root>`. */
export function defaultBackupDir(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
  return path.join(state, 'guarded-shell', 'backups', hashOf(Buffer.from(root)).slice(0, 16));
}

export class BackupStore {
  private seq = 0;

  constructor(
    /** Absolute path chosen by the host (the extension's storage, or the standalone default), never by a workspace. */
    readonly dir: string,
    private readonly limits: BackupLimits = DEFAULT_BACKUP_LIMITS,
  ) {
    if (!path.isAbsolute(dir)) throw new Error(`the backup store must be an absolute path, got "${dir}"`);
  }

  /**
   * True when the store would lie inside `root` (e.g. the home folder opened as the workspace): the agent's own
   * tools could then read or rewrite the backups, so the store is not used there.
   */
  isInside(root: string): boolean {
    const real = attempt(() => fs.realpathSync(this.dir)) ?? this.dir; // not created yet: its path as given
    return [this.dir, real].some((p) => isInside(root, p));
  }

  /**
   * Keeps one change. Returns false (nothing kept) when the entry alone is larger than the store may hold. Throws
   * when it cannot be written: the caller then writes nothing either (a change is never made without its backup).
   */
  save(id: string, tool: string, files: readonly KeptFile[]): boolean {
    const body = Buffer.from(
      JSON.stringify({
        v: 1, id, tool, at: new Date().toISOString(),
        files: files.map((f) => ({ file: f.file, before: f.before?.toString('base64') ?? null, ...(f.mode !== undefined && { mode: f.mode & 0o777 }), afterHash: f.after ? hashOf(f.after) : null })),
      }),
    );
    if (body.length > this.limits.maxBytes) return false;
    const dir = this.open(true)!;
    try {
      this.dropIn(dir, id); // a request id names one change: a replay replaces it
      // Time first, so names sort oldest first; a counter orders entries of the same millisecond.
      const name = `${String(Date.now()).padStart(15, '0')}-${String(this.seq++ % 1e6).padStart(6, '0')}-${keyOf(id)}${SUFFIX}`;
      const temp = `.${randomBytes(6).toString('hex')}.gs-tmp`;
      const fd = createExclusive(dir, temp, C.O_WRONLY, 0o600);
      try {
        fs.writeFileSync(fd, body);
        fs.fsyncSync(fd);
      } catch (e) {
        fs.closeSync(fd);
        fs.unlinkSync(at(dir, temp));
        throw e;
      }
      fs.closeSync(fd);
      fs.renameSync(at(dir, temp), at(dir, name));
      syncDir(dir);
      this.bound(dir, name);
      return true;
    } finally {
      closeQuietly(dir.fd);
    }
  }

  get(id: string): StoredChange | undefined {
    const dir = this.open(false);
    if (!dir) return undefined;
    try {
      const name = this.names(dir).find((n) => n.endsWith(`-${keyOf(id)}${SUFFIX}`));
      if (!name) return undefined;
      const e = openEntry(dir, name);
      if (!e?.fd || !e.st.isFile()) {
        closeQuietly(e?.fd);
        return undefined;
      }
      let text: string;
      try {
        const fd = reopen(e.fd, `${dir.real}/${name}`, C.O_RDONLY);
        try {
          text = fs.readFileSync(fd, 'utf8');
        } finally {
          fs.closeSync(fd);
        }
      } finally {
        closeQuietly(e.fd);
      }
      return parseEntry(text, id);
    } finally {
      closeQuietly(dir.fd);
    }
  }

  /** Forgets one change (its apply failed, so there is nothing to undo). */
  drop(id: string): void {
    const dir = this.open(false);
    if (!dir) return;
    try {
      this.dropIn(dir, id);
    } finally {
      closeQuietly(dir.fd);
    }
  }

  /** Entry names, oldest first. */
  private names(dir: Dir): string[] {
    const listing = fs.readdirSync(procFdWorks() ? `/proc/self/fd/${dir.fd}` : dir.real);
    return listing.filter((n) => n.endsWith(SUFFIX) && !n.startsWith('.')).sort();
  }

  private dropIn(dir: Dir, id: string): void {
    for (const n of this.names(dir)) if (n.endsWith(`-${keyOf(id)}${SUFFIX}`)) unlinkQuietly(dir, n);
  }

  /** Oldest entries go until the store holds at most maxEntries and maxBytes; the newest (`keep`) always stays. */
  private bound(dir: Dir, keep: string): void {
    const entries = this.names(dir).map((n) => {
      const e = openEntry(dir, n);
      closeQuietly(e?.fd);
      return { n, size: e ? Number(e.st.size) : 0 };
    });
    let count = entries.length;
    let bytes = entries.reduce((s, e) => s + e.size, 0);
    for (const e of entries) {
      if (count <= this.limits.maxEntries && bytes <= this.limits.maxBytes) break;
      if (e.n === keep) continue;
      unlinkQuietly(dir, e.n);
      count--;
      bytes -= e.size;
    }
  }

  /** The store's folder by descriptor (created 0700 when `create`); undefined when it does not exist yet. */
  private open(create: boolean): Dir | undefined {
    if (create) fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    let dir: Dir;
    try {
      dir = openRootDir(this.dir);
    } catch (e) {
      if (!create && (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new ToolError('IO_ERROR', `The backup store "${this.dir}" cannot be opened: ${(e as Error).message}`, 'backup.store');
    }
    return dir;
  }
}

/** A request id as a file-name part: ids come from clients, so they are hashed, never used as names. */
function keyOf(id: string): string {
  return hashOf(Buffer.from(id)).slice(0, 32);
}

function unlinkQuietly(dir: Dir, name: string): void {
  try {
    fs.unlinkSync(at(dir, name));
  } catch {
    /* already gone */
  }
}

function parseEntry(text: string, id: string): StoredChange | undefined {
  try {
    const o = JSON.parse(text) as { v: number; id: string; tool: string; at: string; files: { file: string; before: string | null; mode?: number; afterHash: string | null }[] };
    if (o.v !== 1 || o.id !== id || !Array.isArray(o.files)) return undefined;
    return {
      id: o.id, tool: String(o.tool), at: String(o.at),
      files: o.files.map((f) => ({
        file: String(f.file),
        before: typeof f.before === 'string' ? Buffer.from(f.before, 'base64') : null,
        ...(typeof f.mode === 'number' && { mode: f.mode }),
        afterHash: typeof f.afterHash === 'string' ? f.afterHash : null,
      })),
    };
  } catch {
    return undefined; // a damaged entry is no backup: Undo says so instead of guessing
  }
}
