import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { attempt } from '../attempt';
import type { KeptFile } from '../files/backupStore';
import { closeQuietly, idOf } from '../paths/fdpath';
import { globToRegExp } from '../paths/glob';
import { checkReadable, type PathGuard } from '../paths/guard';

/**
 * Checkpoints: for a command that writes the workspace directly (no preview), what it changed, so the history can
 * undo it. A content-addressed store outside the workspace (the extension's storage) holds the bytes of every file
 * of the workspace as they were last seen, once per content (`objects/ab/abcdef…`, named by the sha256); a
 * manifest maps each path to its identity, size, change time and hash, so that a file whose stat did not change
 * is not read again (git's index works the same way). Before a command: a walk of the workspace stats every file
 * and stores what is new or changed. After it: the same walk; a file whose stat changed is hashed, and every file
 * created, changed or removed comes back with its previous bytes (from the store) and its new ones.
 *
 * Not recorded: `.git` (git's own history undoes git's work), the trees `checkpointIgnore` names (node_modules …;
 * whether one of their folders was written is still said), hidden paths and files with other hard links (the
 * server never opens those), symbolic links, and a file larger than `maxFileBytes`. Bounded: past `maxFiles`
 * files or `timeMs` of walking, there is no checkpoint for that command, and the result says so (what was stored
 * so far stays, so the next command's walk goes on from there); past `maxBytes` the store drops what no path
 * uses any more, then refuses new content.
 */

export interface CheckpointLimits {
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  readonly maxBytes: number;
  readonly timeMs: number;
}

export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = { maxFiles: 200_000, maxFileBytes: 16 * 1024 * 1024, maxBytes: 1024 * 1024 * 1024, timeMs: 10_000 };

/** One file as the manifest has it. `hash` null: not stored (too large, or the store was full). */
interface Seen {
  readonly id: string;
  readonly size: number;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
  readonly mode: number;
  readonly hash: string | null;
}

/** The workspace as one walk saw it. */
export interface Snapshot {
  readonly files: ReadonlyMap<string, Seen>;
  /** Ignored folders that exist, with their change time (was one written during the command?). */
  readonly ignored: ReadonlyMap<string, string>;
}

export type SnapshotResult = { readonly snapshot: Snapshot } | { readonly skipped: string };

export interface Changes {
  /** Every changed file with its previous bytes (null: it was created) and its new ones (null: it was removed). */
  readonly files: readonly KeptFile[];
  /** Changed files whose previous bytes are not kept (too large, or not stored): no Undo for this command. */
  readonly notKept: readonly string[];
  /** Ignored folders that were written during the command (their content is not recorded). */
  readonly ignoredTouched: readonly string[];
}

export class CheckpointStore {
  private manifest = new Map<string, Seen>();
  private refs = new Map<string, number>();
  /** Contents a snapshot still needs (its command runs): never dropped, whatever the manifest says now. */
  private readonly pins = new Map<string, number>();
  private loadedFor: string | undefined;
  private storedBytes = 0;
  /** The manifest changed since it was last written, and when that was. */
  private dirty = false;
  private savedAt = 0;

  constructor(
    /** Absolute, chosen by the host (never inside the workspace: the caller checks). */
    readonly dir: string,
    private readonly limits: CheckpointLimits = DEFAULT_CHECKPOINT_LIMITS,
  ) {}

  /**
   * The workspace before a command: every file's stat, and the bytes of what is new since the last walk. Its
   * contents stay in the store until `changesSince` or `release` is called with it.
   */
  async snapshot(g: PathGuard, ignore: readonly string[]): Promise<SnapshotResult> {
    this.load(g.root);
    const walked = await this.walk(g, ignore);
    this.save();
    if ('skipped' in walked) return walked;
    this.pin(walked, 1);
    return { snapshot: walked };
  }

  /** What changed since `before`: the same walk, each changed file with its previous and new bytes. */
  async changesSince(g: PathGuard, ignore: readonly string[], before: Snapshot): Promise<Changes | { readonly skipped: string }> {
    try {
      const after = await this.walk(g, ignore);
      this.save();
      if ('skipped' in after) return after;
      const files: KeptFile[] = [];
      const notKept: string[] = [];
      const keep = (rel: string, was: Seen | undefined, now: Seen | undefined) => {
        const previous = was ? this.read(was) : null;
        const current = now ? this.read(now) : null;
        if (previous === undefined || current === undefined) {
          notKept.push(rel);
          return;
        }
        files.push({ file: rel, before: previous, ...(was && { mode: was.mode }), after: current });
      };
      for (const [rel, was] of before.files) {
        const now = after.files.get(rel);
        if (!now) keep(rel, was, undefined);
        else if (was.hash === null || now.hash === null ? changedStat(was, now) : now.hash !== was.hash || now.mode !== was.mode) keep(rel, was, now);
      }
      for (const [rel, now] of after.files) if (!before.files.has(rel)) keep(rel, undefined, now);
      const ignoredTouched = [...after.ignored].filter(([rel, ctime]) => before.ignored.get(rel) !== ctime).map(([rel]) => rel);
      return { files, notKept, ignoredTouched };
    } finally {
      this.release(before);
    }
  }

  /** The snapshot's command will not be looked at (it did not run): its contents may go. */
  release(before: Snapshot): void {
    this.pin(before, -1);
    this.collect();
  }

  private pin(s: Snapshot, by: 1 | -1): void {
    for (const seen of s.files.values()) {
      if (!seen.hash) continue;
      const n = (this.pins.get(seen.hash) ?? 0) + by;
      if (n > 0) this.pins.set(seen.hash, n);
      else this.pins.delete(seen.hash);
    }
  }

  /** Bytes the store holds now. */
  get bytes(): number {
    return this.storedBytes;
  }

  /**
   * One walk: stats every recorded file, stores the bytes of new and changed ones, and updates the manifest. It
   * gives the event loop back every few milliseconds (other calls go on meanwhile).
   */
  private async walk(g: PathGuard, ignore: readonly string[]): Promise<Snapshot | { skipped: string }> {
    const started = Date.now();
    let slice = started;
    const isIgnored = ignoreMatcher(ignore);
    const files = new Map<string, Seen>();
    const ignored = new Map<string, string>();
    const stack: string[] = [''];
    while (stack.length) {
      const rel = stack.pop()!;
      const dir = rel ? path.join(g.root, rel) : g.root;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue; // removed meanwhile, or unreadable: nothing of it is recorded
      }
      for (const e of entries) {
        const p = rel ? `${rel}/${e.name}` : e.name;
        if (e.name === '.git') continue;
        if (isIgnored(p, e.name)) {
          const st = attempt(() => fs.lstatSync(path.join(g.root, p), { bigint: true }));
          if (st) ignored.set(p, String(st.ctimeNs));
          continue;
        }
        if (e.isDirectory()) {
          if (!isHidden(g, path.join(g.root, p))) stack.push(p);
        } else if (e.isFile()) {
          const seen = this.look(g, p);
          if (seen) files.set(p, seen);
        }
      }
      if (Date.now() - slice > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = Date.now();
      }
      if (files.size > this.limits.maxFiles) return { skipped: `the workspace has more than ${this.limits.maxFiles} files outside the ignored folders (checkpointIgnore)` };
      if (Date.now() - started > this.limits.timeMs) {
        return { skipped: `walking the workspace took more than ${this.limits.timeMs / 1000} s (what was read so far is kept, so the next command's checkpoint goes further)` };
      }
    }
    // A complete walk: what it did not see is gone from the workspace (or now ignored).
    for (const rel of [...this.manifest.keys()]) if (!files.has(rel)) this.dropManifest(rel);
    return { files, ignored };
  }

  /** A file's identity and hash, read (and stored) only when its stat is not the manifest's. */
  private look(g: PathGuard, rel: string): Seen | undefined {
    const real = path.join(g.root, rel);
    const st = attempt(() => fs.lstatSync(real, { bigint: true }));
    if (!st?.isFile()) return undefined;
    const known = this.manifest.get(rel);
    if (known && !changedStat(known, statOf(st, known.hash))) return known;
    try {
      checkReadable(g, { relative: rel, real, st });
    } catch {
      return undefined; // hidden, or with other hard links: never opened by the server
    }
    let seen: Seen;
    if (st.size > BigInt(this.limits.maxFileBytes)) seen = statOf(st, null);
    else {
      const fd = attempt(() => fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK));
      if (fd === undefined) return undefined;
      try {
        const opened = fs.fstatSync(fd, { bigint: true });
        if (!opened.isFile()) return undefined;
        const bytes = fs.readFileSync(fd);
        const hash = createHash('sha256').update(bytes).digest('hex');
        seen = statOf(opened, this.put(hash, bytes) ? hash : null);
      } finally {
        closeQuietly(fd);
      }
    }
    this.setManifest(rel, seen);
    return seen;
  }

  private setManifest(rel: string, seen: Seen): void {
    this.dirty = true;
    this.dropManifest(rel);
    if (seen.hash) this.refs.set(seen.hash, (this.refs.get(seen.hash) ?? 0) + 1);
    this.manifest.set(rel, seen);
  }

  private dropManifest(rel: string): void {
    const old = this.manifest.get(rel);
    if (old) this.dirty = true;
    if (old?.hash) this.refs.set(old.hash, (this.refs.get(old.hash) ?? 1) - 1);
    this.manifest.delete(rel);
  }

  /** Stores one content (once); false when the store is full even after dropping what nothing uses. */
  private put(hash: string, bytes: Buffer): boolean {
    const file = this.objectPath(hash);
    if (fs.existsSync(file)) return true;
    if (this.storedBytes + bytes.length > this.limits.maxBytes) {
      this.collect();
      if (this.storedBytes + bytes.length > this.limits.maxBytes) return false;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    fs.writeFileSync(temp, bytes, { mode: 0o600, flag: 'wx' });
    fs.renameSync(temp, file);
    this.storedBytes += bytes.length;
    return true;
  }

  private read(seen: Seen): Buffer | undefined {
    if (!seen.hash) return undefined;
    const bytes = attempt(() => fs.readFileSync(this.objectPath(seen.hash!)));
    return bytes && createHash('sha256').update(bytes).digest('hex') === seen.hash ? bytes : undefined;
  }

  /** Drops the content no path of the manifest uses any more (the previous bytes went to the backup store). */
  private collect(): void {
    for (const [hash, n] of this.refs) {
      if (n > 0 || this.pins.has(hash)) continue;
      const file = this.objectPath(hash);
      const size = attempt(() => fs.statSync(file).size) ?? 0;
      if (attempt(() => fs.unlinkSync(file)) !== undefined || !fs.existsSync(file)) this.storedBytes -= size;
      this.refs.delete(hash);
    }
    this.storedBytes = Math.max(0, this.storedBytes);
  }

  private objectPath(hash: string): string {
    return path.join(this.dir, 'objects', hash.slice(0, 2), hash);
  }

  /** The manifest of this workspace from an earlier start (a changed file is read again anyway: its stat says so). */
  private load(root: string): void {
    if (this.loadedFor === root) return;
    this.loadedFor = root;
    this.manifest = new Map();
    this.refs = new Map();
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const text = attempt(() => fs.readFileSync(path.join(this.dir, 'manifest.json'), 'utf8'));
    const parsed = text ? attempt(() => JSON.parse(text) as { root?: string; files?: Record<string, Seen> }) : undefined;
    if (parsed?.root === root && parsed.files) {
      for (const [rel, seen] of Object.entries(parsed.files)) {
        if (typeof seen?.id === 'string' && (seen.hash === null || (typeof seen.hash === 'string' && fs.existsSync(this.objectPath(seen.hash))))) this.setManifest(rel, seen);
      }
    }
    this.storedBytes = sizeOf(path.join(this.dir, 'objects'));
  }

  /**
   * Writes the manifest (it only spares a restarted server the first walk's reading: a lost one costs time, never
   * correctness), at most every SAVE_EVERY_MS, so a command's walks do not each write the whole of it.
   */
  private save(): void {
    if (!this.dirty || Date.now() - this.savedAt < SAVE_EVERY_MS) return;
    this.dirty = false;
    this.savedAt = Date.now();
    const body = JSON.stringify({ root: this.loadedFor, files: Object.fromEntries(this.manifest) });
    const file = path.join(this.dir, 'manifest.json');
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    fs.writeFileSync(temp, body, { mode: 0o600, flag: 'wx' });
    fs.renameSync(temp, file);
  }
}

/** How long a walk holds the event loop before it lets other calls go on. */
const SLICE_MS = 20;
/** The manifest is written at most this often. */
const SAVE_EVERY_MS = 10_000;

function statOf(st: fs.BigIntStats, hash: string | null): Seen {
  return { id: idOf(st), size: Number(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs), mode: Number(st.mode) & 0o777, hash };
}

function changedStat(a: Seen, b: Seen): boolean {
  return a.id !== b.id || a.size !== b.size || a.mtimeNs !== b.mtimeNs || a.ctimeNs !== b.ctimeNs || a.mode !== b.mode;
}

function isHidden(g: PathGuard, real: string): boolean {
  return g.hidden.some((h) => h === real || real.startsWith(`${h}/`));
}

/**
 * The checkpointIgnore globs as one test: without a slash a glob matches a name at any depth, with one the path from
 * the root. Plain names (most of them) are looked up in a set: the walk asks for every entry of the workspace.
 */
function ignoreMatcher(globs: readonly string[]): (rel: string, name: string) => boolean {
  const names = new Set<string>();
  const byName: RegExp[] = [];
  const byPath: RegExp[] = [];
  for (const glob of globs) {
    const normalized = glob.replace(/^\.\//, '').replace(/\/$/, '');
    if (normalized.includes('/')) byPath.push(globToRegExp(normalized));
    else if (/[*?]/.test(normalized)) byName.push(globToRegExp(normalized));
    else names.add(normalized);
  }
  return (rel, name) => names.has(name) || byName.some((re) => re.test(name)) || byPath.some((re) => re.test(rel));
}

function sizeOf(dir: string): number {
  let total = 0;
  for (const sub of attempt(() => fs.readdirSync(dir)) ?? []) {
    for (const f of attempt(() => fs.readdirSync(path.join(dir, sub))) ?? []) total += attempt(() => fs.statSync(path.join(dir, sub, f)).size) ?? 0;
  }
  return total;
}
