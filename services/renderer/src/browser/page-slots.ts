import { overloaded } from "./overloaded.js";

type Waiter = (release: () => void) => void;

/**
 * Bounds how many pages render at once, with a bounded wait queue in front:
 * a full queue answers "overloaded" at once instead of piling up work that
 * would only time out. The pages are shared fairly between accounts: no
 * account holds more than maxPerAccount of them, and a freed page goes to the
 * accounts waiting in turn (round robin), not to whoever queued most, so one
 * account's slow pages cannot hold a neighbour's renders.
 */
export class PageSlots {
  #active = 0;
  #queued = 0;
  readonly #activeBy = new Map<string, number>();
  /** Each account's waiters in order; the map's order is the accounts' turn. */
  readonly #queues = new Map<string, Waiter[]>();

  constructor(
    private readonly maxActive: number,
    private readonly maxQueued: number,
    private readonly maxPerAccount = maxActive,
  ) {}

  /**
   * Resolves to a release function once a slot is free for the account. Rejects with
   * "overloaded" when the queue is full or the signal aborts while waiting.
   */
  acquire(account: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(overloaded("no time was left to wait for a browser page"));
    // A free page with others waiting means they are all at their account's cap: this account may take it.
    if (this.#mayTake(account)) return Promise.resolve(this.#take(account));
    if (this.#queued >= this.maxQueued) {
      return Promise.reject(overloaded("the renderer is at capacity"));
    }
    return new Promise((resolve, reject) => {
      const queue = this.#queues.get(account) ?? [];
      const onAbort = () => {
        queue.splice(queue.indexOf(waiter), 1);
        this.#queued--;
        if (queue.length === 0) this.#queues.delete(account);
        reject(overloaded("no browser page became free within the time limit"));
      };
      const waiter: Waiter = (release) => {
        signal.removeEventListener("abort", onAbort);
        resolve(release);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      queue.push(waiter);
      this.#queues.set(account, queue);
      this.#queued++;
    });
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#queued;
  }

  #mayTake(account: string): boolean {
    return this.#active < this.maxActive && (this.#activeBy.get(account) ?? 0) < this.maxPerAccount;
  }

  #take(account: string): () => void {
    this.#active++;
    this.#activeBy.set(account, (this.#activeBy.get(account) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      const left = (this.#activeBy.get(account) ?? 1) - 1;
      if (left === 0) this.#activeBy.delete(account);
      else this.#activeBy.set(account, left);
      this.#serveWaiting();
    };
  }

  /** Free pages go to the first account in turn that is under its cap; that account then waits for its next turn. */
  #serveWaiting(): void {
    for (const [account, queue] of this.#queues) {
      if (this.#active >= this.maxActive) return;
      if (!this.#mayTake(account)) continue;
      const next = queue.shift() as Waiter;
      this.#queued--;
      this.#queues.delete(account);
      if (queue.length > 0) this.#queues.set(account, queue);
      next(this.#take(account));
    }
  }
}
