import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Row, SectionResult } from '../report';

/** What one bundle holds, from esbuild's metafile: bytes in the output per package (node_modules) or src folder. */
export function bundleContents(metafile: { outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }> }): Array<[string, number]> {
  const out = Object.entries(metafile.outputs).find(([f]) => f.endsWith('.js'))?.[1];
  const groups = new Map<string, number>();
  for (const [file, { bytesInOutput }] of Object.entries(out?.inputs ?? {})) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1];
    const own = /^(src\/[^/]+(?:\/[^/.]+(?=\/))?)/.exec(file)?.[1];
    const key = pkg ?? own ?? (file.startsWith('scripts/bundle/') ? 'iconv-lite stand-in (scripts/bundle)' : file);
    groups.set(key, (groups.get(key) ?? 0) + bytesInOutput);
  }
  return [...groups].sort((a, b) => b[1] - a[1]);
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/**
 * Sizes of the shipped bundles (dist/*.js, without source maps) as `npm run bench` builds them (the shipped
 * `--production` build), and what each holds (the metafiles `esbuild.mjs --metafile` wrote to .bench/meta/).
 */
export function bundles(repo: string): SectionResult {
  const dist = path.join(repo, 'dist');
  const files = fs.existsSync(dist) ? fs.readdirSync(dist).filter((f) => f.endsWith('.js')).sort() : [];
  const rows: Row[] = [];
  const data: Record<string, unknown> = {};
  for (const f of files) {
    const size = fs.statSync(path.join(dist, f)).size;
    const metaPath = path.join(repo, '.bench', 'meta', `${f}.json`);
    const contents = fs.existsSync(metaPath) ? bundleContents(JSON.parse(fs.readFileSync(metaPath, 'utf8'))) : [];
    const shown = contents.filter(([, b], i) => i === 0 || b >= 8 * 1024); // the largest always, by name
    const rest = contents.slice(shown.length).reduce((sum, [, b]) => sum + b, 0);
    const holds = [...shown.map(([k, b]) => `${k} ${kib(b)}`), ...(rest > 0 ? [`${contents.length - shown.length} more ${kib(rest)}`] : [])].join(', ');
    rows.push({ measurement: `bundle dist/${f}`, result: kib(size), baseline: '', ratio: '' });
    if (holds) rows.push({ measurement: `  dist/${f} holds`, result: holds, baseline: '', ratio: '' });
    data[f] = { bytes: size, contents: Object.fromEntries(contents) };
  }
  const minimal = path.join(repo, '.bench', 'build', 'minimal-server.cjs');
  if (fs.existsSync(minimal)) rows.push({ measurement: 'minimal-server baseline (bench/minimalServer.ts), bundled the same way', result: '', baseline: kib(fs.statSync(minimal).size), ratio: '' });
  return {
    id: 'bundles',
    title: 'Bundle sizes and contents',
    rows,
    data,
    notes: [
      'The shipped build (`node esbuild.mjs --production`: minified, as `npm pack` and the .vsix ship it; the source maps the bench asks for are not counted). "holds" = bytes each package or src folder contributes to the minified output (esbuild metafile), largest first; groups under 8 KiB after the first are summed.',
      'Left out of every bundle by scripts/bundle/plugins.mjs: zod\'s ~50 non-English locales (≈400 KiB unminified; nothing selects another locale) and iconv-lite\'s code pages (≈540 KiB; Node\'s TextDecoder decodes instead). Every start parses the whole bundle, so its size is start-up time in every process.',
      'dist/cli.js is the starter (src/cli/start.ts) that loads dist/cli-main.js with V8\'s code cache (~/.cache/guarded-shell); dist/cli-main.js serves both transports: stdio never runs the HTTP stack (loaded on first use), but without the cache V8 still scans its code at load.',
    ],
  };
}
