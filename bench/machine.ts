import * as fs from 'node:fs';
import * as os from 'node:os';

export interface Machine {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly kernel: string;
  /** 1/5/15-minute load averages when the run started: on a shared machine the absolute times depend on it. */
  readonly loadAverage: readonly number[];
}

/** The machine the figures were measured on: they mean nothing without it. */
export function machine(): Machine {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpuModel = m[1]!.trim();
  } catch {
    /* not Linux: os.cpus() it is */
  }
  return {
    nproc: os.availableParallelism(),
    cpuModel,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    kernel: os.release(),
    loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

export function describeMachine(m: Machine): string {
  return `${m.nproc} CPU (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.platform}, kernel ${m.kernel}; load average at start ${m.loadAverage.join(' / ')}`;
}
