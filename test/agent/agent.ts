/**
 * A scripted agent (issue 26): it works through a project's goals — list, read, git, grep, install, test, edit,
 * commit, scripts, lint — one MCP tool call at a time against a REAL Guarded Shell server, the way a coding agent
 * would, and reports for each goal whether it was done, judged by its real effect (files on disk, the repository's
 * history, what the tests printed), and if not, why, in one line.
 *
 * Like a real agent it reads its answers: when a goal's call is refused or fails, it may take another route, but
 * only a route the answer itself names (`advised`; a command that ran out of time is run again with the time the
 * answer offers). It never changes its settings.
 */

export type ToolArgs = Record<string, unknown>;

export interface Call {
  readonly tool: string;
  readonly args: ToolArgs;
}

/** One tool call's answer, as an agent sees it. */
export interface Answer {
  readonly call: Call;
  /** The text content (what the model reads). */
  readonly text: string;
  /** The structured content, when the tool sent one. */
  readonly sc?: Record<string, any>;
  readonly isError: boolean;
  /** A protocol-level failure (tool not offered, bad arguments …). */
  readonly thrown?: string;
}

/** A server session the agent talks to. `cards`: approval requests the person was shown so far. */
export interface AgentSession {
  call(tool: string, args: ToolArgs): Promise<Answer>;
  readonly cards: number;
  close(): Promise<void>;
}

export interface Advice {
  /** The refusal or failure text must contain this for the agent to take the route. */
  readonly when: string;
  readonly calls: readonly Call[];
}

export interface Goal {
  readonly id: string;
  readonly title: string;
  /** The calls, in order; the goal stops at the first one that is refused or fails. */
  readonly calls: readonly Call[];
  /** The last call is expected to run and fail (the tests before the fix). */
  readonly expectFailure?: boolean;
  readonly advised?: readonly Advice[];
  /** The goal's real effect, checked after its calls: undefined when done, otherwise why not. */
  readonly effect: (last: Answer, ws: string) => string | undefined;
}

export interface GoalResult {
  readonly project: string;
  readonly goal: Goal;
  readonly done: boolean;
  /** Why not, in one line; for a done goal the route taken when it was advised. */
  readonly why?: string;
  readonly calls: number;
  readonly cards: number;
  readonly ms: number;
}

export const shell = (...command: string[]): Call => ({ tool: 'shell_execute', args: { command } });
export const tool = (name: string, args: ToolArgs): Call => ({ tool: name, args });

/** The command line of a call, for messages. */
export function describeCall(c: Call): string {
  const cmd = c.args.command;
  return Array.isArray(cmd) ? cmd.join(' ') : `${c.tool} ${JSON.stringify(c.args)}`;
}

const oneLine = (s: string, max = 240) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

/** Why a call did not do its part, or undefined when it did (ran, and exited as the goal expects). */
function problem(a: Answer, expectFailure: boolean): string | undefined {
  if (a.thrown) return `${describeCall(a.call)}: ${oneLine(a.thrown)}`;
  const sc = a.sc;
  if (sc?.denial) return `${describeCall(a.call)}: refused (${sc.denial.code}, ${sc.denial.rule}): ${oneLine(sc.denial.message)}`;
  if (sc?.error && typeof sc.error === 'object') return `${describeCall(a.call)}: ${sc.error.code}: ${oneLine(sc.error.message)}`;
  if (expectFailure) {
    return sc?.outcome === 'failed' ? undefined : `${describeCall(a.call)}: expected the tests to run and fail, got ${sc?.outcome ?? 'no result'}: ${oneLine(a.text)}`;
  }
  if (sc?.outcome !== undefined && sc.outcome !== 'ok') {
    const out = `${sc.stderr ?? ''}\n${sc.stdout ?? ''}`.trim();
    const hint = sc.hint ? ` [hint: ${oneLine(sc.hint.text, 160)}]` : '';
    return `${describeCall(a.call)}: ${sc.outcome}${sc.exitCode != null ? ` (exit ${sc.exitCode})` : ''}: ${oneLine(out.slice(-600) || a.text)}${hint}`;
  }
  if (a.isError) return `${describeCall(a.call)}: ${oneLine(a.text)}`;
  return undefined;
}

/** The time a timed-out command may ask for, when the answer says so (commandResult.ts timeoutAdvice). */
const MORE_TIME = /call again with "timeout" up to (\d+)/;

/** Runs calls in order; stops at the first problem. A command that ran out of time is run again with the time offered. */
async function runCalls(session: AgentSession, calls: readonly Call[], expectFailure: boolean): Promise<{ last?: Answer; why?: string; made: number; route?: string }> {
  let last: Answer | undefined;
  let made = 0;
  let route: string | undefined;
  for (const [i, c] of calls.entries()) {
    last = await session.call(c.tool, c.args);
    made++;
    const more = c.tool === 'shell_execute' && last.sc?.outcome === 'timeout' ? MORE_TIME.exec(last.text) : null;
    if (more) {
      last = await session.call(c.tool, { ...c.args, timeout: Number(more[1]) });
      made++;
      route = `advised: again with timeout ${more[1]}`;
    }
    const why = problem(last, expectFailure && i === calls.length - 1);
    if (why) return { last, why, made, ...(route && { route }) };
  }
  return { ...(last && { last }), made, ...(route && { route }) };
}

export async function runGoal(session: AgentSession, project: string, goal: Goal, ws: string): Promise<GoalResult> {
  const started = performance.now();
  const cardsBefore = session.cards;
  const first = await runCalls(session, goal.calls, goal.expectFailure ?? false);
  let { last, why } = first;
  let made = first.made;
  let route = first.route;
  if (why && last) {
    // Another route, only when the answer names it.
    const said = `${last.text}\n${last.sc?.denial?.message ?? ''}`;
    for (const a of goal.advised ?? []) {
      if (!said.includes(a.when)) continue;
      const next = await runCalls(session, a.calls, goal.expectFailure ?? false);
      made += next.made;
      route = `advised: ${a.calls.map(describeCall).join('; ')}`;
      ({ last, why } = next.why ? { last: next.last, why: `${why} → then ${next.why}` } : { last: next.last, why: undefined });
      break;
    }
  }
  if (!why && last) why = goal.effect(last, ws);
  const result = { project, goal, done: !why, calls: made, cards: session.cards - cardsBefore, ms: Math.round(performance.now() - started) };
  return why ? { ...result, why } : route ? { ...result, why: route } : result;
}

export async function runGoals(session: AgentSession, project: string, goals: readonly Goal[], ws: string, onResult?: (r: GoalResult) => void): Promise<GoalResult[]> {
  const out: GoalResult[] = [];
  for (const g of goals) {
    const r = await runGoal(session, project, g, ws);
    onResult?.(r);
    out.push(r);
  }
  return out;
}

/** One line per goal: what the product feedback is made of. */
export function resultLine(r: GoalResult): string {
  return `${r.done ? 'done  ' : 'FAILED'} ${r.project}/${r.goal.id} (${r.goal.title})${r.cards ? ` [${r.cards} card${r.cards > 1 ? 's' : ''}]` : ''}${r.why ? ` — ${r.why}` : ''}`;
}

export function summary(label: string, results: readonly GoalResult[]): string {
  const done = results.filter((r) => r.done).length;
  const cards = results.reduce((n, r) => n + r.cards, 0);
  const pct = results.length ? Math.round((1000 * done) / results.length) / 10 : 0;
  return `${label}: ${done}/${results.length} goals done (${pct} %), ${cards} approval cards`;
}
