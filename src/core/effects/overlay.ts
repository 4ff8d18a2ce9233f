import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runHelper } from '../exec/launch/spawn';
import { attempt } from '../attempt';
import { opaqueReaderArgv } from './opaque';

/**
 * The copy-on-write view a previewed command runs against (Linux): an overlayfs whose lower layer is the workspace
 * and whose upper layer is a folder of the server's own, mounted by a step in front of the sandbox. The sandbox
 * binds the merged view where the workspace is, so the command sees the workspace writable while the real folder
 * is never written; what it changed is then exactly the upper layer (inventory.ts reads it).
 *
 * Why overlayfs made by a mount step (docs/isolation.md, "Previewing a command's changes"):
 *  - bubblewrap 0.8 (Debian 12) has no --overlay; newer ones do, but the step works with every version;
 *  - nothing is copied up front: a 50,000-file workspace costs what its changed files cost (BENCHMARKS.md);
 *  - the kernel lets an unprivileged user mount overlayfs in a user namespace of its own since 5.11
 *    (`userxattr`: the overlay's own marks are `user.overlay.*` there). The server running as root needs no user
 *    namespace (a mount namespace is enough, and files owned by other users copy up as they are).
 *
 * The step (util-linux's unshare, the system's mount and sh), in front of bubblewrap's argv:
 *
 *   unshare [--user --map-root-user] --mount --propagation private -- /bin/sh -c STEP gs-overlay ROOT STAGE OPTS bwrap …
 *
 * It binds ROOT at STAGE/lower (so no option ever carries the workspace's path: a comma or colon in it would
 * split overlayfs's options), mounts the overlay at STAGE/merged and execs bubblewrap, which keeps its place (the
 * launcher's stage is bubblewrap itself, as without a preview). The mounts live in that mount namespace only:
 * when the sandbox ends, they are gone, and nothing else on the machine ever saw them.
 */

/** The programs of the step, found in the system's own folders (never the agent-influenced PATH). */
export interface OverlayTools {
  readonly unshare: string;
  readonly mount: string;
  readonly sh: string;
  /** Reads the overlay's "opaque folder" marks (opaque.ts); the step cannot be read back without it. */
  readonly perl: string;
  /** Not root: the step makes a user namespace of its own (and bubblewrap maps the same ids inside). */
  readonly userNamespace: boolean;
  readonly uid: number;
  readonly gid: number;
}

/** One call's folders: `upper` and `work` on the same file system, `lower` and `merged` empty mount points. */
export interface OverlayView {
  readonly dir: string;
  readonly lower: string;
  readonly upper: string;
  readonly work: string;
  readonly merged: string;
}

/** Exit status of the step when it could not make the view (the command did not run). */
export const STEP_FAILED_STATUS = 125;
export const STEP_FAILED_MARK = 'guarded-shell: the copy-on-write view could not be made';

const STEP = [
  'mount --bind "$1" "$2/lower" && mount -t overlay overlay -o "${3}lowerdir=$2/lower,upperdir=$2/upper,workdir=$2/work" "$2/merged" ||',
  `{ echo "${STEP_FAILED_MARK} (see the line above)" >&2; exit ${STEP_FAILED_STATUS}; }`,
  'shift 3',
  'exec "$@"',
].join('\n');

/** A staging folder path that needs no quoting anywhere (overlayfs options split on `,` `:` `\` and spaces). */
const PLAIN_PATH = /^\/[A-Za-z0-9._+@/-]*$/;

/** The argv placed in front of the sandbox's: makes the view, then execs `next` (bubblewrap and its arguments). */
export function overlayStep(tools: OverlayTools, root: string, view: OverlayView, next: readonly string[]): string[] {
  if (!PLAIN_PATH.test(view.dir)) throw new Error(`the preview's staging folder "${view.dir}" has characters overlayfs options cannot carry`);
  const user = tools.userNamespace ? ['--user', '--map-root-user'] : [];
  return [tools.unshare, ...user, '--mount', '--propagation', 'private', '--', tools.sh, '-c', STEP, 'gs-overlay', root, view.dir, tools.userNamespace ? 'userxattr,' : '', ...next];
}

/** bubblewrap's own options under the step: inside a user namespace of the step, the command keeps the server's ids. */
export function sandboxIdentity(tools: OverlayTools): string[] {
  return tools.userNamespace ? ['--uid', String(tools.uid), '--gid', String(tools.gid)] : [];
}

/**
 * The folder the views of one server live in (mode 0700, the server's own): below the host's storage when it gave
 * one, else a fresh folder in the temporary directory. Never inside the workspace (checked by the caller), hidden
 * inside the sandbox either way (HOME and /tmp are).
 */
export class Staging {
  private constructor(readonly dir: string) {}

  static create(parent: string = os.tmpdir()): Staging {
    fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(parent), 'gs-preview-'));
    fs.chmodSync(dir, 0o700);
    return new Staging(dir);
  }

  /** A fresh view for one call. */
  begin(): OverlayView {
    const dir = path.join(this.dir, randomBytes(8).toString('hex'));
    fs.mkdirSync(dir, { mode: 0o700 });
    const view = { dir, lower: path.join(dir, 'lower'), upper: path.join(dir, 'upper'), work: path.join(dir, 'work'), merged: path.join(dir, 'merged') };
    for (const d of [view.lower, view.upper, view.work, view.merged]) fs.mkdirSync(d, { mode: 0o700 });
    return view;
  }

  /** Drops everything of the server's views (at exit). */
  dispose(): void {
    removeTree(this.dir);
  }
}

/**
 * Removes a view once its effect was applied or discarded. What the command left there is removed as it is: links
 * are unlinked (never followed), a folder it made unreadable is opened up first.
 */
export function removeTree(dir: string): void {
  attempt(() => fs.rmSync(dir, { recursive: true, force: true }));
  if (!fs.existsSync(dir)) return;
  // A folder without write or search permission for its owner (chmod 0 by the command): open it up, try again.
  const open = (p: string): void => {
    const st = attempt(() => fs.lstatSync(p));
    if (!st?.isDirectory()) return;
    attempt(() => fs.chmodSync(p, 0o700));
    for (const n of attempt(() => fs.readdirSync(p)) ?? []) open(path.join(p, n));
  };
  open(dir);
  attempt(() => fs.rmSync(dir, { recursive: true, force: true }));
}

function systemProgram(name: string): string | undefined {
  return ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].map((d) => `${d}/${name}`).find((p) => attempt(() => (fs.accessSync(p, fs.constants.X_OK), true)) === true);
}

export type OverlayProbe = { readonly available: true; readonly tools: OverlayTools; readonly staging: Staging } | { readonly available: false; readonly reason: string };

/**
 * Can a view be made here? Once at start: the programs, then a real trial (the step in front of `true`, then the
 * opaque-folder reader on what it left). `parent`: where the views go (the host's storage, or the temp folder).
 * `timeoutMs` is generous: its answer holds for the process's life, and a machine busy starting VS Code must not lose
 * previews over a slow trial (only a trial that hangs waits that long, and the first call with it).
 */
export async function probeOverlay(parent?: string, timeoutMs = 15_000): Promise<OverlayProbe> {
  if (process.platform !== 'linux') return { available: false, reason: 'previewing a command needs Linux (overlayfs)' };
  const unshare = systemProgram('unshare');
  const mount = systemProgram('mount');
  const sh = systemProgram('sh');
  const perl = systemProgram('perl');
  const missing = [!unshare && 'unshare (util-linux)', !mount && 'mount (util-linux)', !sh && 'sh', !perl && 'perl (perl-base)'].filter(Boolean);
  if (missing.length) return { available: false, reason: `previewing a command needs ${missing.join(', ')}` };
  if (!opaqueReaderArgv(perl!)) return { available: false, reason: `previewing a command cannot read overlayfs's marks on this architecture (${process.arch})` };
  let staging: Staging;
  try {
    staging = Staging.create(parent);
  } catch (e) {
    return { available: false, reason: `no folder for the copy-on-write views: ${(e as Error).message}` };
  }
  const uid = process.getuid?.() ?? 0;
  const tools: OverlayTools = { unshare: unshare!, mount: mount!, sh: sh!, perl: perl!, userNamespace: uid !== 0, uid, gid: process.getgid?.() ?? uid };
  if (!PLAIN_PATH.test(staging.dir)) return fail(staging, `the folder for the copy-on-write views ("${staging.dir}") has characters overlayfs options cannot carry`);
  const trialRoot = path.join(staging.dir, 'trial-root');
  const view = staging.begin();
  try {
    fs.mkdirSync(trialRoot);
    fs.writeFileSync(path.join(trialRoot, 'seen'), '');
    // The trial command deletes a file and makes a folder over it: the upper layer then holds an opaque folder.
    const argv = overlayStep(tools, trialRoot, view, [sh!, '-c', 'rm "$1/seen" && mkdir "$1/seen"', 'trial', view.merged]);
    const r = await runHelper(argv[0]!, argv.slice(1), { timeoutMs, env: { PATH: '/usr/bin:/bin' } });
    if (r.error) return fail(staging, `the trial mount failed: ${r.stderr.trim() || r.error.message}`);
    const { readOpaque } = await import('./opaque');
    const opaque = await readOpaque(tools.perl, [path.join(view.upper, 'seen')]);
    if (!opaque.has(path.join(view.upper, 'seen'))) return fail(staging, 'the trial view left no readable opaque mark (overlayfs without xattr support on the staging folder\'s file system)');
    return { available: true, tools, staging };
  } catch (e) {
    return fail(staging, `the trial failed: ${(e as Error).message}`);
  } finally {
    removeTree(view.dir);
    removeTree(trialRoot);
  }
}

function fail(staging: Staging, reason: string): OverlayProbe {
  staging.dispose();
  return { available: false, reason };
}
