import type { RunEnd, StoppedBy } from './run';

/** How a run's end reads, for the agent (readOutput, shell_background) and the panel. */

const BY: Record<StoppedBy, string> = {
  agent: 'stopped by the agent',
  person: 'stopped by a person (the approval panel)',
  lifetime: 'stopped at the end of its lifetime (background.maxSeconds)',
  session: 'stopped because its session ended',
  server: 'stopped because the folder or the server stopped',
};

export function endText(id: string, end: RunEnd): string {
  const after = `after ${(end.durationMs / 1000).toFixed(1)} s`;
  if (end.stoppedBy) return `${id} was ${BY[end.stoppedBy]} ${after}${end.signal ? ` (${end.signal})` : end.exitCode !== null ? ` (exit status ${end.exitCode})` : ''}`;
  if (end.outcome === 'error') return `${id} could not run: ${end.error ?? 'unknown error'}`;
  if (end.signal) return `${id} was ended by signal ${end.signal} ${after}`;
  return `${id} exited with status ${end.exitCode} ${after}`;
}
