import { WinnowError } from "@winnow/platform";
import type { RequestHandler } from "express";

/**
 * Graceful draining: once started, new requests get a retryable 503 (with
 * Connection: close, so clients reconnect elsewhere) while the scrapes
 * already running finish; idle() says when none is left.
 */
export class Drain {
  #draining = false;
  #inFlight = 0;
  #onIdle: (() => void)[] = [];

  get draining(): boolean {
    return this.#draining;
  }

  /** Counts requests in flight, and refuses new ones while draining. */
  middleware(): RequestHandler {
    return (_req, res, next) => {
      if (this.#draining) {
        res.setHeader("Connection", "close");
        throw new WinnowError("shutting-down", "This gateway is restarting; retry the request.", {
          retryAfterMs: 1000,
        });
      }
      this.#inFlight += 1;
      res.once("close", () => {
        this.#inFlight -= 1;
        if (this.#inFlight === 0 && this.#draining) for (const resolve of this.#onIdle.splice(0)) resolve();
      });
      next();
    };
  }

  /** Starts draining; resolves when no request is in flight. */
  idle(): Promise<void> {
    this.#draining = true;
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#onIdle.push(resolve));
  }
}
