import type { Row, SectionResult } from '../report';
import { httpClient, shell, startHttp } from '../server';
import { ms, ratio, summarize } from '../stats';

/**
 * The port bridge's price (docs/network.md, "A dev server in the background"): a later sandboxed command reaching
 * a server a background command runs in ITS sandbox, against the same client reaching the same server inside one
 * sandbox, interleaved in the same run. Python's http.client and http.server on both sides, so only the way between
 * them differs. Opt-in (`npm run bench -- --only=ports`): it needs bubblewrap and python3.
 */

const PORT = 8123;
const SERVE = `import http.server,functools
class Q(http.server.SimpleHTTPRequestHandler):
    def log_message(self,*a): pass
http.server.ThreadingHTTPServer(("127.0.0.1",PORT), functools.partial(Q, directory=".")).serve_forever()`;
/** The client: N new connections (one GET each), then one 20 MB download; prints ms per connection and MB/s. */
const CLIENT = (port: number, n: number) => `import http.client,time
t=time.perf_counter()
for i in range(${n}):
    c=http.client.HTTPConnection("127.0.0.1",${port}); c.request("GET","/"); c.getresponse().read(); c.close()
d=time.perf_counter()-t
t=time.perf_counter()
c=http.client.HTTPConnection("127.0.0.1",${port}); c.request("GET","/big.bin"); n=len(c.getresponse().read()); c.close()
print(f"{d/${n}*1000:.3f} {n/(time.perf_counter()-t)/1e6:.1f}")`;
/** Both in one sandbox: the server in a thread, then the client. */
const BOTH = (port: number, n: number) => `import threading,sys
${SERVE.replace('PORT', String(port)).replace('.serve_forever()', '')}
s=http.server.ThreadingHTTPServer(("127.0.0.1",${port}), functools.partial(Q, directory="."))
threading.Thread(target=s.serve_forever,daemon=True).start()
${CLIENT(port, n)}`;

export async function ports(rounds: number, connections: number): Promise<SectionResult> {
  const server = await startHttp(['--allow', 'python3'], 'required');
  try {
    const client = await httpClient(server.url);
    const made = await shell(client, ['python3', '-c', 'open("big.bin","wb").write(bytes(20 << 20))']);
    if (made.outcome !== 'ok') throw new Error(`the 20 MB file was not made: ${JSON.stringify(made).slice(0, 300)}`);
    const time = async (command: string[]) => {
      const t0 = performance.now();
      const r = await shell(client, command);
      if (r.outcome !== 'ok') throw new Error(`${command.slice(0, 2).join(' ')} gave ${JSON.stringify(r).slice(0, 300)}`);
      return performance.now() - t0;
    };
    const idle = async () => time(['python3', '-c', 'pass']);
    const startBare: number[] = [];
    for (let i = 0; i < rounds * 5; i++) startBare.push(await idle());
    const started = await shell(client, ['python3', '-u', '-c', SERVE.replace('PORT', String(PORT))], { background: true });
    if (started.outcome !== 'started') throw new Error(`the background server did not start: ${JSON.stringify(started).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 1500));
    const startWith: number[] = [];
    const bridge: number[][] = [[], []];
    const direct: number[][] = [[], []];
    for (let i = 0; i < rounds; i++) {
      for (let k = 0; k < 5; k++) startWith.push(await idle());
      // Interleaved: each round measures both ways under the same load.
      for (const [out, command] of [[bridge, CLIENT(PORT, connections)], [direct, BOTH(PORT + 1, connections)]] as const) {
        const r = await shell(client, ['python3', '-c', command]);
        const [perConn, mbs] = String(r.stdout ?? '').trim().split(' ').map(Number);
        if (!Number.isFinite(perConn) || !Number.isFinite(mbs)) throw new Error(`the client gave ${JSON.stringify(r).slice(0, 300)}`);
        out[0]!.push(perConn!);
        out[1]!.push(mbs!);
      }
    }
    await client.callTool({ name: 'shell_background', arguments: { id: String(started.background.id), stop: true } });
    await client.close();
    const p50 = (xs: number[]) => summarize(xs).p50;
    const rows: Row[] = [
      { measurement: `port bridge: ms per new connection (p50 of ${rounds} x ${connections})`, result: ms(p50(bridge[0]!)), baseline: `one sandbox ${ms(p50(direct[0]!))}`, ratio: ratio(p50(bridge[0]!), p50(direct[0]!)) },
      { measurement: 'port bridge: 20 MB download, MB/s (p50)', result: p50(bridge[1]!).toFixed(1), baseline: `one sandbox ${p50(direct[1]!).toFixed(1)}`, ratio: ratio(p50(bridge[1]!), p50(direct[1]!)) },
      { measurement: 'a later command\'s start while a background command publishes a port (p50)', result: ms(p50(startWith)), baseline: `none ${ms(p50(startBare))}`, ratio: ratio(p50(startWith), p50(startBare)) },
    ];
    return { id: 'ports', title: 'Port bridge (background commands, --isolation required)', rows, data: { bridge, direct, startBare, startWith }, notes: [] };
  } finally {
    await server.stop();
  }
}
