import { createHash } from "node:crypto";
import { Metadata } from "@grpc/grpc-js";
import type { AuthClient, CallOptions, Logger } from "@winnow/platform";
import type { PlanLimits, WatchRevocationsResponse } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { LRUCache } from "lru-cache";

/** What a valid key grants. */
export interface ValidKey {
  accountId: string;
  keyId: string;
  limits: PlanLimits | undefined;
}

/** A key check's answer: the grant (undefined for an invalid key), and whether it came from memory. */
export interface KeyCheckResult {
  key: ValidKey | undefined;
  cached: boolean;
}

export interface KeyCheckOptions {
  /** Keys kept at most (least recently used go first); 0 = no cache, every key is checked with auth. */
  size: number;
  /** A cached key is checked with auth again after this long, so plan changes reach the gateway. */
  maxAgeMs: number;
  logger: Logger;
}

type WatchCall = ReturnType<AuthClient["grpc"]["watchRevocations"]>;

const RECONNECT_MS = { first: 100, max: 5_000 };
/** Pings per lease: a late answer or two still keeps the cache trusted. */
const PINGS_PER_LEASE = 4;
/** A feed lost for this long is warned about; a planned reconnect takes a fraction of it. */
const LOSS_WARNING_AFTER_MS = 5_000;
/** Before auth has said how long its lease is. */
const FIRST_PING_INTERVAL_MS = 250;

/**
 * Checks API keys with auth and keeps the valid ones in memory, so a scrape
 * costs no auth call in the steady state. The cache is trusted only while
 * auth's revocation feed proves it current: a pong answers a ping only after
 * auth has read every revocation committed before the ping arrived, and the
 * cache is trusted for auth's lease from the moment that ping was sent.
 * Revocations wait one lease in auth before they return, so once a rotation
 * has answered no gateway accepts the old key: either the revocation reached
 * it first, or it has stopped trusting its cache. Without the feed (lost,
 * late, or an auth that has none) every key is checked with auth.
 */
export class KeyCheck {
  /** Valid keys by the hash of the key, and by key id (for batch pages, which hold only the id). */
  private readonly keys: LRUCache<string, ValidKey> | undefined;
  private readonly keysById: LRUCache<string, ValidKey> | undefined;
  private call: WatchCall | undefined;
  private cursor = "";
  private leaseMs = 0;
  /** performance.now() until which cached keys may be used. */
  private trustedUntil = 0;
  /** Changes on every revocation and every loss of the feed: an answer from auth that spans a change is not cached. */
  private epoch = 0;
  private nextPing = 1;
  /** Unanswered pings and when they were sent. */
  private readonly pings = new Map<number, number>();
  private lastPingAt = 0;
  /** performance.now() of auth's last answer on the feed. */
  private lastAnswerAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private reconnectMs = RECONNECT_MS.first;
  private closed = false;
  /** From the feed's loss until it answers again. */
  private feedLost = false;
  /** Why this gateway ended the feed itself, and why the feed was last lost, for the log. */
  private cancelReason: string | undefined;
  private lossReason = "";
  private lossWarning: NodeJS.Timeout | undefined;
  /** Whether this loss has been warned about (its end is then said at info). */
  private warned = false;

  constructor(
    private readonly auth: AuthClient,
    private readonly options: KeyCheckOptions,
  ) {
    this.keys = options.size > 0 ? new LRUCache({ max: options.size, ttl: options.maxAgeMs }) : undefined;
    this.keysById = options.size > 0 ? new LRUCache({ max: options.size, ttl: options.maxAgeMs }) : undefined;
    if (this.keys) this.connect();
  }

  /** The key's grant, from the cache when it can be trusted, else from auth (after `beforeAuth`, which may throw). */
  async check(apiKey: string, hop: CallOptions, beforeAuth?: () => Promise<void>): Promise<KeyCheckResult> {
    const hash = this.keys && createHash("sha256").update(apiKey).digest("base64");
    return this.cachedOrAsked(this.keys, hash, async () => {
      await beforeAuth?.();
      const result = await this.auth.validateKey({ apiKey }, hop);
      return result.valid ? { accountId: result.accountId, keyId: result.keyId, limits: result.limits } : undefined;
    });
  }

  /**
   * The grant of the key with this id while it is still valid (undefined once revoked), with the same cache and
   * trust as check(): for work done later under a key whose plaintext the gateway no longer holds (batch pages).
   */
  async checkId(keyId: string, hop: CallOptions): Promise<ValidKey | undefined> {
    const answer = await this.cachedOrAsked(this.keysById, this.keysById && keyId, async () => {
      const result = await this.auth.getKey({ keyId }, hop);
      return result.valid ? { accountId: result.accountId, keyId, limits: result.limits } : undefined;
    });
    return answer.key;
  }

  /** From `cache` while the feed proves it current; else asked of auth, and cached only when no revocation or loss of the feed came in between. */
  private async cachedOrAsked(
    cache: LRUCache<string, ValidKey> | undefined,
    cacheKey: string | undefined,
    ask: () => Promise<ValidKey | undefined>,
  ): Promise<KeyCheckResult> {
    const cached = cacheKey && this.trusted() ? cache!.get(cacheKey) : undefined;
    if (cached) return { key: cached, cached: true };
    const epoch = this.epoch;
    const trustedBefore = this.trusted();
    const key = await ask();
    if (key && cacheKey && trustedBefore && epoch === this.epoch && this.trusted()) cache!.set(cacheKey, key);
    return { key, cached: false };
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.lossWarning);
    this.call?.cancel();
  }

  private trusted(): boolean {
    return performance.now() < this.trustedUntil;
  }

  private connect(): void {
    // Waits for auth to be reachable instead of failing at once (a gateway that starts before auth).
    const metadata = new Metadata();
    metadata.setOptions({ waitForReady: true });
    const call = this.auth.grpc.watchRevocations(metadata);
    this.call = call;
    call.on("data", (message: WatchRevocationsResponse) => this.receive(message));
    call.on("error", (error: Error) => this.lost(call, error));
    call.on("end", () => this.lost(call, undefined));
    call.write({ afterCursor: this.cursor, ping: this.ping() });
    this.timer = setInterval(() => this.tick(call), FIRST_PING_INTERVAL_MS / 2);
    this.timer.unref();
  }

  private ping(): number {
    const ping = this.nextPing++;
    this.lastPingAt = performance.now();
    this.pings.set(ping, this.lastPingAt);
    return ping;
  }

  /** Pings on time, and gives up on a feed whose answers stopped coming (a half-open connection looks alive). */
  private tick(call: WatchCall): void {
    const now = performance.now();
    const interval = this.leaseMs > 0 ? this.leaseMs / PINGS_PER_LEASE : FIRST_PING_INTERVAL_MS;
    if (now - this.lastPingAt >= interval) call.write({ afterCursor: "", ping: this.ping() });
    // Only once auth has answered on this stream (before that it may still be waiting for auth to come up), and
    // counted from its last answer: the pings sent while it was coming up are answered one by one, late.
    const oldest = this.pings.values().next().value;
    if (this.leaseMs > 0 && oldest !== undefined && now - Math.max(oldest, this.lastAnswerAt) > 2 * this.leaseMs) {
      this.cancelReason = `no answer from auth for ${2 * this.leaseMs} ms`;
      call.cancel();
    }
  }

  private receive(message: WatchRevocationsResponse): void {
    if (message.revokedKeyIds.length > 0) {
      const revoked = new Set(message.revokedKeyIds);
      for (const [hash, key] of this.keys!.entries()) if (revoked.has(key.keyId)) this.keys!.delete(hash);
      for (const keyId of revoked) this.keysById!.delete(keyId);
      this.epoch++;
    }
    if (message.cursor) this.cursor = message.cursor;
    this.leaseMs = message.leaseMs;
    this.lastAnswerAt = performance.now();
    const sentAt = this.pings.get(message.pong);
    if (sentAt === undefined) return;
    // Auth answers the newest ping it has; the older ones are answered with it.
    for (const ping of this.pings.keys()) if (ping <= message.pong) this.pings.delete(ping);
    this.trustedUntil = Math.max(this.trustedUntil, sentAt + this.leaseMs);
    this.reconnectMs = RECONNECT_MS.first;
    if (this.feedLost && this.leaseMs > 0) {
      this.feedLost = false;
      clearTimeout(this.lossWarning);
      if (this.warned) this.options.logger.info("key cache on: the revocation feed is back");
      else this.options.logger.debug("revocation feed reconnected");
      this.warned = false;
    }
  }

  private lost(call: WatchCall, error: Error | undefined): void {
    if (call !== this.call) return;
    this.call = undefined;
    clearInterval(this.timer);
    this.trustedUntil = 0;
    this.leaseMs = 0;
    this.epoch++;
    this.keys!.clear();
    this.keysById!.clear();
    this.pings.clear();
    if (this.closed) return;
    const reason = this.cancelReason ?? error?.message ?? "auth ended the stream";
    this.cancelReason = undefined;
    this.lossReason = reason;
    // Auth closes connections at their planned age (and a replica going away ends its streams): the feed is back
    // within moments, which is worth a debug line; one that stays lost is worth one warning.
    this.options.logger.debug({ reason }, "revocation feed lost; reconnecting");
    if (!this.feedLost) {
      this.feedLost = true;
      this.lossWarning = setTimeout(() => {
        this.warned = true;
        this.options.logger.warn(
          { reason: this.lossReason },
          "key cache off: the revocation feed is lost; every key is checked with auth until it is back",
        );
      }, LOSS_WARNING_AFTER_MS);
      this.lossWarning.unref();
    }
    const delay = this.reconnectMs * (0.5 + Math.random());
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MS.max);
    setTimeout(() => this.closed || this.connect(), delay).unref();
  }
}
