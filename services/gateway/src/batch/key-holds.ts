/**
 * Keys whose whole line must wait, each until a time (a task answered that none of its key's tasks can run before
 * then: the key's minute's requests or its scrape slots are used up). Kept by each process for its own takes: a
 * process that has not learnt of a hold takes one task of that line and learns it the same way.
 */
export class KeyHolds {
  private readonly until = new Map<string, number>();

  /** Holds `key`'s line until `untilMs` (epoch ms), or longer if it was held longer already. */
  hold(key: string, untilMs: number): void {
    if ((this.until.get(key) ?? 0) < untilMs) this.until.set(key, untilMs);
  }

  /** The keys held now; the holds that are over are forgotten. */
  held(now = Date.now()): string[] {
    for (const [key, untilMs] of this.until) if (untilMs <= now) this.until.delete(key);
    return [...this.until.keys()];
  }
}
