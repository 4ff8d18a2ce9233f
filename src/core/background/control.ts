import { randomUUID } from 'node:crypto';
import { approvalRequest, type CommandDeps } from '../commands/run';
import { checkCommand } from '../commands/decide';
import { ToolError } from '../errors';
import { isDenialCode } from '../files/types';
import { isolationOutcomeOf } from '../isolationState';
import { problemOf, runGuarded, type Denial, type GuardedCall } from '../pipeline';
import type { RunInfo } from './run';
import { endText } from './text';

/**
 * shell_background: the session's background runs listed, one stopped, input sent to one. On the guarded pipeline
 * like every tool:
 * - listing and stopping are never asked about (they only look, or end what the agent itself started), and are
 *   audited;
 * - input is judged as the same command started with that input would be NOW: the command is checked again under
 *   the live policy (allowlist, rules, the mode, remembered approvals), so a mode that asks before that command
 *   asks before its input too, showing it; a policy that would refuse the command refuses the input.
 */

export interface ControlInput {
  readonly id?: string;
  readonly stop?: boolean;
  readonly input?: string;
  /** Close the run's stdin after `input` (or alone): a program reading to the end of its input then finishes. */
  readonly closeInput?: boolean;
}

export interface ControlResult {
  readonly outcome: 'ok' | 'denied' | 'failed';
  readonly message: string;
  /** The session's runs (a list), or the run acted on. */
  readonly runs?: readonly RunInfo[];
  readonly approvedBy?: string;
  readonly denial?: Denial;
  readonly error?: { readonly code: string; readonly message: string; readonly rule?: string };
}

export function controlRuns(deps: CommandDeps, call: GuardedCall, input: ControlInput): Promise<ControlResult> {
  const bg = deps.background;
  const requestId = call.requestId ?? randomUUID();
  return runGuarded<ControlResult>(deps, { ...call, requestId }, {
    event: 'shell_execution_audit',
    audited: (r) => (r.runs && input.id ? { background_state: input.stop ? 'stop' : 'input' } : {}),
    failed: (e) => problemOf(e, isDenialCode, 'background.control'),
    refused: (d) => ({ outcome: 'denied', message: d.message, denial: d }),
    plan: (policy) => {
      if (!bg) throw new ToolError('BAD_REQUEST', 'Background commands are not available on this connection.', 'background.unavailable');
      if (input.id === undefined) {
        if (input.stop || input.input !== undefined || input.closeInput) throw new ToolError('BAD_REQUEST', 'Name the background command ("id") to stop it or send it input.', 'background.no-id');
        return {
          actions: [], // a list only looks
          checks: [],
          what: 'this list',
          subject: { background: 'list' },
          request: () => {
            throw new Error('a list is never asked');
          },
          execute: async () => {
            const runs = bg.runs.list(bg.session).map((r) => r.info());
            return { outcome: 'ok', runs, message: runs.length ? runs.map(runLine).join('\n') : 'No background commands in this session.' };
          },
        };
      }
      const run = bg.runs.get(bg.session, input.id);
      if (!run) throw new ToolError('PATH_NOT_FOUND', `"${input.id}" is not a background command of this session (an ended one is forgotten once read to its end). shell_background {} lists this session's.`, 'background.unknown');
      const subject = { background: run.id, argv: run.identity.stages.flatMap((s, i) => (i ? ['|', ...s] : [...s])) };
      if (input.stop && (input.input !== undefined || input.closeInput)) throw new ToolError('BAD_REQUEST', 'Either stop a background command or send it input, not both in one call.', 'background.stop-and-input');
      if (input.stop) {
        return {
          actions: [], // ending what the agent itself started is never a question
          checks: [],
          what: `stopping ${run.id}`,
          subject,
          request: () => {
            throw new Error('a stop is never asked');
          },
          execute: async () => {
            run.stop('agent');
            await run.whenEnded();
            run.endReported = true;
            const unread = run.log.total - run.cursor;
            const collected = bg.runs.collectIfDone(run);
            const rest = collected ? 'it is forgotten' : `${unread} bytes of its output are not read yet: readOutput {"id":"${run.id}"}`;
            return { outcome: 'ok', runs: [run.info()], message: `${endText(run.id, run.end!)}; nothing of it runs any more; ${rest}.` };
          },
        };
      }
      if (input.input === undefined && !input.closeInput) throw new ToolError('BAD_REQUEST', `Say what to do with ${run.id}: "stop": true, "input": "text", or "closeInput": true (its output: readOutput {"id":"${run.id}"}).`, 'background.nothing');
      // The input: the command as it was started, with this input as its stdin, checked under the live policy.
      const isolation = deps.isolation();
      const request = { ...run.identity.request, stdin: input.input ?? '' };
      const checked = checkCommand(request, policy, {
        preApproved: (key) => deps.memory?.has(key) ?? false,
        sessionRules: () => deps.memory?.rules() ?? [],
        sandboxed: isolationOutcomeOf(isolation) === 'sandboxed',
        ...(deps.parentEnv && { parentEnv: deps.parentEnv }),
        ...(deps.developer && { developer: deps.developer() }),
      });
      return {
        ...checked,
        what: `input to ${run.id} ("${checked.key}")`,
        subject: { ...subject, stdin_given: input.input !== undefined, close_input: input.closeInput === true },
        decisionSubject: { command: checked.key, background: run.id },
        request: (verdict, id) => approvalRequest(id, call.tool, verdict, checked, request, run.identity.isolation, { inputTo: run.id }),
        execute: async (gated) => {
          run.send(input.input ?? '', input.closeInput === true);
          const sent = input.input !== undefined ? `${Buffer.byteLength(input.input, 'utf8')} bytes sent to ${run.id}` : `nothing sent to ${run.id}`;
          return {
            outcome: 'ok', runs: [run.info()], ...(gated.approvedBy && { approvedBy: gated.approvedBy }),
            message: `${sent}${input.closeInput ? '; its input is closed' : ''}. Its output: readOutput {"id":"${run.id}"} (wait and until wait for it).`,
          };
        },
      };
    },
  });
}

/** One run in a list: id, state, the command, output read so far. */
export function runLine(r: RunInfo): string {
  const argv = r.stages.map((s) => s.map((a) => JSON.stringify(a)).join(' ')).join(' | ');
  const state = r.end ? endText(r.id, r.end).replace(`${r.id} `, '') : `running ${Math.round(r.elapsedMs / 1000)} s`;
  const ports = r.ports?.length ? `, listening on ${r.ports.join(', ')}` : '';
  return `${r.id}: ${argv} (${r.isolation}; ${state}${ports}; output ${r.outputBytes} bytes, ${r.outputBytes - r.readBytes} unread${r.inputOpen ? '; input open' : ''})`;
}
