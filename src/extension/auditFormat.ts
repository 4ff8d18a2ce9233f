import type { AuditRecord } from '../core/audit';

/**
 * One audit record as a log line: the essentials first (event, tool, outcome), then the rest as JSON. Records are
 * redacted by the server's AuditLog before they travel; nothing is added here.
 */
export function formatAudit(r: AuditRecord): string {
  const { timestamp: _t, event, tool, result_type, ...rest } = r;
  const head = [event, tool, result_type].filter((x) => typeof x === 'string' && x).join(' ');
  const tail = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
  return `${head}${tail}`;
}
