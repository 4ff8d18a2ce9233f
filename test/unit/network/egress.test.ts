import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Egress } from '../../../src/core/network/egress';

const refuseAll = { decide: async () => ({ allowed: false as const, rule: 'test', reason: 'test' }), addressPolicy: { allowLoopback: false, allowPrivate: false } };

describe('the egress sessions of a server', () => {
  it('each command gets its own socket in a folder only the server enters, gone with the last open session', async () => {
    const egress = new Egress();
    const a = await egress.open(refuseAll);
    const b = await egress.open(refuseAll);
    const dir = path.dirname(a.socketPath);
    expect(path.dirname(b.socketPath)).toBe(dir);
    expect(a.socketPath).not.toBe(b.socketPath);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(a.socketPath).isSocket()).toBe(true);
    await a.close();
    expect(fs.existsSync(a.socketPath)).toBe(false);
    expect(fs.existsSync(dir)).toBe(true); // b still listens there
    await b.close();
    await b.close(); // twice is once
    expect(fs.existsSync(dir)).toBe(false); // a server killed between commands leaves nothing behind
    const c = await egress.open(refuseAll);
    expect(fs.existsSync(c.socketPath)).toBe(true);
    await c.close();
    egress.dispose();
  });
});
