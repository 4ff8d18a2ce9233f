import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import { probeIsolation } from '../../src/core/isolation/probe';
import { probeOverlay } from '../../src/core/effects/overlay';
import { forkServerWorks, namespacesWork } from '../../src/core/exec/launch/linux';
import { findForkServer } from '../../src/core/exec/launch/forkServer';
import { findLinuxTools } from '../../src/core/exec/launch/linuxChains';
import { findNode22, installedVsce, wantedVsce } from '../../scripts/lib/packager.mjs';

/**
 * What some suites need beyond Node and npm, found by REAL probes once per run (in the global setup): bubblewrap
 * must start a sandbox, the other programs must answer `--version`. A suite whose capability is missing is skipped
 * with one summary line (what is missing, why, how to install it); GUARDED_SHELL_STRICT=1 (set by .ci/run) turns
 * every such skip into a failure, so CI cannot pass by skipping.
 */

export const CAPABILITIES = ['bubblewrap', 'overlay', 'chromium', 'gawk', 'bsdtar', 'git', 'vsce', 'rule-programs', 'hint-programs', 'python3', 'namespaces', 'fork-server', 'http-clients', 'npm-registry', 'project-tools'] as const;

/**
 * The programs the argument rules are proven against (each denial shown to be needed by running the real one), with
 * the Debian package of each: the ONE list, in rule-programs.txt beside this file, which .ci/run installs from.
 */
export const RULE_PROGRAM_PACKAGES: ReadonlyMap<string, string> = new Map(
  fs.readFileSync(path.join(__dirname, 'rule-programs.txt'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')).map((l) => l.split(/\s+/) as [string, string]),
);
export const RULE_PROGRAMS: readonly string[] = [...RULE_PROGRAM_PACKAGES.keys()];
/** The programs whose real messages the sandbox hints are recognised from (besides git, python3, node and npm). */
export const HINT_PROGRAMS = ['make', 'curl', 'wget'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface CapabilityStatus {
  readonly available: boolean;
  /** The program that was found (absolute path). */
  readonly path?: string;
  /** Why it is not available, when it is not. */
  readonly reason?: string;
}

export type CapabilityMap = Record<Capability, CapabilityStatus>;

/** What a missing capability keeps from running, and how to get it (shown in the summary line). */
export const INSTALL: Record<Capability, { readonly needed: string; readonly install: string }> = {
  bubblewrap: { needed: 'the sandbox tests', install: 'apt-get install bubblewrap (Linux only; the kernel must allow unprivileged user namespaces)' },
  overlay: { needed: "command preview's copy-on-write view (overlayfs made by a mount step in front of the sandbox)", install: 'Linux 5.11+ with util-linux (unshare, mount) and perl-base; as another user than root the kernel must allow unprivileged user namespaces' },
  chromium: { needed: 'the approval panel tests in a real browser', install: 'apt-get install chromium (or put chromium, chromium-browser or google-chrome on PATH, or set CHROMIUM=/path/to/browser)' },
  gawk: { needed: 'the awk rules checked against the real gawk', install: 'apt-get install gawk' },
  bsdtar: { needed: 'the tar rules checked against the real bsdtar', install: 'apt-get install libarchive-tools' },
  git: { needed: 'the git rules checked against the real git', install: 'apt-get install git' },
  namespaces: { needed: 'the conformance suite of the namespace launcher (each command in PID, mount and user namespaces of its own)', install: 'apt-get install util-linux coreutils (Linux; root, or a kernel that allows unprivileged user namespaces)' },
  'fork-server': { needed: 'the conformance suite of the launcher\'s fork server (each command forked by a small C process into namespaces of its own)', install: 'apt-get install gcc libc6-dev util-linux, then build (npm run build puts it in dist/; Linux; root, or a kernel that allows unprivileged user namespaces)' },
  python3: { needed: 'the race tests (their attacker swaps names with renameat2 through python3 ctypes)', install: 'apt-get install python3' },
  'rule-programs': { needed: 'the argument rules proven against the real programs', install: `apt-get install ${[...new Set(RULE_PROGRAM_PACKAGES.values())].join(' ')}` },
  'hint-programs': { needed: "the sandbox hints checked against the real programs' messages", install: 'apt-get install make curl wget' },
  'http-clients': { needed: 'the egress proxy tests with real HTTP clients in the sandbox', install: 'apt-get install curl wget' },
  'npm-registry': { needed: 'the sandboxed `npm install` from the real npm registry through the egress proxy (the one test that leaves 127.0.0.1)', install: 'let this machine reach https://registry.npmjs.org (directly or through the npm proxy settings)' },
  'project-tools': { needed: "the scripted agent's fixture projects (a Makefile, a vendored tarball, pytest in a virtual environment)", install: 'apt-get install make tar python3-pytest python3-venv (python3 on PATH must import pytest and venv)' },
  vsce: { needed: 'the check of the links inside the .vsix', install: 'run `node scripts/vsce.mjs --version` once: it installs the pinned @vscode/vsce into tools/vsce (npm registry) and needs Node 22+ (the current Node, GUARDED_SHELL_NODE22=/path/to/node, or the Node 24 that bash scripts/e2e-setup.sh caches)' },
};

/** Browsers that playwright-core can drive, by the names distributions give them. */
const BROWSER_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
const MAC_BROWSERS = [
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** Every executable file called `name` on PATH, in PATH order. */
export function onPath(name: string, envPath = process.env.PATH ?? ''): string[] {
  const found: string[] = [];
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) found.push(p);
    } catch {
      // not here
    }
  }
  return found;
}

/** Runs `file --version`; the first line of its answer, or why it did not answer. */
function version(file: string): { ok: true; line: string } | { ok: false; why: string } {
  const r = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error) return { ok: false, why: r.error.message };
  if (r.status !== 0) return { ok: false, why: `exited with ${r.status ?? r.signal}: ${(r.stderr || r.stdout).trim().split('\n')[0] ?? ''}` };
  return { ok: true, line: (r.stdout || r.stderr).trim().split('\n')[0] ?? '' };
}

/** The first candidate that answers `--version` (a snap stub or a broken install does not). */
function firstWorking(candidates: readonly string[], notFound: string, check?: (line: string) => boolean): CapabilityStatus {
  const failures: string[] = [];
  for (const c of candidates) {
    const v = version(c);
    if (v.ok && (!check || check(v.line))) return { available: true, path: c };
    failures.push(`${c}: ${v.ok ? `unexpected version "${v.line}"` : v.why}`);
  }
  return { available: false, reason: failures.length ? `found but not working: ${failures.join('; ')}` : notFound };
}

export function findChromium(): CapabilityStatus {
  const fromEnv = process.env.CHROMIUM ? [process.env.CHROMIUM] : [];
  const candidates = [...fromEnv, ...BROWSER_NAMES.flatMap((n) => onPath(n)), ...(process.platform === 'darwin' ? MAC_BROWSERS.filter((p) => fs.existsSync(p)) : [])];
  return firstWorking(candidates, `none of ${BROWSER_NAMES.join(', ')} is on PATH`);
}

async function probeBubblewrap(): Promise<CapabilityStatus> {
  if (process.platform !== 'linux') return { available: false, reason: `bubblewrap is Linux only (this is ${process.platform})` };
  const p = await probeIsolation('linux');
  return p.available ? { available: true, ...(p.path && { path: p.path }) } : { available: false, reason: p.reason ?? 'the probe failed' };
}

/** One small request to the npm registry (its ping endpoint), 5 s at most: the only probe that leaves the machine. */
function probeNpmRegistry(): Promise<CapabilityStatus> {
  return new Promise((resolve) => {
    const req = https.get('https://registry.npmjs.org/-/ping', { timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? { available: true } : { available: false, reason: `https://registry.npmjs.org/-/ping answered ${res.statusCode}` });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (e) => resolve({ available: false, reason: `https://registry.npmjs.org is not reachable: ${e.message}` }));
  });
}

/** Names listed in GUARDED_SHELL_TEST_WITHOUT are reported missing, to try the fresh-machine path on a full one. */
function hiddenByEnv(): Set<string> {
  return new Set((process.env.GUARDED_SHELL_TEST_WITHOUT ?? '').split(',').map((s) => s.trim()).filter(Boolean));
}

export async function probeCapabilities(): Promise<CapabilityMap> {
  const probes: Record<Capability, () => Promise<CapabilityStatus> | CapabilityStatus> = {
    bubblewrap: probeBubblewrap,
    overlay: async () => {
      const p = await probeOverlay();
      if (!p.available) return { available: false, reason: p.reason };
      p.staging.dispose();
      return { available: true, path: p.tools.unshare };
    },
    chromium: findChromium,
    gawk: () => firstWorking(onPath('gawk'), 'gawk is not on PATH', (l) => /GNU Awk/i.test(l)),
    bsdtar: () => firstWorking(onPath('bsdtar'), 'bsdtar is not on PATH', (l) => /bsdtar|libarchive/i.test(l)),
    git: () => firstWorking(onPath('git'), 'git is not on PATH', (l) => /^git version/.test(l)),
    python3: () => firstWorking(onPath('python3'), 'python3 is not on PATH', (l) => /^Python 3/.test(l)),
    // The launcher's own trial: a command that exits 3 only as PID 1 of a new PID namespace.
    namespaces: () => {
      if (process.platform !== 'linux') return { available: false, reason: `PID namespaces are Linux only (this is ${process.platform})` };
      const tools = findLinuxTools();
      if (!tools) return { available: false, reason: 'unshare and setpriv (util-linux) or timeout (coreutils) are not in /usr/bin or /bin' };
      return namespacesWork(tools) ? { available: true, path: tools.unshare } : { available: false, reason: 'the trial run of unshare failed: no PID namespace can be made here' };
    },
    // The fork server's own trial: the built binary forks a stage into namespaces of its own.
    'fork-server': () => {
      if (process.platform !== 'linux') return { available: false, reason: `PID namespaces are Linux only (this is ${process.platform})` };
      const binary = findForkServer();
      if (!binary) return { available: false, reason: 'the build made no fork server (dist/guarded-shell-launcher: no C compiler)' };
      return forkServerWorks(binary) ? { available: true, path: binary } : { available: false, reason: `${binary} cannot fork a stage into namespaces of its own here` };
    },
    'http-clients': () => {
      for (const n of ['curl', 'wget']) {
        const s = firstWorking(onPath(n), `${n} is not on PATH`);
        if (!s.available) return s;
      }
      return { available: true };
    },
    'npm-registry': probeNpmRegistry,
    'rule-programs': () => {
      const missing = RULE_PROGRAMS.filter((n) => onPath(n).length === 0);
      return missing.length ? { available: false, reason: `not on PATH: ${missing.join(', ')}` } : { available: true };
    },
    'hint-programs': () => {
      const missing = HINT_PROGRAMS.filter((n) => onPath(n).length === 0);
      return missing.length ? { available: false, reason: `not on PATH: ${missing.join(', ')}` } : { available: true };
    },
    'project-tools': () => {
      const missing = ['make', 'tar', 'python3'].filter((n) => onPath(n).length === 0);
      if (missing.length) return { available: false, reason: `not on PATH: ${missing.join(', ')}` };
      const r = spawnSync('python3', ['-c', 'import pytest, venv, ensurepip'], { encoding: 'utf8', timeout: 20_000 });
      return r.status === 0 ? { available: true } : { available: false, reason: `python3 cannot import pytest, venv and ensurepip: ${(r.stderr || String(r.error)).trim().split('\n').pop()}` };
    },
    // The packager is installed on demand, from the registry; a test must not, so it only looks.
    vsce: () => {
      const n = findNode22();
      if (!n.node) return { available: false, reason: n.reason };
      const v = installedVsce();
      return v === wantedVsce() ? { available: true, path: n.node } : { available: false, reason: `@vscode/vsce ${wantedVsce()} is not installed in tools/vsce${v ? ` (found ${v})` : ''}` };
    },
  };
  const hidden = hiddenByEnv();
  const out = {} as Record<Capability, CapabilityStatus>;
  for (const name of CAPABILITIES) {
    out[name] = hidden.has(name) ? { available: false, reason: 'hidden by GUARDED_SHELL_TEST_WITHOUT' } : await probes[name]();
  }
  return out;
}

export const strict = (): boolean => /^(1|true|yes)$/i.test(process.env.GUARDED_SHELL_STRICT ?? '');

/** The one line printed for a missing capability. */
export function summaryLine(name: Capability, s: CapabilityStatus, isStrict: boolean): string {
  const { needed, install } = INSTALL[name];
  return `${isStrict ? 'FAILED (GUARDED_SHELL_STRICT)' : 'skipped'}: ${needed} — ${name} unavailable (${(s.reason ?? '').replace(/\.$/, '')}). Install: ${install}`;
}
