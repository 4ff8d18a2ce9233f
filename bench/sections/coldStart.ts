import { spawnCapture } from '../baseline';
import type { Row, SectionResult } from '../report';
import { echoHello, httpClient, serverArgs, startHttp, stdioClient } from '../server';
import { median, ms, round } from '../stats';

/** Process start to the first successful `echo hello`, median of `runs`; baseline: `node -e 0` start to exit. */
export async function coldStart(runs: number): Promise<SectionResult> {
  const node: number[] = [];
  const endpoint: number[] = [];
  const http: number[] = [];
  const stdio: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await spawnCapture(process.execPath, ['-e', '0']);
    node.push(performance.now() - t);

    t = performance.now();
    const server = await startHttp();
    endpoint.push(performance.now() - t);
    try {
      const client = await httpClient(server.url);
      await echoHello(client);
      http.push(performance.now() - t);
      await client.close();
    } finally {
      await server.stop();
    }

    t = performance.now();
    const { client, transport } = await stdioClient(serverArgs());
    try {
      await echoHello(client);
      stdio.push(performance.now() - t);
    } finally {
      await client.close();
      await transport.close();
    }
  }
  const base = median(node);
  const rows: Row[] = [
    { measurement: 'cold start HTTP: spawn to "MCP endpoint" printed', result: ms(median(endpoint)), baseline: `node -e 0: ${ms(base)}`, ratio: '' },
    { measurement: 'cold start HTTP: spawn to first successful call', result: ms(median(http)), baseline: `node -e 0: ${ms(base)}`, ratio: `${(median(http) / base).toFixed(2)}x` },
    { measurement: 'cold start stdio: spawn to first successful call', result: ms(median(stdio)), baseline: `node -e 0: ${ms(base)}`, ratio: `${(median(stdio) / base).toFixed(2)}x` },
  ];
  return {
    id: 'coldStart',
    title: 'Cold start',
    rows,
    data: { runs, nodeMs: node.map((x) => round(x)), endpointMs: endpoint.map((x) => round(x)), httpFirstCallMs: http.map((x) => round(x)), stdioFirstCallMs: stdio.map((x) => round(x)) },
    notes: [`median of ${runs} runs; "first successful call" includes the MCP initialize handshake and one echo.`],
  };
}
