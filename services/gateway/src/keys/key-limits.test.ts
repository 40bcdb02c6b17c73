import { randomBytes } from "node:crypto";
import { createLogger, type WinnowError } from "@winnow/platform";
import express, { type ErrorRequestHandler } from "express";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningHttpServer, startHttpServer } from "../http/http-server.js";
import { sendProblem } from "../http/problem.js";
import { createLimiterFactory, type LimiterFactory } from "../http/rate-limits.js";
import { KeyLimits } from "./key-limits.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const logger = createLogger("key-limits-test", "silent");

/**
 * Scrape slots over real HTTP: each request holds a slot until the test
 * releases it. The key and plan are set as requireApiKey would set them.
 */
async function slotServer(factory: LimiterFactory, maxConcurrentScrapes: number, leaseSeconds = 120) {
  const limits = new KeyLimits(factory, leaseSeconds, logger);
  const waiting: (() => void)[] = [];
  // Each server its own key, so counts left in Redis by another test do not matter.
  const keyId = randomBytes(6).toString("hex");
  const app = express();
  app.use((_req, res, next) => {
    res.locals.keyId = keyId;
    res.locals.limits = { plan: "default", requestsPerMinute: 1000, maxConcurrentScrapes };
    next();
  });
  app.post("/scrape", limits.scrapeSlot(), (_req, res) => {
    waiting.push(() => res.json({ ok: true }));
  });
  app.use(((error: unknown, _req, res, _next) => sendProblem(res, error as WinnowError)) as ErrorRequestHandler);
  const server = await startHttpServer(app, "127.0.0.1", 0);
  return {
    server,
    send: () => fetch(`http://127.0.0.1:${server.port}/scrape`, { method: "POST" }),
    /** Resolves once `count` requests hold slots. */
    async held(count: number) {
      while (waiting.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
    },
    releaseAll() {
      waiting.splice(0).forEach((release) => release());
    },
    releaseFirst() {
      waiting.shift()!();
    },
  };
}

describe.each([
  ["memory", undefined],
  ["Redis", REDIS_URL],
])("scrape slots in %s", (_, redisUrl) => {
  const prefix = `winnow-test-${randomBytes(6).toString("hex")}:`;
  const factory = createLimiterFactory({ redisUrl, keyPrefix: prefix, logger });
  const servers: RunningHttpServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close(100)));
    if (redisUrl) {
      const redis = new Redis(redisUrl);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await factory.close();
  });

  it("refuses a scrape beyond the plan's slots with 429, and frees a slot when a scrape ends", async () => {
    const slots = await slotServer(factory, 2);
    servers.push(slots.server);
    const running = [slots.send(), slots.send()];
    await slots.held(2);

    const refused = await slots.send();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({
      type: "https://winnow.dev/problems/rate-limited",
      detail: expect.stringMatching(/2 scrapes in flight/),
    });
    // A refusal does not hold a slot: the same is refused again, not worse.
    expect((await slots.send()).status).toBe(429);

    slots.releaseAll();
    expect((await Promise.all(running)).map((res) => res.status)).toEqual([200, 200]);
    // Slots come back when the response closes; give the release a moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = [slots.send(), slots.send()];
    await slots.held(2);
    slots.releaseAll();
    expect((await Promise.all(again)).map((res) => res.status)).toEqual([200, 200]);
  });

  it("frees the slot of a caller that went away mid-scrape", async () => {
    const slots = await slotServer(factory, 1);
    servers.push(slots.server);
    const controller = new AbortController();
    const abandoned = fetch(`http://127.0.0.1:${slots.server.port}/scrape`, {
      method: "POST",
      signal: controller.signal,
    }).catch(() => undefined);
    await slots.held(1);
    controller.abort();
    await abandoned;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const next = slots.send();
    await slots.held(2);
    slots.releaseAll();
    expect((await next).status).toBe(200);
  });

  it("does not give back a slot whose lease window has already reset", async () => {
    const slots = await slotServer(factory, 1, 1);
    servers.push(slots.server);
    const outlived = slots.send();
    await slots.held(1);
    // The scrape outlives its one-second lease: the count resets and a new scrape may start.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const second = slots.send();
    await slots.held(2);
    slots.releaseFirst();
    expect((await outlived).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Releasing the outlived slot must not free the one the second scrape holds.
    expect((await slots.send()).status).toBe(429);
    slots.releaseAll();
    expect((await second).status).toBe(200);
  });
});
