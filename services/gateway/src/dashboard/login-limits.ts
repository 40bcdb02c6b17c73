import { createHash } from "node:crypto";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { type LimiterFactory, takePoint } from "../http/rate-limits.js";

const WINDOW_SECONDS = 15 * 60;
/**
 * How long failures and blocks are remembered: a day, so that spacing
 * guesses out (a few every 15 minutes) does not avoid the block.
 */
const MEMORY_SECONDS = 24 * 60 * 60;
/**
 * How long a browser stays known for an email after a successful log-in there (renewed by each one). Under 24.8 days:
 * the in-memory limiters expire entries with a timer, which cannot wait longer.
 */
export const KNOWN_DEVICE_SECONDS = 20 * 24 * 60 * 60;

export interface LoginLimitsOptions {
  /**
   * Consecutive failures per email from one address (or one known browser) before they are blocked; ten times
   * that is the attempts per address in 15 minutes and the failures per email, from anywhere, in a day.
   */
  failures: number;
  /** The first block of an email at an address; each further block within a day doubles it, up to maxBlockSeconds. */
  firstBlockSeconds?: number;
  maxBlockSeconds?: number;
}

/** One log-in attempt: from where, for which email, and the browser's known-device cookie if it sent one. */
export interface LoginAttempt {
  address: string;
  email: string;
  device?: string | undefined;
}

/** A refused attempt: why, and when to come back. */
export interface LoginRefusal {
  by: "account" | "address";
  retryAfterSeconds: number;
}

/**
 * The dashboard's log-in limits, after OWASP's guidance and
 * rate-limiter-flexible's "login endpoint protection" pattern, so that
 * guessing is slow and yet no stranger can lock an owner out:
 *
 * - per client address, every attempt (log-ins and sign-ups), ten times
 *   `failures` per 15 minutes. It is only as good as the address: the
 *   client's on direct connections or with TRUST_PROXY naming the proxies in
 *   front, the proxy's otherwise.
 * - per email and address, `failures` consecutive failures block that email
 *   from that address for 15 minutes, each further block within a day twice
 *   as long (up to 4 hours); a success there clears both counts. A stranger
 *   blocks only himself.
 * - per email from anywhere, ten times `failures` in a day block the email
 *   (guessing spread over many addresses), except in browsers that logged in
 *   to it before: a successful log-in marks the browser as a known device
 *   (a random cookie, recorded hashed with the email), which passes that
 *   block and the one per email and address; a known device has `failures` consecutive
 *   failures of its own before it is forgotten.
 *
 * Failed sign-ups count only per address: they say nothing about a password.
 */
export class LoginLimits {
  private readonly pairFailures: RateLimiterAbstract;
  private readonly pairBlocks: RateLimiterAbstract;
  private readonly emailFailures: RateLimiterAbstract;
  /** A known device's entry: present once it logged in, its points its consecutive failures since. */
  private readonly devices: RateLimiterAbstract;
  private readonly perAddress: RateLimiterAbstract;
  private readonly firstBlockSeconds: number;
  private readonly maxBlockSeconds: number;

  constructor(
    factory: LimiterFactory,
    { failures, firstBlockSeconds = WINDOW_SECONDS, maxBlockSeconds = 4 * 60 * 60 }: LoginLimitsOptions,
  ) {
    this.firstBlockSeconds = firstBlockSeconds;
    this.maxBlockSeconds = maxBlockSeconds;
    this.pairFailures = factory.create({ name: "login-fails:", points: failures, durationSeconds: MEMORY_SECONDS });
    this.pairBlocks = factory.create({ name: "login-blocks:", points: 1, durationSeconds: MEMORY_SECONDS });
    this.emailFailures = factory.create({
      name: "login-email-fails:",
      points: failures * 10,
      durationSeconds: MEMORY_SECONDS,
    });
    this.devices = factory.create({ name: "login-device:", points: failures, durationSeconds: KNOWN_DEVICE_SECONDS });
    this.perAddress = factory.create({ name: "login-ip:", points: failures * 10, durationSeconds: WINDOW_SECONDS });
  }

  /** Counts a log-in attempt; a refusal when a limit is reached. */
  async attempt({ address, email, device }: LoginAttempt): Promise<LoginRefusal | undefined> {
    // Reading the email's counts takes nothing, so a refused address does not use up the account's attempts.
    if (!(await this.knownDevice(email, device))) {
      for (const [limiter, key] of [
        [this.pairFailures, pairKey(email, address)],
        [this.emailFailures, email],
      ] as const) {
        const count = await limiter.get(key);
        if (count && count.consumedPoints >= limiter.points) {
          return { by: "account", retryAfterSeconds: seconds(count.msBeforeNext) };
        }
      }
    }
    return this.addressAttempt(address);
  }

  /** Counts a sign-up attempt: per address only. */
  async signUpAttempt(address: string): Promise<LoginRefusal | undefined> {
    return this.addressAttempt(address);
  }

  /** A wrong password: counted for the known device, or else for the email at this address and the email. */
  async failed({ address, email, device }: LoginAttempt): Promise<void> {
    if (await this.knownDevice(email, device)) {
      await this.devices.penalty(deviceKey(email, device!), 1);
      return;
    }
    await this.emailFailures.penalty(email, 1);
    const key = pairKey(email, address);
    const count = await this.pairFailures.penalty(key, 1);
    if (count.consumedPoints < this.pairFailures.points) return;
    const blocked = await this.pairBlocks.penalty(key, 1);
    const blockSeconds = Math.min(this.firstBlockSeconds * 2 ** (blocked.consumedPoints - 1), this.maxBlockSeconds);
    await this.pairFailures.block(key, blockSeconds);
  }

  /** The right password: clears this address's counts for the email and (re)marks `device` as known for it. */
  async succeeded({ address, email, device }: LoginAttempt & { device: string }): Promise<void> {
    const key = pairKey(email, address);
    await Promise.all([
      this.pairFailures.delete(key),
      this.pairBlocks.delete(key),
      this.devices.set(deviceKey(email, device), 0, KNOWN_DEVICE_SECONDS),
    ]);
  }

  /** Whether `device` logged in to `email` before and has not failed too often since. */
  private async knownDevice(email: string, device: string | undefined): Promise<boolean> {
    if (!device) return false;
    const entry = await this.devices.get(deviceKey(email, device));
    return entry !== null && entry.consumedPoints < this.devices.points;
  }

  private async addressAttempt(address: string): Promise<LoginRefusal | undefined> {
    const byAddress = await takePoint(this.perAddress, address);
    return byAddress.allowed ? undefined : { by: "address", retryAfterSeconds: byAddress.resetSeconds };
  }
}

function pairKey(email: string, address: string): string {
  return `${address} ${email}`;
}

/** Hashed, so the store holds neither the cookie nor the email in the clear. */
function deviceKey(email: string, device: string): string {
  return createHash("sha256").update(email).update("\0").update(device).digest("base64url");
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
