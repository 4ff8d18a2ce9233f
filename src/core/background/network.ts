import type { Duplex } from 'node:stream';
import { attempt } from '../attempt';
import type { Egress } from '../network/egress';
import { PortPublisher, PortReach } from '../network/ports';
import type { ProxyWiring } from '../network/sandboxWiring';
import type { BackgroundRun } from './run';
import type { BackgroundRuns } from './runs';

/**
 * The port bridge of one sandboxed command (src/core/network/ports.ts): the ports of the folder's running
 * background commands it reaches on its own loopback, and, for a background command, the publisher its own ports
 * are reached through. Opened with the call's egress proxy, closed once every process of the call is gone.
 */
export interface PortBridge {
  readonly wiring: Pick<ProxyWiring, 'reach' | 'publish'>;
  close(): void;
}

/** The ports each running background command of the folder listens on now (asked of its bridge; also kept on the run). */
export async function publishedPorts(runs: BackgroundRuns): Promise<{ run: BackgroundRun; port: number }[]> {
  const running = runs.list().filter((r) => r.running && r.publisher);
  const lists = await Promise.all(running.map(async (r) => (r.ports = await r.publisher!.ports())));
  const seen = new Set<number>();
  const out: { run: BackgroundRun; port: number }[] = [];
  running.forEach((run, i) => {
    for (const port of lists[i]!) {
      // Two runs on one port (each in its own sandbox): the older one is reached, as the first to bind would be.
      if (seen.has(port)) continue;
      seen.add(port);
      out.push({ run, port });
    }
  });
  return out;
}

/**
 * For the fetch tool: a connection to a loopback port a sandboxed background command of the folder listens on, or
 * undefined when none does (then this machine's loopback is what the URL names).
 */
export function portRoute(runs: BackgroundRuns): (port: number) => Promise<(() => Promise<Duplex>) | undefined> {
  return async (port) => {
    const hit = (await publishedPorts(runs)).find((t) => t.port === port);
    // The connection comes paused (nothing is read before its user listens); HTTP's client listens on a later tick.
    return hit && (() => hit.run.publisher!.open(port).then((s) => (setImmediate(() => s.resume()), s)));
  };
}

export async function openPortBridge(runs: BackgroundRuns, egress: Egress, publishFor?: BackgroundRun): Promise<PortBridge> {
  const places: Array<{ release(): void }> = [];
  let reach: PortReach | undefined;
  let publisher: PortPublisher | undefined;
  const close = () => {
    reach?.close();
    publisher?.close();
    for (const p of places) attempt(() => p.release());
  };
  try {
    const targets = (await publishedPorts(runs)).map((t) => {
      const place = egress.place('r');
      places.push(place);
      return { port: t.port, publisher: t.run.publisher!, socket: place.path };
    });
    if (targets.length) reach = await PortReach.open(targets);
    if (publishFor) {
      const place = egress.place('p');
      places.push(place);
      publisher = await PortPublisher.listen(place.path, targets.map((t) => t.port));
      publishFor.publisher = publisher;
    }
  } catch (e) {
    close();
    throw e;
  }
  return {
    wiring: { ...(reach && { reach: reach.wiring }), ...(publisher && { publish: publisher.socketPath }) },
    close,
  };
}
