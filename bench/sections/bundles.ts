import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Row, SectionResult } from '../report';

/** Sizes of the shipped bundles (dist/*.js, without source maps), as built by `node esbuild.mjs` for this run. */
export function bundles(repo: string): SectionResult {
  const dist = path.join(repo, 'dist');
  const files = fs.existsSync(dist) ? fs.readdirSync(dist).filter((f) => f.endsWith('.js')).sort() : [];
  const rows: Row[] = files.map((f) => {
    const size = fs.statSync(path.join(dist, f)).size;
    return { measurement: `bundle dist/${f}`, result: `${(size / 1024).toFixed(0)} KiB`, baseline: '', ratio: '' };
  });
  const data = Object.fromEntries(files.map((f) => [f, fs.statSync(path.join(dist, f)).size]));
  return {
    id: 'bundles',
    title: 'Bundle sizes',
    rows,
    data,
    notes: ['Development build (not minified, source maps beside, not counted); `node esbuild.mjs --production` minifies.'],
  };
}
