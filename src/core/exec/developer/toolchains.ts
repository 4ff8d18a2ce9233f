import * as fs from 'node:fs';
import * as path from 'node:path';
import { attempt } from '../../attempt';
import { isInside } from '../../paths/confine';
import { SENSITIVE_HOME_ENTRIES } from '../../isolation/context';

/**
 * The person's toolchain folders: the entries of the SERVER's own PATH beyond the system folders (version-manager
 * shims and bins: pyenv, rbenv, nodenv, asdf, mise, volta, nvm, fnm, sdkman, ~/.local/bin, ~/.cargo/bin, ~/go/bin
 * …). Commands get them on their PATH, in the server's order relative to the system folders, and — inside the
 * sandbox, which hides the home folder — the folders they need are bound read-only: a version manager's whole
 * root (its shims run its libexec with its versions), otherwise only the PATH entry itself. Nothing else of the
 * home folder.
 *
 * Never on the list: a relative or empty entry (the working directory, which the agent writes), an entry inside
 * the workspace or the commands' private HOME, the home folder itself, runtime folders (/run, /proc, /dev, /sys:
 * the sandbox hides or replaces them), a hidden path or credential store, a folder someone else could put a
 * program in (writable by anyone, or below such a folder that is not sticky, or another user's), and folders
 * that do not exist. An entry that is a symbolic link (fnm's per-shell folders in /run) is given by its real
 * path.
 */

/** One version manager: where its root is, whether the whole root must be visible, what commands must be told. */
interface Manager {
  readonly name: string;
  /** The variable that names the root (read from the server's environment), and its defaults below HOME. */
  readonly rootVar?: string;
  readonly roots: readonly string[];
  /**
   * 'root': the whole root is bound (shims exec the manager's own programs, which find the versions there);
   * 'entry': only the PATH entry (the root also holds caches a command must write, which the private HOME gets).
   */
  readonly bind: 'root' | 'entry';
  /** Give commands `rootVar` = the root: with the private HOME, `$HOME/.<manager>` would not find it. */
  readonly exportRoot?: boolean;
  /** More folders the programs need (variable, defaults below HOME): bound read-only, variable given when set. */
  readonly also?: readonly { readonly variable?: string; readonly paths: readonly string[] }[];
  /** Fixed variables, as paths below HOME (pip --user programs find their packages through PYTHONUSERBASE). */
  readonly homeVars?: Readonly<Record<string, string>>;
}

const MANAGERS: readonly Manager[] = [
  { name: 'pyenv', rootVar: 'PYENV_ROOT', roots: ['.pyenv'], bind: 'root', exportRoot: true },
  { name: 'rbenv', rootVar: 'RBENV_ROOT', roots: ['.rbenv'], bind: 'root', exportRoot: true },
  { name: 'nodenv', rootVar: 'NODENV_ROOT', roots: ['.nodenv'], bind: 'root', exportRoot: true },
  { name: 'goenv', rootVar: 'GOENV_ROOT', roots: ['.goenv'], bind: 'root', exportRoot: true },
  { name: 'jenv', rootVar: 'JENV_ROOT', roots: ['.jenv'], bind: 'root', exportRoot: true },
  { name: 'asdf', rootVar: 'ASDF_DATA_DIR', roots: ['.asdf'], bind: 'root', exportRoot: true },
  { name: 'mise', rootVar: 'MISE_DATA_DIR', roots: ['.local/share/mise'], bind: 'root', exportRoot: true },
  { name: 'volta', rootVar: 'VOLTA_HOME', roots: ['.volta'], bind: 'root', exportRoot: true },
  { name: 'nvm', rootVar: 'NVM_DIR', roots: ['.nvm'], bind: 'root', exportRoot: true },
  { name: 'fnm', rootVar: 'FNM_DIR', roots: ['.local/share/fnm', '.fnm'], bind: 'root', exportRoot: true },
  { name: 'sdkman', rootVar: 'SDKMAN_DIR', roots: ['.sdkman'], bind: 'root', exportRoot: true },
  // rustup's proxies (cargo, rustc in ~/.cargo/bin) run the toolchains kept in RUSTUP_HOME; cargo's registry
  // cache stays in the private HOME's .cargo.
  { name: 'cargo', rootVar: 'CARGO_HOME', roots: ['.cargo'], bind: 'entry', also: [{ variable: 'RUSTUP_HOME', paths: ['.rustup'] }] },
  // The module cache (GOPATH/pkg/mod) stays in the private HOME's go/.
  { name: 'go', rootVar: 'GOPATH', roots: ['go'], bind: 'entry' },
  { name: 'bun', rootVar: 'BUN_INSTALL', roots: ['.bun'], bind: 'entry' },
  { name: 'deno', rootVar: 'DENO_INSTALL', roots: ['.deno'], bind: 'entry' },
  // pip --user, pipx and uv tool programs: their packages and virtual environments live beside ~/.local/bin.
  {
    name: 'local', roots: ['.local/bin'], bind: 'entry',
    also: [{ paths: ['.local/lib'] }, { paths: ['.local/share/pipx'] }, { paths: ['.local/pipx'] }, { paths: ['.local/share/uv'] }],
    homeVars: { PYTHONUSERBASE: '.local' },
  },
];

/** Folders the sandbox replaces with its own (/proc, /dev) or hides because of the sockets in them (/run). */
const RUNTIME_FOLDERS = ['/run', '/var/run', '/proc', '/dev', '/sys'];
/** Folders the sandbox hides besides HOME: a toolchain folder in them must be bound to be seen. */
const HIDDEN_BY_SANDBOX = ['/tmp'];

export interface Toolchain {
  /** Real paths of the toolchain folders, in the server's PATH order. */
  readonly dirs: readonly string[];
  /** The default child PATH with those folders merged in (the system folders keep their order). */
  readonly path: string;
  /** Real paths to bind read-only inside the sandbox (inside the home folder only: the rest is visible). */
  readonly binds: readonly string[];
  /** Variables commands need to find the managers' roots while HOME is the private one. */
  readonly env: Readonly<Record<string, string>>;
  /** Server PATH entries left out, and why (for the hint when a program is then missing). */
  readonly skipped: readonly { readonly entry: string; readonly reason: string }[];
}

export interface ToolchainSources {
  /** The server's PATH. */
  readonly serverPath: string | undefined;
  /** The server's environment (the managers' root variables). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The person's real home folder. */
  readonly home: string | undefined;
  /** The system folders children get anyway (the default safe PATH), in their order. */
  readonly systemPath: string;
  /** The workspace root (real path). */
  readonly root: string;
  /** The commands' private HOME (real path), never on a PATH. */
  readonly privateHome?: string;
  /** Paths hidden from commands (the policy's list). */
  readonly hidden?: readonly string[];
  /** How the disk is looked at; tests replace it. */
  readonly stat?: (p: string) => PathFacts | undefined;
}

export interface PathFacts {
  readonly real: string;
  readonly isDirectory: boolean;
  /**
   * Someone other than this user (and root) could put a program there: the folder or one above it is writable by
   * anyone (a sticky folder such as /tmp above it is fine: others cannot replace what is ours in it) or belongs
   * to another user.
   */
  readonly othersCanWrite: boolean;
}

export const NO_TOOLCHAIN = (systemPath: string): Toolchain => ({ dirs: [], path: systemPath, binds: [], env: {}, skipped: [] });

function statPath(p: string): PathFacts | undefined {
  return attempt(() => {
    const real = fs.realpathSync(p);
    const st = fs.statSync(real);
    return { real, isDirectory: st.isDirectory(), othersCanWrite: othersCanWrite(real) };
  });
}

/** The classic safe-path check, from the folder up to `/`. */
function othersCanWrite(real: string): boolean {
  const me = typeof process.getuid === 'function' ? process.getuid() : undefined;
  for (let p = real, self = true; ; p = path.dirname(p), self = false) {
    const st = fs.statSync(p);
    if (me !== undefined && st.uid !== me && st.uid !== 0) return true;
    if ((st.mode & 0o002) !== 0 && (self || (st.mode & 0o1000) === 0)) return true;
    if (p === path.dirname(p)) return false;
  }
}

export function findToolchain(src: ToolchainSources): Toolchain {
  const stat = src.stat ?? statPath;
  const system = src.systemPath.split(path.delimiter).filter((d) => d !== '');
  // A system folder by any of its names (/bin is /usr/bin on a merged-/usr system).
  const systemByReal = new Map<string, string>();
  for (const d of system) for (const n of [d, stat(d)?.real ?? d]) if (!systemByReal.has(n)) systemByReal.set(n, d);
  const home = src.home && path.isAbsolute(src.home) ? (stat(src.home)?.real ?? path.resolve(src.home)) : undefined;
  const hidden = [...(src.hidden ?? []), ...(home ? SENSITIVE_HOME_ENTRIES.map((e) => path.join(home, e)) : [])];
  const entries = (src.serverPath ?? '').split(path.delimiter).map((entry) => ({ entry, info: entry !== '' && path.isAbsolute(entry) ? stat(entry) : undefined }));
  const systemOf = (e: (typeof entries)[number]) => systemByReal.get(e.entry) ?? (e.info ? systemByReal.get(e.info.real) : undefined);

  const dirs: string[] = [];
  const skipped: { entry: string; reason: string }[] = [];
  // Where each toolchain folder goes: before the first system folder that follows it in the server's PATH.
  const before = new Map<string, string | undefined>();
  entries.forEach((e, index) => {
    if (systemOf(e) !== undefined || (e.info && dirs.includes(e.info.real))) return;
    const why = refuse(e.entry, e.info);
    if (why) return void skipped.push({ entry: e.entry, reason: why });
    const real = e.info!.real;
    dirs.push(real);
    before.set(real, entries.slice(index + 1).map(systemOf).find((s) => s !== undefined));
  });

  const binds = new Set<string>();
  const env: Record<string, string> = {};
  const bind = (p: string) => {
    // Elsewhere the sandbox shows the system read-only anyway.
    if ((home && isInside(home, p)) || HIDDEN_BY_SANDBOX.some((f) => isInside(f, p))) binds.add(p);
  };
  for (const dir of dirs) {
    const m = managerOf(dir);
    if (!m) {
      bind(dir);
      continue;
    }
    bind(m.manager.bind === 'root' ? m.root : dir);
    if (m.manager.exportRoot && m.manager.rootVar) env[m.manager.rootVar] = m.root;
    for (const a of m.manager.also ?? []) {
      const found = locate(a.variable, a.paths);
      if (!found) continue;
      bind(found);
      if (a.variable) env[a.variable] = found;
    }
    if (home) for (const [name, rel] of Object.entries(m.manager.homeVars ?? {})) env[name] = path.join(home, rel);
  }
  return { dirs, path: merge(system, dirs, before), binds: [...binds], env, skipped };

  /** Why an entry is not a toolchain folder, or '' when it is one. */
  function refuse(entry: string, s: ReturnType<typeof stat>): string {
    if (entry === '' || !path.isAbsolute(entry)) return 'it is relative: programs would be looked up in the working directory';
    if (!s) return 'it does not exist';
    if (!s.isDirectory) return 'it is not a folder';
    if (isInside(src.root, entry) || isInside(src.root, s.real)) return 'it is inside the workspace, where the agent writes';
    if (src.privateHome && (isInside(src.privateHome, s.real) || isInside(s.real, src.privateHome))) return "it holds the commands' own HOME";
    if (s.real === '/' || (home && isInside(s.real, home))) return 'it would show the whole home folder';
    if (RUNTIME_FOLDERS.some((f) => isInside(f, s.real))) return 'it is in a runtime or system folder that the sandbox replaces or hides';
    // A hidden path INSIDE a toolchain folder stays hidden: the sandbox lays it over the folder (mountPlan).
    if (hidden.some((h) => isInside(h, s.real) || isInside(h, entry))) return 'it is a hidden path';
    if (s.othersCanWrite) return 'someone else could put programs there (it, or a folder above it, is writable by anyone or belongs to another user)';
    return '';
  }

  function managerOf(dir: string): { manager: Manager; root: string } | undefined {
    for (const manager of MANAGERS) {
      const root = locate(manager.rootVar, manager.roots);
      if (root && isInside(root, dir)) return { manager, root };
    }
    return undefined;
  }

  /** The real path of a manager's folder: the server's variable when set (absolute), else the first default present. */
  function locate(variable: string | undefined, defaults: readonly string[]): string | undefined {
    const named = variable ? src.env[variable] : undefined;
    const candidates = named && path.isAbsolute(named) ? [named] : home ? defaults.map((d) => path.join(home, d)) : [];
    for (const c of candidates) {
      const s = stat(c);
      if (!s?.isDirectory || s.real === '/' || (home && isInside(s.real, home))) continue;
      if (isInside(src.root, s.real) || hidden.some((h) => isInside(h, s.real))) continue;
      return s.real;
    }
    return undefined;
  }
}

/** The system folders in their own order, each toolchain folder placed before the system folder it preceded. */
function merge(system: readonly string[], dirs: readonly string[], before: ReadonlyMap<string, string | undefined>): string {
  const out: string[] = [];
  for (const s of system) {
    for (const d of dirs) if (before.get(d) === s) out.push(d);
    out.push(s);
  }
  for (const d of dirs) if (before.get(d) === undefined) out.push(d);
  return out.join(path.delimiter);
}
