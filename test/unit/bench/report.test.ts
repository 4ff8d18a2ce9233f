import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAND_WRITTEN_MARK, handWrittenTail } from '../../../bench/report';
import { bundleContents } from '../../../bench/sections/bundles';
import { REPO } from '../../helpers/serverProcess';

describe('BENCHMARKS.md regeneration', () => {
  it('keeps everything from the hand-written mark on, byte for byte', () => {
    const kept = `${HAND_WRITTEN_MARK}\n\n## Three folders in VS Code\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n`;
    expect(handWrittenTail(`# Benchmarks\n\nold generated text\n${kept}`)).toBe(`\n${kept}`);
  });

  it('starts the hand-written part with the mark when the file has none yet', () => {
    expect(handWrittenTail('# Benchmarks\nold\n')).toBe(`\n${HAND_WRITTEN_MARK}\n`);
    expect(handWrittenTail('')).toBe(`\n${HAND_WRITTEN_MARK}\n`);
  });

  it('the committed BENCHMARKS.md has the mark, so its hand-measured sections survive a rerun', () => {
    expect(fs.readFileSync(path.join(REPO, 'BENCHMARKS.md'), 'utf8')).toContain(HAND_WRITTEN_MARK);
  });
});

describe('bundle contents', () => {
  it('groups a metafile\'s output bytes by package and src folder, largest first', () => {
    const meta = {
      outputs: {
        'dist/cli.js': {
          bytes: 700,
          inputs: {
            'node_modules/zod/v4/core/core.js': { bytesInOutput: 100 },
            'node_modules/zod/v4/classic/schemas.js': { bytesInOutput: 150 },
            'node_modules/@modelcontextprotocol/sdk/dist/esm/types.js': { bytesInOutput: 200 },
            'src/core/commands/rules/tar.ts': { bytesInOutput: 120 },
            'src/core/commands/decide.ts': { bytesInOutput: 30 },
            'src/core/policy.ts': { bytesInOutput: 10 },
            'scripts/bundle/iconv-lite.cjs': { bytesInOutput: 5 },
          },
        },
      },
    };
    expect(bundleContents(meta)).toEqual([
      ['zod', 250],
      ['@modelcontextprotocol/sdk', 200],
      ['src/core/commands', 150],
      ['src/core', 10],
      ['iconv-lite stand-in (scripts/bundle)', 5],
    ]);
  });
});
