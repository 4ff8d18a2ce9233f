import * as fs from 'node:fs';
import { FIGURES_FILE, readFigures } from './figures';

/** Starts each run with an empty figures file and prints every figure once all stress files are done. */
export function setup(): void {
  fs.rmSync(FIGURES_FILE, { force: true });
}

export function teardown(): void {
  const figures = readFigures();
  const lines = ['', '== Stress figures'];
  for (const { section, ...rest } of figures) {
    lines.push(`  ${String(section).padEnd(34)} ${Object.entries(rest).map(([k, v]) => `${k}=${v}`).join('  ')}`);
  }
  if (figures.length === 0) lines.push('  (no figures recorded: did the stress files run?)');
  process.stdout.write(lines.join('\n') + '\n\n');
}
