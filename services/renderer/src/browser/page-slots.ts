import { overloaded } from "./overloaded.js";

type Waiter = (release: () => void) => void;

/**
 * Bounds how many pages render at once, with a bounded wait queue in front:
 * a full queue answers "overloaded" at once instead of piling up work that
 * would only time out.
 */
export class PageSlots {
  #active = 0;
  readonly #queue: Waiter[] = [];

  constructor(
    private readonly maxActive: number,
    private readonly maxQueued: number,
  ) {}

  /**
   * Resolves to a release function once a slot is free. Rejects with
   * "overloaded" when the queue is full or the signal aborts while waiting.
   */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(overloaded("no time was left to wait for a browser page"));
    if (this.#active < this.maxActive) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    if (this.#queue.length >= this.maxQueued) {
      return Promise.reject(overloaded("the renderer is at capacity"));
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#queue.splice(this.#queue.indexOf(waiter), 1);
        reject(overloaded("no browser page became free within the time limit"));
      };
      const waiter: Waiter = (release) => {
        signal.removeEventListener("abort", onAbort);
        resolve(release);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#queue.length;
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // The slot passes straight to the next waiter, so #active stays the same.
      if (next) next(this.#releaser());
      else this.#active--;
    };
  }
}
