import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { attempt } from '../attempt';
import { MAX_KEPT_OUTPUT_BYTES, MAX_KEPT_OUTPUTS } from '../limits';
import { isInside } from '../paths/confine';

/**
 * Where the output an answer could not show is kept for the session, so the agent can read every byte of it in
 * pages (readOutput). Each kept output is a file with NO name: created with mode 0600 inside a fresh 0700 folder
 * of the system's temporary folder (never inside the workspace), then unlinked together with its folder at once,
 * and read through the descriptor only. So no command, no other user and no later call can reach it by a path,
 * nothing is left on disk when the server is killed, and its space is freed when the session ends (its
 * descriptors are closed) or when it is evicted: the oldest kept outputs go first once all sessions of the
 * server together hold more than MAX_KEPT_OUTPUT_BYTES or MAX_KEPT_OUTPUTS.
 */

const C = fs.constants;

interface Entry {
  readonly id: string;
  readonly fd: number;
  readonly bytes: number;
  readonly store: OutputStore;
}

/** What the store answers for an id: the bytes asked for and the size of the whole output. */
export interface OutputPage {
  readonly bytes: Buffer;
  readonly total: number;
}

/** The space every session of one server shares, with its eviction order (oldest first). */
export class SpillSpace {
  private readonly entries: Entry[] = [];
  private total = 0;

  constructor(
    /** Over all sessions; also the largest single output kept. */
    readonly maxBytes = MAX_KEPT_OUTPUT_BYTES,
    private readonly maxEntries = MAX_KEPT_OUTPUTS,
  ) {}

  /** Bytes held now, over all sessions. */
  get heldBytes(): number {
    return this.total;
  }

  /** @internal */
  add(entry: Entry): void {
    this.entries.push(entry);
    this.total += entry.bytes;
    while (this.entries.length > 0 && (this.total > this.maxBytes || this.entries.length > this.maxEntries)) this.drop(this.entries[0]!);
  }

  /** @internal Forgets an entry and closes its descriptor (the kernel frees the file). */
  drop(entry: Entry): void {
    const i = this.entries.indexOf(entry);
    if (i < 0) return;
    this.entries.splice(i, 1);
    this.total -= entry.bytes;
    entry.store.forget(entry.id);
    attempt(() => fs.closeSync(entry.fd));
  }

  /** A session's own view of the space: ids are per session, and another session's outputs cannot be read. */
  session(): OutputStore {
    return new OutputStore(this);
  }
}

export class OutputStore {
  private readonly byId = new Map<string, Entry>();
  private next = 1;
  private closed = false;

  constructor(private readonly space: SpillSpace) {}

  /**
   * Keeps `text` (as UTF-8) and returns its id, or undefined when it cannot be kept: the session ended, it alone
   * is larger than the whole space, or no temporary folder outside `root` can hold it (the answer then says so).
   */
  keep(text: string, root: string): string | undefined {
    if (this.closed) return undefined;
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > this.space.maxBytes) return undefined;
    const fd = anonymousFile(root);
    if (fd === undefined) return undefined;
    try {
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at, at);
    } catch {
      attempt(() => fs.closeSync(fd));
      return undefined;
    }
    const id = `o${this.next++}`;
    const entry = { id, fd, bytes: bytes.length, store: this };
    this.byId.set(id, entry);
    this.space.add(entry);
    return this.byId.has(id) ? id : undefined;
  }

  /** Up to `length` bytes from `offset`, or undefined for an id this session does not (or no longer) keep. */
  read(id: string, offset: number, length: number): OutputPage | undefined {
    const e = this.byId.get(id);
    if (!e) return undefined;
    const start = Math.min(offset, e.bytes);
    const buf = Buffer.alloc(Math.max(0, Math.min(length, e.bytes - start)));
    for (let at = 0; at < buf.length; ) {
      const n = fs.readSync(e.fd, buf, at, buf.length - at, start + at);
      if (n === 0) break;
      at += n;
    }
    return { bytes: buf, total: e.bytes };
  }

  /** Whether an id was ever handed out by this session (to tell "evicted" from "never existed"). */
  issued(id: string): boolean {
    const n = /^o(\d+)$/.exec(id);
    return n !== null && Number(n[1]) < this.next;
  }

  /** @internal */
  forget(id: string): void {
    this.byId.delete(id);
  }

  /** The session ended: every output it kept is freed. */
  close(): void {
    this.closed = true;
    for (const e of [...this.byId.values()]) this.space.drop(e);
  }
}

/** The temporary folders tried, in order: the system's, then the usual RAM-backed and shared ones. */
function candidates(): string[] {
  return [os.tmpdir(), '/dev/shm', '/tmp', '/var/tmp'];
}

/**
 * A new file that no path leads to: created 0600 (O_EXCL, O_NOFOLLOW) in a fresh 0700 folder outside `root`,
 * then unlinked with its folder. Undefined when no candidate folder outside the workspace works.
 */
function anonymousFile(root: string): number | undefined {
  for (const base of candidates()) {
    const real = attempt(() => fs.realpathSync(base));
    if (real === undefined || isInside(root, real)) continue;
    const dir = attempt(() => fs.mkdtempSync(path.join(real, 'guarded-shell-output-')));
    if (dir === undefined) continue;
    const file = path.join(dir, 'output');
    try {
      return fs.openSync(file, C.O_RDWR | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
    } catch {
      continue;
    } finally {
      attempt(() => fs.unlinkSync(file));
      attempt(() => fs.rmdirSync(dir));
    }
  }
  return undefined;
}
