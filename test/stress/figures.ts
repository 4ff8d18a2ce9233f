import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Figures the stress files measure (calls, failures, leaked processes, fd and memory deltas). Each test file
 * runs in its own worker, so they meet in one JSON-lines file that the global teardown prints as a summary.
 */
export const FIGURES_FILE = path.resolve(__dirname, '..', '..', '.bench', 'stress-figures.jsonl');

export function recordFigures(section: string, figures: Record<string, string | number | boolean>): void {
  fs.mkdirSync(path.dirname(FIGURES_FILE), { recursive: true });
  fs.appendFileSync(FIGURES_FILE, JSON.stringify({ section, ...figures }) + '\n');
  // Also in the test's own output, next to the test that measured it.
  console.log(`[stress] ${section}: ${Object.entries(figures).map(([k, v]) => `${k}=${v}`).join(', ')}`);
}

export function readFigures(): Array<Record<string, string | number | boolean>> {
  if (!fs.existsSync(FIGURES_FILE)) return [];
  return fs
    .readFileSync(FIGURES_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
