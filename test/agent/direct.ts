import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentSession, Answer, ToolArgs } from './agent';

/**
 * The baseline for the real-project measurement: the same calls done directly, as a plain terminal would (no
 * Guarded Shell, no sandbox, the person's own environment). A goal this cannot do is not the product's doing —
 * the machine lacks something (no PyPI, no shellcheck) — and the report says so.
 */
export function directSession(ws: string): AgentSession {
  const answer = (tool: string, args: ToolArgs, outcome: 'ok' | 'failed', extra: Record<string, unknown>, text = ''): Answer => ({
    call: { tool, args }, text, sc: { outcome, ...extra }, isError: outcome !== 'ok',
  });
  const run = (tool: string, args: ToolArgs, argv: readonly string[], input?: string): Answer => {
    const r = spawnSync(argv[0]!, argv.slice(1), { cwd: ws, encoding: 'utf8', input, timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 });
    const out = { stdout: r.stdout ?? '', stderr: r.stderr ?? (r.error ? String(r.error) : ''), exitCode: r.status };
    return answer(tool, args, r.status === 0 ? 'ok' : 'failed', out, `${out.stdout}${out.stderr}`);
  };
  const file = (args: ToolArgs) => path.join(ws, String(args.file));
  return {
    cards: 0,
    close: async () => {},
    call: async (tool, args) => {
      switch (tool) {
        case 'shell_execute':
          return run(tool, args, args.command as string[]);
        case 'listFiles': {
          const entries = fs.readdirSync(path.join(ws, String(args.path ?? '.')), { withFileTypes: true }).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
          return answer(tool, args, 'ok', { entries }, entries.join('\n'));
        }
        case 'readFile': {
          const content = fs.readFileSync(file(args), 'utf8');
          return answer(tool, args, 'ok', { content }, content);
        }
        case 'replaceInFile': {
          const before = fs.readFileSync(file(args), 'utf8');
          if (!before.includes(String(args.oldText))) return answer(tool, args, 'failed', {}, 'oldText not found');
          fs.writeFileSync(file(args), before.replace(String(args.oldText), String(args.newText)));
          return answer(tool, args, 'ok', {});
        }
        case 'editFile':
          return run(tool, args, ['sed', '-i', '-e', String(args.script), String(args.file)]);
        case 'applyPatch':
          return run(tool, args, ['patch', '-p1', '--forward', '--no-backup-if-mismatch'], String(args.diff));
        default:
          return answer(tool, args, 'failed', {}, `the baseline has no ${tool}`);
      }
    },
  };
}
