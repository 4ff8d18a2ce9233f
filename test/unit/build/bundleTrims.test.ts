import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../helpers/serverProcess';

// What scripts/bundle/plugins.mjs leaves out of the shipped bundles, and the stand-in it puts in their place.
const require = createRequire(__filename);
const shim = require(path.join(REPO, 'scripts', 'bundle', 'iconv-lite.cjs')) as typeof import('iconv-lite');
const iconv = require('iconv-lite') as typeof import('iconv-lite');

describe('iconv-lite stand-in (TextDecoder)', () => {
  const text = 'grüße — 日本語 ✓ {"jsonrpc":"2.0"}';
  it.each(['utf-8', 'UTF8', 'latin1', 'iso-8859-1', 'utf-16le', 'windows-1252'])('decodes %s like iconv-lite, also across chunk boundaries', (enc) => {
    const bytes = iconv.encode(enc === 'latin1' || enc === 'iso-8859-1' || enc === 'windows-1252' ? 'grüße {"a":1}' : text, enc);
    const whole = iconv.decode(bytes, enc);
    // one byte at a time: a multi-byte character split between chunks must come out whole
    const d = shim.getDecoder(enc);
    let out = '';
    for (let i = 0; i < bytes.length; i++) out += d.write(bytes.subarray(i, i + 1));
    out += d.end() ?? '';
    expect(out).toBe(whole);
    expect(shim.encodingExists(enc)).toBe(true);
  });

  it('refuses an encoding it does not know with the message raw-body turns into "415 specified encoding unsupported"', () => {
    expect(shim.encodingExists('x-no-such-charset')).toBe(false);
    expect(() => shim.getDecoder('x-no-such-charset')).toThrow(/^Encoding not recognized: /); // raw-body's ICONV_ENCODING_MESSAGE_REGEXP
    expect(() => iconv.getDecoder('x-no-such-charset')).toThrow(/^Encoding not recognized: /);
  });
});

describe('the built bundles (dist/, built by the global setup with the same plugins)', () => {
  const cli = fs.readFileSync(path.join(REPO, 'dist', 'cli-main.js'), 'utf8'); // the CLI bundle (dist/cli.js starts it)
  it('hold neither iconv-lite\'s code-page tables nor zod\'s non-English locales', () => {
    expect(cli).not.toMatch(/big5hkscs/i); // one of iconv-lite's code pages
    expect(cli).not.toMatch(/erwartet instanceof|attendu, /); // zod's German and French messages (esbuild escapes the umlauts)
    expect(cli).toMatch(/expected instanceof|Invalid input/); // zod's English ones stay
    expect(cli).toContain('Encoding not recognized: '); // the stand-in is there instead
  });
});
