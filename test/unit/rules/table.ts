import { expect, it } from 'vitest';
import { judgeCommand } from '../../../src/core/commands/rules';

/** One row: the attack (or the harmless use) in words, the argv, and the rule id expected (or 'allow'). */
export type Row = readonly [title: string, argv: readonly string[], expected: string];

/** Runs a table: each row becomes one test named after the attack it stops (or the use it keeps working). */
export function runTable(rows: readonly Row[]): void {
  for (const [title, argv, expected] of rows) {
    it(`${expected === 'allow' ? 'keeps allowing' : 'stops'} ${title}: ${JSON.stringify(argv)}`, () => {
      const v = judgeCommand(argv);
      if (expected === 'allow') {
        expect(v).toEqual({ kind: 'allow', rule: 'rules.none' });
      } else {
        expect(v.kind).toBe('deny');
        expect(v.rule).toBe(expected);
        if (v.kind === 'deny') expect(v.reason.length).toBeGreaterThan(20);
      }
    });
  }
}
