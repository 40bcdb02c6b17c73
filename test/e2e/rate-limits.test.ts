/**
 * Per-key request limits across real gateway processes and a real auth
 * process: in memory by default, shared through Redis by two replicas, and
 * per replica (logged) when Redis is unreachable. GET /account checks the key
 * and the limit and nothing else, so renderer and extractor are not needed.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { generateApiKey } from "@winnow/auth";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../support/ports.js";
import { type ServiceProcess, startService } from "../support/service-process.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const PER_MINUTE = 5;

describe("per-key request limits", () => {
  const apiKey = generateApiKey().plaintext;
  const started: ServiceProcess[] = [];
  let dataDir: string;
  let authAddr: string;
  let unusedAddr: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "winnow-limits-"));
    const [authPort, unusedPort] = (await freePorts(2)) as [number, number];
    authAddr = `127.0.0.1:${authPort}`;
    unusedAddr = `127.0.0.1:${unusedPort}`;
    started.push(
      await startService(
        "auth",
        {
          GRPC_PORT: String(authPort),
          WINNOW_DATA_DIR: dataDir,
          WINNOW_DEV_API_KEY: apiKey,
          PLAN_REQUESTS_PER_MINUTE: String(PER_MINUTE),
        },
        authAddr,
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(started.map((service) => service.stop()));
    await rm(dataDir, { recursive: true, force: true });
  });

  async function gateway(env: Record<string, string> = {}): Promise<{ url: string; process: ServiceProcess }> {
    const [port] = (await freePorts(1)) as [number];
    const url = `http://127.0.0.1:${port}`;
    const process = await startService(
      "gateway",
      { PORT: String(port), AUTH_ADDR: authAddr, RENDERER_ADDR: unusedAddr, EXTRACTOR_ADDR: unusedAddr, ...env },
      url,
    );
    started.push(process);
    return { url, process };
  }

  const account = (url: string) => fetch(`${url}/account`, { headers: { "x-api-key": apiKey } });

  async function expectLimited(res: Response): Promise<void> {
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({
      type: "https://winnow.dev/problems/rate-limited",
      status: 429,
      retryable: true,
    });
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers.get("ratelimit-limit")).toBe(String(PER_MINUTE));
    expect(res.headers.get("ratelimit-remaining")).toBe("0");
    expect(res.headers.get("ratelimit-reset")).toBe(String(retryAfter));
  }

  it("counts in memory by default: the plan's requests pass with RateLimit headers, then 429 with Retry-After", async () => {
    const { url } = await gateway();
    for (let i = 0; i < PER_MINUTE; i++) {
      const res = await account(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe(String(PER_MINUTE));
      expect(res.headers.get("ratelimit-remaining")).toBe(String(PER_MINUTE - 1 - i));
      expect(await res.json()).toMatchObject({
        key_id: apiKey.slice(4, 15),
        limits: { requests_per_minute: PER_MINUTE },
      });
    }
    await expectLimited(await account(url));
  });

  it("shares one limit between two gateways through Redis", async () => {
    const prefix = `winnow-test-${randomBytes(6).toString("hex")}:`;
    const [first, second] = await Promise.all([
      gateway({ REDIS_URL, REDIS_KEY_PREFIX: prefix }),
      gateway({ REDIS_URL, REDIS_KEY_PREFIX: prefix }),
    ]);
    const statuses: number[] = [];
    for (let i = 0; i < PER_MINUTE * 2; i++) {
      const res = await account(i % 2 === 0 ? first.url : second.url);
      if (res.status === 429) await expectLimited(res);
      else await res.body?.cancel();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(PER_MINUTE).fill(200), ...Array(PER_MINUTE).fill(429)]);

    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });

  it("keeps serving with per-replica limits, and says so in the log, when Redis is unreachable", async () => {
    const [deadPort] = (await freePorts(1)) as [number];
    const { url, process } = await gateway({ REDIS_URL: `redis://127.0.0.1:${deadPort}` });
    const statuses: number[] = [];
    for (let i = 0; i < PER_MINUTE + 2; i++) {
      const res = await account(url);
      await res.body?.cancel();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(PER_MINUTE).fill(200), 429, 429]);
    expect(process.output.join("\n")).toMatch(/Redis unavailable: rate limits are counted per gateway replica/);
  });
});
