/**
 * The extraction workers, shared fairly between accounts (a request's
 * tenant, which the gateway sets to the API key's account). Internal
 * callers, who send none, are the operator's own: they may use every
 * worker and the whole queue, and take their turn like an account. An
 * account holds at most its share of the workers at once; its further
 * extractions wait in its own queue, and a free worker goes to the waiting
 * accounts in turn (round robin), so one account's pages, however slow,
 * never leave another's waiting for all of them. An account's queue holds
 * the same share of the pool's queue; past it, or past the whole queue, an
 * extraction is refused as overloaded (503, retryable).
 */
import { WinnowError } from "@winnow/platform";

export interface SlotLimits {
  /** Workers in all (EXTRACT_WORKERS). */
  workers: number;
  /** Workers one account holds at most (EXTRACT_WORKERS_PER_ACCOUNT). */
  perAccount: number;
  /** Extractions waiting in all (EXTRACT_MAX_QUEUE). */
  maxQueue: number;
}

/** The tenant of an internal caller's request: none. */
const INTERNAL = "";

interface Waiter {
  start: (release: () => void) => void;
}

/** Gives each extraction a worker slot, fairly by account. */
export class AccountSlots {
  private readonly running = new Map<string, number>();
  /** Each account's waiting extractions, accounts in the order they are served next. */
  private readonly waiting = new Map<string, Waiter[]>();
  private inUse = 0;
  private queued = 0;
  private readonly queuePerAccount: number;

  constructor(private readonly limits: SlotLimits) {
    // An account may fill its share of the queue as of the workers: the rest stays for others.
    this.queuePerAccount = Math.max(1, Math.floor((limits.maxQueue * limits.perAccount) / limits.workers));
  }

  /**
   * Resolves with the slot's release once the account may use a worker; rejects with "overloaded" when its queue (or
   * the pool's) is full, or with the signal's reason when it aborts first.
   */
  acquire(account: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const queue = this.waiting.get(account) ?? [];
    if (this.queued >= this.limits.maxQueue || (account !== INTERNAL && queue.length >= this.queuePerAccount))
      return Promise.reject(
        new WinnowError("overloaded", "this account's extractions fill their share of the workers and of the queue"),
      );
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = queue.indexOf(waiter);
        if (index < 0) return;
        queue.splice(index, 1);
        this.queued--;
        if (queue.length === 0) this.waiting.delete(account);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        start: (release) => {
          signal.removeEventListener("abort", onAbort);
          resolve(release);
        },
      };
      signal.addEventListener("abort", onAbort, { once: true });
      queue.push(waiter);
      this.queued++;
      this.waiting.set(account, queue);
      this.dispatch();
    });
  }

  /** Starts waiting extractions while workers are free, one account after another. */
  private dispatch(): void {
    while (this.inUse < this.limits.workers) {
      const account = [...this.waiting.keys()].find((name) => (this.running.get(name) ?? 0) < this.capOf(name));
      if (account === undefined) return;
      const queue = this.waiting.get(account)!;
      const waiter = queue.shift()!;
      this.queued--;
      // The account goes to the back of the turn: the next free worker goes to the next account waiting.
      this.waiting.delete(account);
      if (queue.length > 0) this.waiting.set(account, queue);
      this.inUse++;
      this.running.set(account, (this.running.get(account) ?? 0) + 1);
      waiter.start(this.releaser(account));
    }
  }

  private capOf(account: string): number {
    return account === INTERNAL ? this.limits.workers : this.limits.perAccount;
  }

  private releaser(account: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse--;
      const left = (this.running.get(account) ?? 1) - 1;
      if (left === 0) this.running.delete(account);
      else this.running.set(account, left);
      this.dispatch();
    };
  }
}
