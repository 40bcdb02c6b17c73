import { setTimeout as sleep } from "node:timers/promises";
import type * as grpc from "@grpc/grpc-js";
import { type Logger, toGrpcStatus, WinnowError } from "@winnow/platform";
import type { WatchRevocationsRequest, WatchRevocationsResponse } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import type { AuthStore } from "./auth-store.js";

type WatchCall = grpc.ServerDuplexStream<WatchRevocationsRequest, WatchRevocationsResponse>;

interface Watcher {
  call: WatchCall;
  /** The last revocation this watcher has been sent; undefined until its first message is handled. */
  cursor: string | undefined;
  /** The newest ping waiting for a read of the database (0: none). */
  ping: number;
}

/** Revocations read per query while catching up. */
const READ_BATCH = 500;
/** Added to the lease before a revocation returns: timers fire late, never early enough to matter. */
const LEASE_MARGIN_MS = 50;
const CURSOR = /^\d{1,19}$/;

/**
 * Serves WatchRevocations: follows the database's numbered revocations (made
 * by any auth replica) and sends each watching gateway the keys revoked
 * after its cursor. A ping is answered only by a read that started after it
 * arrived, so an answered ping proves the gateway has every revocation
 * committed before it sent the ping; `revoked()` then waits one lease, after
 * which no gateway still trusts a cache that could hold the revoked key.
 */
export class RevocationFeed {
  private readonly watchers = new Set<Watcher>();
  private reading: Promise<void> | undefined;
  private readAgain = false;

  constructor(
    private readonly store: AuthStore,
    /** How long gateways may trust their caches after an answered ping; 0 = they must not cache. */
    private readonly leaseMs: number,
    private readonly logger: Logger,
    /**
     * A stream is ended at this age and the gateway reconnects with its cursor: a feed that outlived its
     * connection's planned age would hold the connection (and its replica) for the whole connection-age grace.
     */
    private readonly maxStreamAgeMs = Number.POSITIVE_INFINITY,
  ) {}

  /** The WatchRevocations handler. */
  readonly watch = (call: WatchCall): void => {
    const watcher: Watcher = { call, cursor: undefined, ping: 0 };
    this.watchers.add(watcher);
    const age = Number.isFinite(this.maxStreamAgeMs)
      ? setTimeout(() => {
          forget();
          call.end();
        }, this.maxStreamAgeMs).unref()
      : undefined;
    const forget = () => {
      clearTimeout(age);
      this.watchers.delete(watcher);
    };
    call.on("cancelled", forget);
    call.on("error", forget);
    call.on("end", () => {
      forget();
      call.end();
    });
    call.on("data", (request: WatchRevocationsRequest) => {
      if (request.ping) watcher.ping = request.ping;
      if (watcher.cursor === undefined) void this.begin(watcher, request.afterCursor);
      else this.read();
    });
  };

  /**
   * After a revocation has committed: tells this replica's watchers now, and waits until no gateway trusts an older
   * cache.
   */
  async revoked(): Promise<void> {
    this.read();
    if (this.leaseMs > 0) await sleep(this.leaseMs + LEASE_MARGIN_MS);
  }

  /** Ends every stream (on shutdown), so gateways move to another replica and stop trusting their caches meanwhile. */
  close(): void {
    for (const watcher of this.watchers) watcher.call.end();
    this.watchers.clear();
  }

  private async begin(watcher: Watcher, afterCursor: string): Promise<void> {
    if (afterCursor && !CURSOR.test(afterCursor)) {
      this.watchers.delete(watcher);
      watcher.call.emit(
        "error",
        toGrpcStatus(new WinnowError("invalid-request", "after_cursor must be a cursor from an earlier response")),
      );
      return;
    }
    try {
      watcher.cursor = afterCursor || (await this.store.latestRevocation());
    } catch (error) {
      this.watchers.delete(watcher);
      watcher.call.emit("error", toGrpcStatus(error));
      return;
    }
    this.read();
  }

  /** Starts a read unless one is running; then one more runs after it, for the pings that came meanwhile. */
  private read(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        await this.readOnce().catch((error: unknown) =>
          // Pings stay unanswered, so gateways stop trusting their caches until the database answers again.
          this.logger.warn({ err: error }, "could not read revocations"),
        );
      } while (this.readAgain);
    })().finally(() => (this.reading = undefined));
  }

  private async readOnce(): Promise<void> {
    const ready = [...this.watchers].filter((w) => w.cursor !== undefined);
    if (ready.length === 0) return;
    // These pings are answered by this read, which starts after they arrived.
    const pings = new Map(ready.map((w) => [w, w.ping]));
    for (const w of ready) w.ping = 0;
    // biome-ignore lint/complexity/useMathMinMax: cursors are bigints, which Math.min throws on.
    const from = ready.map((w) => BigInt(w.cursor!)).reduce((a, b) => (a < b ? a : b));
    const revocations: { keyId: string; seq: bigint }[] = [];
    for (let cursor = from; ; ) {
      const batch = await this.store.revocationsAfter(String(cursor), READ_BATCH);
      for (const row of batch) revocations.push({ keyId: row.keyId, seq: BigInt(row.seq) });
      if (batch.length < READ_BATCH) break;
      cursor = revocations.at(-1)!.seq;
    }
    for (const watcher of ready) {
      if (!this.watchers.has(watcher)) continue;
      const after = BigInt(watcher.cursor!);
      const fresh = revocations.filter((r) => r.seq > after);
      const pong = pings.get(watcher)!;
      if (fresh.length === 0 && !pong) continue;
      watcher.cursor = String(fresh.at(-1)?.seq ?? after);
      watcher.call.write({
        revokedKeyIds: fresh.map((r) => r.keyId),
        cursor: watcher.cursor,
        pong,
        leaseMs: this.leaseMs,
      });
    }
  }
}
