import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';

/**
 * dist/cli.js and dist/server.js: start their bundle (dist/cli-main.js, or dist/server-main.js, the server process
 * the VS Code extension forks) with V8's code cache, so a start does not parse and compile the bundle again
 * (issue 17: about a third of the time to ready). Node 22.1+ (and so VS Code's own) has its own cache
 * (module.enableCompileCache); on older Node the bundle is compiled with vm.Script and V8's cached data.
 *
 * The cache is code the server runs, so it lives only in a folder of this user that nobody else can write
 * (~/.cache/guarded-shell, 0700, checked before every use; the sandbox and the server's own file I/O hide it,
 * see SENSITIVE_HOME_ENTRIES), is keyed by a hash of the bundle's bytes and the Node version, and is written
 * by rename from a fresh file. Anything unusual — no home, a folder others can write, a cache V8 rejects, any
 * error — means a plain start without the cache. NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch) turns it off.
 */
declare const GUARDED_SHELL_STARTER_MAIN: string | undefined;
/** The bundle this starter loads, chosen at build time (esbuild.mjs); its name without `-main.js` prefixes its cache. */
const MAIN_NAME = typeof GUARDED_SHELL_STARTER_MAIN === 'string' ? GUARDED_SHELL_STARTER_MAIN : 'cli-main.js';
const MAIN = path.join(__dirname, MAIN_NAME);
const PREFIX = MAIN_NAME.replace(/-main\.js$/, '');
/** Relative to the home folder; also on the sandbox's hidden list (src/core/isolation/context.ts). */
export const COMPILE_CACHE_DIR = path.join('.cache', 'guarded-shell');

/** The cache folder, created 0700 when missing; undefined unless it is ours alone. */
function privateDir(): string | undefined {
  const home = os.homedir();
  if (!home || !path.isAbsolute(home)) return undefined;
  const dir = path.join(home, COMPILE_CACHE_DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
  return st.isDirectory() && mine && (st.mode & 0o077) === 0 ? dir : undefined;
}

function readCache(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (typeof process.getuid === 'function' && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0) return undefined;
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Caches kept per starter: the newest few, not only the last, so two versions started side by side (`npx` of two
 * releases, a checkout beside an install) do not evict each other's cache at every start.
 */
const CACHES_KEPT = 3;

/** Writes the cache beside the old ones by rename (never half a file), then drops all but the newest few of ours. */
function writeCache(dir: string, file: string, data: Buffer): void {
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeFileSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    const ours = new RegExp(`^${PREFIX}-[0-9a-f]+\\.v8$`); // the other starter's caches are not ours to drop
    const older = fs
      .readdirSync(dir)
      .filter((f) => ours.test(f) && f !== path.basename(file))
      .map((f) => ({ f, mtime: fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const { f } of older.slice(CACHES_KEPT - 1)) fs.rmSync(path.join(dir, f), { force: true });
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}

/** Node < 22.1: compiles the bundle as Node's CommonJS loader would, with V8's cached data from the last start. */
function compileWithCodeCache(dir: string): () => void {
  const source = fs.readFileSync(MAIN, 'utf8');
  const key = createHash('sha256').update(process.version).update('\0').update(process.arch).update('\0').update(source).digest('hex').slice(0, 32);
  const file = path.join(dir, `${PREFIX}-${key}.v8`);
  const cachedData = readCache(file);
  const script = new vm.Script(Module.wrap(source), { filename: MAIN, ...(cachedData && { cachedData }) });
  if (!cachedData || script.cachedDataRejected) {
    // Written once the start is done, so the cache also holds the functions the start compiled.
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      writeCache(dir, file, script.createCachedData());
    };
    setTimeout(write, 1000).unref();
    process.once('exit', write);
  }
  const fn = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  return () => {
    const main = new Module(MAIN, module);
    main.filename = MAIN;
    main.loaded = true;
    fn.call(main.exports, main.exports, Module.createRequire(MAIN), main, MAIN, path.dirname(MAIN));
  };
}

function start(): void {
  let dir: string | undefined;
  try {
    dir = process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : privateDir();
  } catch {
    dir = undefined;
  }
  if (dir) {
    const enable = (Module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
    if (typeof enable === 'function') {
      try {
        enable(dir);
        // Node writes its cache at a clean exit only; a server that is killed (as VS Code may kill its server)
        // would never have one. Written once the start is done, like the vm path below.
        const flush = (Module as { flushCompileCache?: () => void }).flushCompileCache;
        if (typeof flush === 'function') setTimeout(() => flush(), 1000).unref();
      } catch {
        /* a runtime that refuses it (an embedder's Node): a plain start */
      }
      require(MAIN);
      return;
    }
    let run: (() => void) | undefined;
    try {
      run = compileWithCodeCache(dir);
    } catch {
      run = undefined; // compiling with the cache failed: a plain start below
    }
    if (run) return run(); // the CLI's own errors are its own: never started a second time
  }
  require(MAIN);
}

start();
