/**
 * Deliveries in flight in this process per receiver (its host and port) and
 * per account, each at most `maxInFlight`: a slow receiver, or an account with
 * many, holds that many of this process's delivery workers and no more, so that
 * other receivers' deliveries go on. Counted here, not across replicas, as the
 * workers it shares out are this process's own (and a count dies with them).
 */
export class DeliverySlots {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly maxInFlight: number) {}

  /** A slot for both the receiver and the account (its release), or undefined when either has none free. */
  take(receiver: URL, accountId: string): (() => void) | undefined {
    const keys = [`receiver:${receiver.host}`, `account:${accountId}`];
    if (keys.some((key) => (this.inFlight.get(key) ?? 0) >= this.maxInFlight)) return undefined;
    for (const key of keys) this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of keys) {
        const left = this.inFlight.get(key)! - 1;
        if (left === 0) this.inFlight.delete(key);
        else this.inFlight.set(key, left);
      }
    };
  }
}
