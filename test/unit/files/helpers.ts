import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../../../src/core/approval';
import { unavailableApprover } from '../../../src/core/approval';
import { AuditLog, memorySink } from '../../../src/core/audit';
import type { FileDeps } from '../../../src/core/files/types';
import { parsePolicy, type PolicyInput } from '../../../src/core/policy';

/** A temp workspace (real path) plus a sibling "outside" folder, both removed by cleanup(). */
export function tempWorkspace(): { root: string; outside: string; cleanup: () => void } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-files-')));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  return { root, outside, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/** An approver that records every request and answers as told. */
export function recordingApprover(answer: Partial<ApprovalDecision> = { approved: true }): Approver & { requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  return {
    kind: 'fake',
    requests,
    approve: async (request) => {
      requests.push(request);
      return { approved: false, by: 'user', ...answer };
    },
  };
}

export function deps(root: string, overrides: Partial<PolicyInput> = {}, approver: Approver = unavailableApprover): FileDeps & { sink: ReturnType<typeof memorySink> } {
  const sink = memorySink();
  const policy = parsePolicy({ root, ...overrides });
  return { policy: () => policy, approver: () => approver, audit: new AuditLog([sink]), sink };
}

export const call = (tool: string) => ({ tool, requestId: `test:${tool}` });

/** Every file below `dir` with its bytes, for "nothing else changed" checks. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isSymbolicLink()) out[path.relative(dir, p)] = `-> ${fs.readlinkSync(p)}`;
      else out[path.relative(dir, p)] = fs.readFileSync(p).toString('base64');
    }
  };
  walk(dir);
  return out;
}
