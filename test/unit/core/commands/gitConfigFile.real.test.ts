import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGitConfig } from '../../../../src/core/commands/gitConfigFile';
import { mulberry32 } from '../../../helpers/prng';
import { requires } from '../../../helpers/needs';

requires('git');

/**
 * The server judges a repository's configuration by the keys git will see, so its reader must read a file exactly
 * as git does: a key hidden from the reader (a header and key on one line, a continuation, a quoted `#`, a
 * legacy `[section.sub]` header) would be a key nobody judged. Checked against the real git: for hand-picked
 * tricky files and for generated ones, `git config --file F --list -z` and parseGitConfig agree on every
 * key and value, and on whether the file is an error.
 */

let dir = '';
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-gitcfg-'));
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** What the real git reads from a file: key/value pairs (undefined value for a bare key), or 'error'. */
function gitReads(text: string): Array<[string, string | undefined]> | 'error' {
  const file = path.join(dir, 'config');
  fs.writeFileSync(file, text);
  const r = spawnSync('git', ['config', '--no-includes', '--file', file, '--list', '-z'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } });
  if (r.status !== 0) return 'error';
  return r.stdout.split('\0').filter((e) => e !== '').map((e) => {
    const nl = e.indexOf('\n');
    return nl < 0 ? [e, undefined] : [e.slice(0, nl), e.slice(nl + 1)];
  });
}

function weRead(text: string): Array<[string, string | undefined]> | 'error' {
  const parsed = parseGitConfig(text);
  return 'error' in parsed ? 'error' : parsed.entries.map((e) => [e.key, e.value]);
}

describe('the git configuration reader reads files as git does', () => {
  const tricky: [string, string][] = [
    ['a header and a key on one line', '[core] fsmonitor = /x/y\n'],
    ['two headers on one line', '[user][core]pager=less\n'],
    ['the legacy dotted header (lower-cased subsection)', '[Diff.TC]\n\tTextConv = x\n'],
    ['a quoted subsection keeps its case and escapes', '[diff "T\\"C\\\\x"]\n textconv = x\n'],
    ['a continuation line', '[core]\n\tpa\\\nger = x\n[gpg]\n\tprogram = a\\\nb\n'],
    ['a quoted comment character', '[format]\n\tpretty = "%H # %G?" ; real comment\n'],
    ['escapes in values', '[a]\n\tb = x\\ty\\n\\"z\\\\\n'],
    ['inner white space runs and trailing white space', '[a]\n\tb =   x \t y   \n'],
    ['a bare key (boolean true)', '[core]\n\tbare\n'],
    ['CRLF line ends', '[core]\r\n\tpager = x\r\n'],
    ['a byte order mark', '\uFEFF[core]\n\tpager = x\n'],
    ['a key before any header', 'pager = x\n[core]\nk=1\n'],
    ['an empty section name with a subsection', '[ "x"]\nk = 1\n'],
    ['comments everywhere', '# c\n; c\n[core] # c\n\tk = v # c\n'],
    ['an unknown escape (an error)', '[a]\n\tb = x\\q\n'],
    ['an unterminated quote (an error)', '[a]\n\tb = "x\n'],
    ['a bare key followed by a comment (an error)', '[a]\n\tb # c\n'],
    ['a header broken by a newline (an error)', '[a\n"b"]\n'],
    ['a key with an underscore (an error)', '[a]\n\tb_c = 1\n'],
    ['a header with a space and no quotes (an error)', '[a b]\nk=1\n'],
    ['an empty header (an error)', '[]\nk=1\n'],
    ['a backslash at the end of the file', '[a]\n\tb = x\\'],
    ['no newline at the end', '[a]\n\tb = x'],
    ['a bare key at the end', '[a]\n\tb'],
  ];
  it.each(tricky)('%s', (_title, text) => {
    expect(weRead(text)).toEqual(gitReads(text));
  });

  it('agrees with git on generated files (seeded)', () => {
    const headers = ['[core]', '[diff "x"]', '[Diff.X]', '[a "b\\"c"]', '[ "s"]', '[a.b.c]', '[gpg] ', '[x y]', '[]'];
    const keys = ['pager', 'textConv', 'b-c', 'program', 'B9', 'pager', 'program', 'url', 'fsmonitor', 'b_c', '9k'];
    const valueParts = ['value', ' ', '\t', '  ', '"quoted # not comment"', '%G?', '\\\n', '\\t', '\\n', '\\"', '\\\\', '#c', ';c', 'x y', '='];
    const badValueParts = ['"', '\\q', '\\'];
    const ends = ['\n', '\n', '\r\n', ' # c\n', '\t\n', ''];
    const seed = 28;
    const rnd = mulberry32(seed);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    let entries = 0;
    let errors = 0;
    for (let n = 0; n < 300; n++) {
      const lines: string[] = [];
      for (let l = 0, count = 1 + Math.floor(rnd() * 6); l < count; l++) {
        if (rnd() < 0.3) lines.push(pick(headers) + (rnd() < 0.3 ? `${pick(keys)}=1` : '') + pick(ends));
        else {
          const value = rnd() < 0.15 ? '' : ` = ${Array.from({ length: Math.floor(rnd() * 4) }, () => (rnd() < 0.04 ? pick(badValueParts) : pick(valueParts))).join('')}`;
          lines.push(`${rnd() < 0.5 ? '\t' : ''}${pick(keys)}${value}${pick(ends)}`);
        }
      }
      const text = (rnd() < 0.05 ? '\uFEFF' : '') + lines.join('');
      const git = gitReads(text);
      if (git === 'error') errors++;
      else entries += git.length;
      expect(weRead(text), `seed ${seed}, file ${n}: ${JSON.stringify(text)}`).toEqual(git);
    }
    // The generator must produce both readable files (with many keys) and errors, or it proves little.
    expect(entries, `${errors} errors`).toBeGreaterThan(200);
    expect(errors).toBeGreaterThan(30);
    expect(errors).toBeLessThan(250);
  });
});
