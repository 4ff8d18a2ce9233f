import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseConfigFile } from './configFile';

/**
 * Where the standalone server keeps the command rules a person saves with "Always allow" (VS Code keeps them in the
 * user setting `guardedShell.autoApprove`): the `autoApprove` list of the config file in effect, or, when none
 * was read at start, a new `guarded-shell.json` where the next start looks for one. Nothing else of the file
 * changes. The file is read without following a link and replaced by rename from a fresh file (never half
 * written); a file that appeared after the start (the agent may write the folder) is never adopted.
 */

export interface RuleFileTarget {
  /** The config file to update or create. */
  readonly file: string;
  /** False when no config file was in effect at start: the file must not exist yet (it is created). */
  readonly existed: boolean;
}

export class RuleFileError extends Error {
  override name = 'RuleFileError';
}

function readJson(file: string): Record<string, unknown> | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new RuleFileError(`${file} is a symbolic link; the rule was not saved there`);
    throw e;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new RuleFileError(`${file} is not a regular file; the rule was not saved there`);
    const text = fs.readFileSync(fd, 'utf8');
    parseConfigFile(text, file); // a file the server could not read at its next start is not written to
    return JSON.parse(text) as Record<string, unknown>;
  } finally {
    fs.closeSync(fd);
  }
}

function writeJson(file: string, json: Record<string, unknown>, mode: number): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode);
  try {
    fs.writeFileSync(fd, JSON.stringify(json, null, 2) + '\n');
    fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, file); // replaces the name itself, never a file a link points to
}

/** The standalone server's rule store: one config file, created at most once (by this server). */
export class RuleFile {
  private existed: boolean;
  readonly file: string;

  constructor(target: RuleFileTarget) {
    this.file = target.file;
    this.existed = target.existed;
  }

  add(rule: string): void {
    this.update((rules) => (rules.includes(rule) ? rules : [...rules, rule]));
  }

  remove(rule: string): void {
    this.update((rules) => rules.filter((r) => r !== rule));
  }

  private update(change: (rules: string[]) => string[]): void {
    const json = readJson(this.file);
    if (json === undefined && this.existed) throw new RuleFileError(`${this.file} no longer exists; the rule was not saved`);
    if (json !== undefined && !this.existed) {
      throw new RuleFileError(`${this.file} appeared after the server started (it was not read then); the rule was not saved there. Add it to that file yourself if you trust the file.`);
    }
    const current = Array.isArray(json?.autoApprove) ? (json!.autoApprove as unknown[]).filter((r): r is string => typeof r === 'string') : [];
    const next = change(current);
    if (next.length === current.length && next.every((r, i) => r === current[i])) return;
    const mode = json === undefined ? 0o600 : fs.statSync(this.file).mode & 0o777;
    writeJson(this.file, { ...(json ?? {}), autoApprove: next }, mode);
    this.existed = true;
  }
}
