/**
 * Approvals a person granted beyond one request: "allow for this session" and "allow for 15 minutes", keyed by
 * the exact command line. Kept in memory only (a restart forgets them, which is the safe direction).
 */
export interface RememberedApproval {
  readonly key: string;
  /** Epoch ms when it expires; undefined = until the server stops. */
  readonly expiresAt?: number;
  readonly grantedAt: number;
}

export class ApprovalMemory {
  private readonly entries = new Map<string, RememberedApproval>();
  constructor(private readonly now: () => number = Date.now) {}

  allowForSession(key: string): void {
    this.entries.set(key, { key, grantedAt: this.now() });
  }

  allowFor(key: string, ms: number): void {
    this.entries.set(key, { key, grantedAt: this.now(), expiresAt: this.now() + ms });
  }

  has(key: string): boolean {
    const e = this.entries.get(key);
    if (!e) return false;
    if (e.expiresAt !== undefined && e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return false;
    }
    return true;
  }

  revoke(key: string): boolean {
    return this.entries.delete(key);
  }

  revokeAll(): void {
    this.entries.clear();
  }

  list(): RememberedApproval[] {
    return [...this.entries.values()].filter((e) => this.has(e.key));
  }
}
