import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resultLine, runGoals, summary, type AgentSession, type GoalResult } from './agent';
import { directSession } from './direct';
import { planFor } from './plan';
import { REAL_PROJECTS } from './realProjects';
import { CONFIGURATIONS, startSession, type ConfigurationName } from './sessions';

/**
 * The scripted agent against a REAL project (scripts/agent-job.mjs): clones the project into a temporary folder
 * (the original is never touched), breaks the plan's line and commits that as the bug, then lets the agent fix it
 * through the real server in the chosen configuration — or directly (`direct`: the baseline a plain terminal
 * gives on this machine) — and prints one line per goal and the count.
 */

const USAGE = `usage: node scripts/agent-job.mjs --project GIT-DIR --plan ${Object.keys(REAL_PROJECTS).join('|')} --config ${[...Object.keys(CONFIGURATIONS), 'direct'].join('|')} [--keep]`;

function args(argv: readonly string[]): { project: string; plan: string; config: ConfigurationName | 'direct'; keep: boolean } {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const project = get('--project');
  const plan = get('--plan');
  const config = get('--config') as ConfigurationName | 'direct' | undefined;
  if (!project || !plan || !config || !(plan in REAL_PROJECTS) || !(config === 'direct' || config in CONFIGURATIONS)) throw new Error(USAGE);
  return { project: path.resolve(project), plan, config, keep: argv.includes('--keep') };
}

/** The person's own git identity (what the server will read from their configuration), when they have one. */
function personIdentity(): { name: string; email: string } | undefined {
  const get = (key: string) => spawnSync('git', ['config', '--global', key], { encoding: 'utf8' }).stdout.trim();
  const name = get('user.name');
  const email = get('user.email');
  return name && email ? { name, email } : undefined;
}

function plantBug(ws: string, file: string, good: string, bad: string): void {
  const full = path.join(ws, file);
  const lines = fs.readFileSync(full, 'utf8').split('\n');
  const i = lines.indexOf(good);
  if (i < 0) throw new Error(`${file} has no line ${JSON.stringify(good)}: the plan is for another version of the project`);
  lines[i] = bad;
  fs.writeFileSync(full, lines.join('\n'));
  const env = { ...process.env, GIT_AUTHOR_NAME: 'agent-job', GIT_AUTHOR_EMAIL: 'agent-job@example.test', GIT_COMMITTER_NAME: 'agent-job', GIT_COMMITTER_EMAIL: 'agent-job@example.test' };
  execFileSync('git', ['commit', '-q', '-am', `Break ${file} (the bug the agent fixes)`], { cwd: ws, env });
}

export async function main(argv: readonly string[]): Promise<GoalResult[]> {
  const { project, plan, config, keep } = args(argv);
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `gs-agent-job-${plan}-`)));
  const ws = path.join(base, plan);
  // The server's state (the commands' HOME with its package caches, backups) stays in the run's folder.
  process.env.XDG_STATE_HOME = path.join(base, 'state');
  execFileSync('git', ['clone', '-q', '--no-hardlinks', project, ws]);
  const spec = REAL_PROJECTS[plan]!(personIdentity());
  plantBug(ws, spec.bug.file, spec.bug.good, spec.bug.bad);
  const label = `${plan} / ${config === 'direct' ? 'direct (no Guarded Shell: the baseline)' : CONFIGURATIONS[config]}`;
  console.log(`${label}: ${ws}`);
  const session: AgentSession = config === 'direct' ? directSession(ws) : await startSession(config, ws, { env: {} });
  let results: GoalResult[] = [];
  try {
    results = await runGoals(session, plan, planFor(spec, ws), ws, (r) => console.log(`${resultLine(r)} (${(r.ms / 1000).toFixed(1)} s)`));
  } finally {
    await session.close();
    if (!keep) fs.rmSync(base, { recursive: true, force: true });
  }
  console.log(summary(label, results));
  return results;
}
