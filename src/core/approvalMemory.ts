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
  /**
   * Command rules saved with "Always allow" while this server runs: the host writes them to the settings (VS Code)
   * or the config file (standalone); kept here too so the next call does not race that write and its push.
   */
  private readonly savedRules = new Set<string>();

  addRule(rule: string): void {
    this.savedRules.add(rule);
  }

  removeRule(rule: string): boolean {
    return this.savedRules.delete(rule);
  }

  rules(): readonly string[] {
    return [...this.savedRules];
  }

  /**
   * The settings that now hold the saved rules arrived (VS Code's push of `autoApprove`): a rule no longer there was
   * removed by the person (in settings.json, say), so it stops applying here too.
   */
  keepRules(inSettings: readonly string[]): void {
    for (const r of this.savedRules) if (!inSettings.includes(r)) this.savedRules.delete(r);
  }
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

  /** Forgets a remembered command line, or a saved rule of that text ("always" revoked in the history). */
  revoke(key: string): boolean {
    const remembered = this.entries.delete(key);
    const rule = this.savedRules.delete(key);
    return remembered || rule;
  }

  revokeAll(): void {
    this.entries.clear();
    this.savedRules.clear();
  }

  list(): RememberedApproval[] {
    return [...this.entries.values()].filter((e) => this.has(e.key));
  }
}
