/** The shape every section returns, and the plain-text table printed on stdout. */

export interface Row {
  readonly measurement: string;
  readonly result: string;
  /** The same thing done without Guarded Shell, measured in the same run. */
  readonly baseline?: string;
  /** result / baseline, or a pass/fail against the issue's target. */
  readonly ratio?: string;
}

export interface SectionResult {
  readonly id: string;
  readonly title: string;
  readonly rows: Row[];
  /** Raw figures for the JSON file. */
  readonly data: Record<string, unknown>;
  readonly notes: string[];
  readonly seconds?: number;
}

const HEAD: Row = { measurement: 'measurement', result: 'Guarded Shell', baseline: 'baseline (same run)', ratio: 'ratio / target' };

function widths(rows: readonly Row[]): number[] {
  const all = [HEAD, ...rows];
  return [
    Math.max(...all.map((r) => r.measurement.length)),
    Math.max(...all.map((r) => r.result.length)),
    Math.max(...all.map((r) => (r.baseline ?? '').length)),
    Math.max(...all.map((r) => (r.ratio ?? '').length)),
  ];
}

export function textTable(sections: readonly SectionResult[]): string {
  const rows = sections.flatMap((s) => s.rows);
  const w = widths(rows);
  const line = (r: Row) =>
    [r.measurement.padEnd(w[0]!), r.result.padEnd(w[1]!), (r.baseline ?? '').padEnd(w[2]!), r.ratio ?? ''].join('  ').trimEnd();
  const out: string[] = [];
  for (const s of sections) {
    out.push('', `== ${s.title}${s.seconds !== undefined ? ` (${s.seconds.toFixed(1)} s)` : ''}`);
    out.push(line(HEAD));
    for (const r of s.rows) out.push(line(r));
    for (const n of s.notes) out.push(`   note: ${n}`);
  }
  return out.join('\n');
}

const cell = (s: string | undefined) => (s ?? '').replace(/\|/g, '\\|');

export function markdownTables(sections: readonly SectionResult[]): string {
  const out: string[] = [];
  for (const s of sections) {
    out.push(`### ${s.title}`, '');
    out.push('| measurement | Guarded Shell | baseline (same run) | ratio / target |', '| --- | --- | --- | --- |');
    for (const r of s.rows) out.push(`| ${cell(r.measurement)} | ${cell(r.result)} | ${cell(r.baseline)} | ${cell(r.ratio)} |`);
    if (s.notes.length) out.push('', ...s.notes.map((n) => `- ${n}`));
    out.push('');
  }
  return out.join('\n');
}
