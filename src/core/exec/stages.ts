import * as fs from 'node:fs';
import type { LaunchedStage } from './launch/contract';
import type { Supervisor } from './supervise';

/**
 * The started stages of one call and what flows through them: stderr of every stage and stdout of the last into the
 * supervisor's captures, the input into the first; 'exit' and 'close' recorded, a failed start told to the
 * supervisor.
 */

export interface Stage {
  readonly child: LaunchedStage;
  exited: boolean;
  closed: boolean;
  exitCode: number | null;
  signal: string | null;
}

/** What the first stage reads: text written and closed, or a file pumped through the pipe (never handed over). */
export interface StageInput {
  readonly text?: string | Uint8Array;
  readonly fileFd?: number;
}

export class CallStages {
  readonly list: Stage[] = [];
  /** The input file's descriptor now belongs to its pump, which closes it. */
  pumped = false;
  private waiters: Array<() => void> = [];

  constructor(private readonly sup: Supervisor, private readonly input: StageInput) {}

  get started(): boolean {
    return this.list.some((s) => s.child.pid !== undefined);
  }

  adopt(children: readonly LaunchedStage[]): void {
    children.forEach((child, i) => this.wire(child, i === 0, i === children.length - 1));
  }

  /** Resolves true once every stage's pipes closed, false after `ms`. */
  allClosed(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.list.every((s) => s.closed)) return resolve(true);
      const t = setTimeout(() => resolve(false), ms);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  /** Gives up on pipes someone outside the call still holds. */
  abandon(): void {
    this.waiters = [];
    for (const s of this.list) for (const stream of [s.child.stdin, s.child.stdout, s.child.stderr]) stream?.destroy();
  }

  /** Past the output limit: our read end is closed, the writer gets EPIPE (as under `| head`), memory stays flat. */
  closeOutput(stream: 'stdout' | 'stderr'): void {
    if (stream === 'stdout') this.list[this.list.length - 1]?.child.stdout?.destroy();
    else for (const s of this.list) s.child.stderr?.destroy();
  }

  private wire(child: LaunchedStage, first: boolean, last: boolean): void {
    const stage: Stage = { child, exited: false, closed: false, exitCode: null, signal: null };
    this.list.push(stage);
    child.on('error', (err: Error) => {
      // A start that failed (ENOENT, EACCES: told on the next tick), or the launcher lost while the stage ran.
      if (child.pid === undefined) stage.exited = stage.closed = true;
      if (child.pid === undefined || !stage.exited) this.sup.fail(err.message);
    });
    if (child.pid === undefined) {
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy(); // nothing runs behind them
      return;
    }
    child.stderr?.on('data', (chunk: Buffer) => this.sup.stderr.push(chunk));
    if (last) child.stdout?.on('data', (chunk: Buffer) => this.sup.stdout.push(chunk));
    if (first && child.stdin) this.feed(child);
    child.on('exit', (code: number | null, signal: string | null) => {
      stage.exited = true;
      stage.exitCode = code;
      stage.signal = signal;
      if (this.list.every((s) => s.exited)) this.sup.exited();
    });
    child.on('close', () => {
      stage.exited = true;
      stage.closed = true;
      if (this.list.every((s) => s.closed)) for (const w of this.waiters.splice(0)) w();
    });
  }

  private feed(child: LaunchedStage): void {
    const stdin = child.stdin!;
    if (this.input.fileFd !== undefined) {
      const pump = fs.createReadStream('', { fd: this.input.fileFd, autoClose: true, start: 0 });
      this.pumped = true;
      // A command that stops reading (head, or its death) closes the pipe: stop reading the file then.
      stdin.on('error', () => pump.destroy());
      pump.on('error', () => stdin.destroy());
      child.once('close', () => pump.destroy());
      pump.pipe(stdin);
    } else if (this.input.text !== undefined) {
      // A command that never reads its stdin closes the pipe: EPIPE here is normal, not a failure.
      stdin.on('error', () => undefined);
      stdin.end(typeof this.input.text === 'string' ? this.input.text : Buffer.from(this.input.text));
    } else {
      stdin.end();
    }
  }
}
