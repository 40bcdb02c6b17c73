/**
 * Batch jobs against the whole stack as real processes, on the embedded
 * queue (pg-boss on PGlite) and on Redis (BullMQ): a 200-page job over
 * fixture pages finishes with every page's result through a jobs worker restart,
 * within its key's plan, with signed webhooks that both clients verify.
 */
import { execFile, execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { verifyWebhookSignature, WinnowBatch } from "@winnow/client";
import { createClient, promiseClient } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixturePage } from "../support/fixture-site.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const PAGE_COUNT = 200;
const MAX_CONCURRENT_SCRAPES = 3;

const PAGES: Record<string, FixturePage> = {
  "/gone": { status: 404, body: "<h1>Gone</h1>" },
  // Pages of the tight-plan tests: each test has its own (by its prefix), so the site's counts are its own.
  ...Object.fromEntries(
    ["fair-a", "fair-b", "minute", "revoked", "abandoned"].flatMap((prefix) =>
      Array.from({ length: 6 }, (_, i) => [
        `/${prefix}/${i}`,
        {
          delayMs: { "fair-a": 4_000, revoked: 1_500, abandoned: 15_000 }[prefix] ?? 0,
          body: `<!doctype html><html><head><title>${prefix} ${i}</title></head><body><h1>${prefix} ${i}</h1></body></html>`,
        },
      ]),
    ),
  ),
  "/too-slow": { delayMs: 2_000, body: "<h1>Too slow</h1>" },
  ...Object.fromEntries(
    Array.from({ length: PAGE_COUNT }, (_, i) => [
      `/item/${i}`,
      {
        // Slow enough that the job is still running when the jobs worker restarts.
        delayMs: 40,
        body: `<!doctype html><html><head><title>Item ${i}</title>
<script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "Product", name: `Item ${i}` })}</script>
</head><body><h1>Item ${i}</h1></body></html>`,
      },
    ]),
  ),
};

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Records every delivery; answers 503 to the first `completed` one, so that it must be retried. */
async function startReceiver(): Promise<{ server: Server; hostPort: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  let refusedCompleted = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (!refusedCompleted && JSON.parse(body).type === "completed") {
        refusedCompleted = true;
        res.writeHead(503).end();
        return;
      }
      deliveries.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, hostPort: `127.0.0.1:${(server.address() as AddressInfo).port}`, deliveries };
}

/** How many of the deliveries the Python client's verify function accepts. */
function verifiedByPython(deliveries: Delivery[], secret: string): number {
  const script = `
import json, sys
sys.path.insert(0, "clients/python")
from winnow import verify_webhook_signature
items = json.load(sys.stdin)
print(sum(verify_webhook_signature(i["body"].encode(), i["signature"], i["secret"]) for i in items))
`;
  const input = JSON.stringify(
    deliveries.map((d) => ({ body: d.body, signature: d.headers["winnow-signature"], secret })),
  );
  return Number(execFileSync("python3", ["-c", script], { input, encoding: "utf8" }).trim());
}

describe.each([
  // pg-boss on the embedded database, as `npm start` runs; BullMQ with the records on Postgres, as deployments run.
  ["the embedded queue", {}, "embedded"],
  ["Redis", { REDIS_URL, REDIS_KEY_PREFIX: `batch-test-${randomUUID()}:` }, "postgres"],
] as const)("batch jobs on %s", (_name, queueEnv: Record<string, string>, store) => {
  let run: RunningStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  const api = (path: string, init: RequestInit = {}, apiKey = run.stack.apiKey) =>
    fetch(`${run.stack.gatewayUrl}${path}`, {
      ...init,
      headers: { "content-type": "application/json", "x-api-key": apiKey, ...init.headers },
    });
  const submit = (body: unknown, apiKey?: string) =>
    api("/batch/scrape", { method: "POST", body: JSON.stringify(body) }, apiKey);

  beforeAll(async () => {
    receiver = await startReceiver();
    run = await launchStack(
      PAGES,
      {
        ...queueEnv,
        PLAN_MAX_CONCURRENT_SCRAPES: String(MAX_CONCURRENT_SCRAPES),
        BATCH_CONCURRENCY: "8",
        // The shortest retry delay: the retries' count and kinds are tested here, their spacing in page-retries.test.ts.
        BATCH_PAGE_RETRY_MS: "1000",
      },
      { extraEgress: [receiver.hostPort], store },
    );
  });
  afterAll(async () => {
    await run?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it(
    "finishes a 200-page job with every page's result, through a jobs worker restart, within the key's plan, with signed webhooks",
    async () => {
      const urls = Array.from({ length: PAGE_COUNT }, (_, i) => `${run.site.origin}/item/${i}`);
      const submitted = await submit({
        urls: [...urls, "ftp://example.com/file", "not a url"],
        schema: { name: "string" },
        options: { render: "static" },
        webhook: { url: `http://${receiver.hostPort}/hooks` },
      });
      expect(submitted.status).toBe(202);
      const job = (await submitted.json()) as { id: string; status_url: string; total: number };
      expect(submitted.headers.get("location")).toBe(job.status_url);
      expect(job.total).toBe(PAGE_COUNT + 2);

      const status = async () =>
        (await (await api(job.status_url)).json()) as {
          status: string;
          counts: { queued: number; done: number; failed: number };
        };
      // Restart the jobs worker once some pages are done and others are not.
      for (;;) {
        const { counts } = await status();
        if (counts.done >= 20) break;
        await sleep(50);
      }
      expect((await status()).counts.queued).toBeGreaterThan(0);
      run.stack.process("jobs").kill("SIGTERM");
      await sleep(500);
      await run.stack.waitUntilReady();
      for (;;) {
        const current = await status();
        if (current.status === "completed") break;
        await sleep(200);
      }

      // Every result, a page of results at a time.
      const results: { index: number; url: string; status: string; data?: { name: string }; problem?: object }[] = [];
      for (let cursor: string | null = "0"; cursor !== null; ) {
        const page = (await (await api(`${job.status_url}?cursor=${cursor}&limit=64`)).json()) as {
          results: typeof results;
          next_cursor: string | null;
        };
        results.push(...page.results);
        cursor = page.next_cursor;
      }
      expect(results).toHaveLength(PAGE_COUNT + 2);
      for (let i = 0; i < PAGE_COUNT; i++) {
        expect(results[i]).toMatchObject({ index: i, url: urls[i], status: "done", data: { name: `Item ${i}` } });
      }
      expect(results[PAGE_COUNT]).toMatchObject({
        status: "failed",
        problem: { type: "https://winnow.dev/problems/url-not-allowed" },
      });
      expect(results[PAGE_COUNT + 1]).toMatchObject({
        status: "failed",
        problem: { type: "https://winnow.dev/problems/invalid-request" },
      });
      expect((await status()).counts).toMatchObject({ queued: 0, done: PAGE_COUNT, failed: 2 });
      // The key's plan held: never more of its pages at once than its scrape slots.
      expect(run.site.maxInFlight()).toBeLessThanOrEqual(MAX_CONCURRENT_SCRAPES);

      // No finished page ran again: beyond one fetch per page, only those cut short by the restart were fetched again.
      const fetches = [...run.site.hits.values()].reduce((sum, n) => sum + n, 0);
      expect(fetches - PAGE_COUNT).toBeLessThanOrEqual(MAX_CONCURRENT_SCRAPES);

      // One `page` event per page that ran (the URLs refused up front are in the results from the start), and
      // `completed`, after a retry. Deliveries are at least once: one cut short by the restart is sent again, with
      // the same id and the same body (the page's one result). They are not ordered: a delivery put off while its
      // receiver has its deliveries in flight takes its account's next turn, and may arrive after `completed`.
      const delivered = () => receiver.deliveries.map((d) => JSON.parse(d.body) as { type: string; id: string });
      for (;;) {
        const events = delivered();
        const pages = new Set(events.filter((event) => event.type === "page").map((event) => event.id));
        if (events.some((event) => event.type === "completed") && pages.size === PAGE_COUNT) break;
        await sleep(200);
      }
      const byId = new Map<string, string>();
      for (const { body } of receiver.deliveries) {
        const { id } = JSON.parse(body) as { id: string };
        expect(byId.get(id) ?? body).toBe(body);
        byId.set(id, body);
      }
      const events = [...byId.values()].map((body) => JSON.parse(body) as { type: string; page?: { index: number } });
      const pageEvents = events.filter((event) => event.type === "page").map((event) => event.page!.index);
      expect(pageEvents.sort((a, b) => a - b)).toEqual(Array.from({ length: PAGE_COUNT }, (_, i) => i));
      expect(events.find((event) => event.type === "completed")).toMatchObject({
        job_id: job.id,
        job: { status: "completed", counts: { done: PAGE_COUNT, failed: 2 } },
      });

      const { webhook_secret: secret } = (await (await api("/account")).json()) as { webhook_secret: string };
      expect(secret).toMatch(/^whsec_/);
      for (const delivery of receiver.deliveries) {
        const signature = String(delivery.headers["winnow-signature"]);
        expect(await verifyWebhookSignature(delivery.body, signature, secret)).toBe(true);
        expect(await verifyWebhookSignature(`${delivery.body} `, signature, secret)).toBe(false);
      }
      expect(verifiedByPython(receiver.deliveries, secret)).toBe(receiver.deliveries.length);
      expect(verifiedByPython(receiver.deliveries, `${secret}x`)).toBe(0);
    },
    5 * TEST_TIMEOUT_MS,
  );

  it("refuses a webhook to a private address, and shows a job to its own account only", async () => {
    for (const url of ["http://10.1.2.3/hook", "http://127.0.0.1:9/hook", "http://localhost/hook"]) {
      const res = await submit({ urls: [`${run.site.origin}/item/0`], schema: { name: "string" }, webhook: { url } });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({
        type: "https://winnow.dev/problems/url-not-allowed",
        errors: [{ path: "/webhook/url" }],
      });
    }

    const auth = promiseClient(
      createClient(AuthServiceClient, `127.0.0.1:${run.ports.auth}`, run.stack.callerTokens.admin),
    );
    const other = await auth.createAccount({ email: `${randomUUID()}@example.com`, password: "" });
    auth.grpc.close();
    const submitted = await submit({ urls: [`${run.site.origin}/item/1`], schema: { name: "string" } });
    const { status_url } = (await submitted.json()) as { status_url: string };
    expect((await api(status_url, {}, other.apiKey)).status).toBe(404);
    expect((await api(status_url, { method: "DELETE" }, other.apiKey)).status).toBe(404);
    expect((await api(status_url)).status).toBe(200);
  });

  it("retries a page only for a retryable problem, with backoff, as many times as BATCH_PAGE_ATTEMPTS", async () => {
    const submitted = await submit({
      urls: [`${run.site.origin}/too-slow`, `${run.site.origin}/gone`],
      schema: { name: "string" },
      options: { render: "static", timeout_ms: 300 },
    });
    const { status_url } = (await submitted.json()) as { status_url: string };
    let job: { status: string; results: { status: string; problem: { type: string } }[] };
    do {
      await sleep(200);
      job = (await (await api(status_url)).json()) as typeof job;
    } while (job.status === "running");
    expect(job.results.map((r) => [r.status, r.problem.type])).toEqual([
      ["failed", "https://winnow.dev/problems/target-timeout"],
      ["failed", "https://winnow.dev/problems/target-http-error"],
    ]);
    // target-timeout is retryable: every attempt (3 by default); target-http-error is not: once.
    expect(run.site.hits.get("/too-slow")).toBe(3);
    expect(run.site.hits.get("/gone")).toBe(1);
  });

  it("runs a job from both clients (submit, wait with progress, iterate results) and cancels one", async () => {
    const urls = [`${run.site.origin}/item/2`, `${run.site.origin}/item/3`, "ftp://example.com/file"];
    const batch = new WinnowBatch({ apiKey: run.stack.apiKey, baseUrl: run.stack.gatewayUrl });
    const progress: string[] = [];
    const results = await batch.batchScrape(
      { urls, schema: { name: "string" }, options: { render: "static" } },
      { onProgress: (job) => progress.push(job.status), intervalMs: 100 },
    );
    expect(progress.at(-1)).toBe("completed");
    expect(results.map(({ status, data }) => [status, data?.name])).toEqual([
      ["done", "Item 2"],
      ["done", "Item 3"],
      ["failed", undefined],
    ]);
    // A result states each field's status itself (it has no headers); with evidence, its own status stays the page's.
    expect(results[0]).toMatchObject({ field_status: { "/name": "found" }, warnings: expect.any(Array) });
    const [withEvidence] = await batch.batchScrape(
      { urls: urls.slice(0, 1), schema: { name: "string" }, options: { render: "static", evidence: true } },
      { intervalMs: 100 },
    );
    expect(withEvidence).toMatchObject({
      status: "done",
      data: { name: "Item 2" },
      field_status: { "/name": "found" },
      evidence: { "/name": expect.objectContaining({ status: "found" }) },
    });

    const script = `
import json, sys
sys.path.insert(0, "clients/python")
from winnow import WinnowBatch
client = WinnowBatch(api_key=sys.argv[1], base_url=sys.argv[2])
seen = []
results = client.batch_scrape(json.loads(sys.argv[3]), {"name": "string"}, options={"render": "static"},
                              on_progress=lambda job: seen.append(job["status"]), interval=0.1)
print(json.dumps({"progress": seen, "results": [[r["status"], r.get("data", {}).get("name")] for r in results]}))
`;
    // Not execFileSync: the fixture site answers from this process while Python waits for its job.
    const { stdout } = await promisify(execFile)("python3", [
      "-c",
      script,
      run.stack.apiKey,
      run.stack.gatewayUrl,
      JSON.stringify(urls),
    ]);
    const python = JSON.parse(stdout) as { progress: string[]; results: unknown[] };
    expect(python.progress.at(-1)).toBe("completed");
    expect(python.results).toEqual([
      ["done", "Item 2"],
      ["done", "Item 3"],
      ["failed", null],
    ]);

    const many = Array.from({ length: 60 }, (_, i) => `${run.site.origin}/item/${i}`);
    const job = await batch.submit({ urls: many, schema: { name: "string" }, options: { render: "static" } });
    const cancelled = await batch.cancel(job.id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.counts.queued).toBe(0);
    expect(cancelled.counts.done + cancelled.counts.cancelled).toBe(60);
    expect((await batch.status(job.id)).status).toBe("cancelled");
  });
});

/** The tight-plan stack's plan: 4 requests a minute (the submission takes one, where counts are shared) and 1 scrape at a time. */
const TIGHT = { perMinute: 4, slots: 1 };

describe.each([
  // pg-boss on the embedded database, as `npm start` runs; BullMQ with the records on Postgres, as deployments run.
  ["the embedded queue", {}, "embedded"],
  ["Redis", { REDIS_URL, REDIS_KEY_PREFIX: `batch-tight-${randomUUID()}:` }, "postgres"],
] as const)("batch jobs under a tight plan on %s", (_name, queueEnv: Record<string, string>, store) => {
  let run: RunningStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    run = await launchStack(
      PAGES,
      {
        ...queueEnv,
        PLAN_REQUESTS_PER_MINUTE: String(TIGHT.perMinute),
        PLAN_MAX_CONCURRENT_SCRAPES: String(TIGHT.slots),
        BATCH_CONCURRENCY: "2",
        BATCH_PAGE_ATTEMPTS: "1",
        SHUTDOWN_GRACE_MS: "500",
      },
      { extraEgress: [receiver.hostPort], store },
    );
  });
  afterAll(async () => {
    await run?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  /** A new account (its id, for rotations) and its key. */
  const newAccount = async () => {
    const auth = promiseClient(
      createClient(AuthServiceClient, `127.0.0.1:${run.ports.auth}`, run.stack.callerTokens.admin),
    );
    try {
      const created = await auth.createAccount({ email: `${randomUUID()}@example.com`, password: "" });
      return {
        apiKey: created.apiKey,
        rotate: () => auth.rotateKey({ accountId: created.account!.id }),
        close: () => auth.grpc.close(),
      };
    } catch (error) {
      auth.grpc.close();
      throw error;
    }
  };
  const api = (path: string, apiKey: string, init: RequestInit = {}) =>
    fetch(`${run.stack.gatewayUrl}${path}`, {
      ...init,
      headers: { "content-type": "application/json", "x-api-key": apiKey },
    });
  type Job = {
    id: string;
    status: string;
    counts: { queued: number; done: number; failed: number; cancelled: number };
    results: { index: number; status: string; problem?: { type: string; retryable: boolean } }[];
  };
  const submit = async (apiKey: string, prefix: string, count: number, webhook?: string): Promise<string> => {
    const res = await api("/batch/scrape", apiKey, {
      method: "POST",
      body: JSON.stringify({
        urls: Array.from({ length: count }, (_, i) => `${run.site.origin}/${prefix}/${i}`),
        schema: { title: "string" },
        options: { render: "static" },
        ...(webhook && { webhook: { url: webhook } }),
      }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { status_url: string }).status_url;
  };
  const status = async (statusUrl: string, apiKey: string) => (await (await api(statusUrl, apiKey)).json()) as Job;
  /** Polls the job until `done` holds; bounded by the test's timeout. */
  const until = async (statusUrl: string, apiKey: string, done: (job: Job) => boolean): Promise<Job> => {
    for (;;) {
      const job = await status(statusUrl, apiKey);
      if (done(job)) return job;
      await sleep(100);
    }
  };
  const hitsOf = (prefix: string) =>
    [...run.site.hits].filter(([path]) => path.startsWith(`/${prefix}/`)).reduce((sum, [, n]) => sum + n, 0);

  it(
    "runs another key's job while a throttled key's pages wait in the queue, not in the workers",
    async () => {
      const a = await newAccount();
      const b = await newAccount();
      // A's pages each hold its one scrape slot for seconds; the jobs worker runs two pages at once.
      const jobA = await submit(a.apiKey, "fair-a", 3);
      await until(jobA, a.apiKey, () => hitsOf("fair-a") > 0);
      const jobB = await submit(b.apiKey, "fair-b", 3);
      await until(jobB, b.apiKey, (job) => job.status === "completed");
      // B's job finished while A's first page still held A's slot: A's other pages waited without holding a worker.
      const a1 = await status(jobA, a.apiKey);
      expect(a1.counts.done).toBeLessThanOrEqual(1);
      expect(a1.counts.queued).toBeGreaterThanOrEqual(2);
      expect((await status(jobB, b.apiKey)).counts).toMatchObject({ done: 3, failed: 0 });
      await api(jobA, a.apiKey, { method: "DELETE" });
      a.close();
      b.close();
    },
    2 * TEST_TIMEOUT_MS,
  );

  it(
    "runs exactly the key's requests for the minute, and leaves the other pages queued",
    async () => {
      const owner = await newAccount();
      const job = await submit(owner.apiKey, "minute", 6);
      // Each page takes one of the minute's requests. With Redis the gateway and the jobs worker share one count, and
      // the submission took one; without it each process counts alone (as gateway replicas do), the worker its pages.
      const allowed = queueEnv.REDIS_URL ? TIGHT.perMinute - 1 : TIGHT.perMinute;
      await until(job, owner.apiKey, (each) => each.counts.done >= allowed);
      // The other pages wait for the next minute: they stay queued, and the site is not asked for them.
      await sleep(2_000);
      expect((await status(job, owner.apiKey)).counts).toMatchObject({ done: allowed, queued: 6 - allowed, failed: 0 });
      expect(hitsOf("minute")).toBe(allowed);
      const cancelled = (await (await api(job, owner.apiKey, { method: "DELETE" })).json()) as Job;
      expect(cancelled.counts).toMatchObject({ done: allowed, cancelled: 6 - allowed, queued: 0 });
      owner.close();
    },
    2 * TEST_TIMEOUT_MS,
  );

  it(
    "stops a job once its key is refreshed: the pages left are failed as key-revoked, never fetched",
    async () => {
      const owner = await newAccount();
      const job = await submit(owner.apiKey, "revoked", 3);
      await until(job, owner.apiKey, (each) => each.counts.done >= 1);
      const rotated = await owner.rotate();
      const ended = await until(job, rotated.apiKey, (each) => each.status === "completed");
      const revoked = ended.results.filter((result) => result.status === "failed");
      expect(revoked.length).toBeGreaterThanOrEqual(1);
      expect(ended.counts.done + revoked.length).toBe(3);
      for (const result of revoked) {
        expect(result.problem).toMatchObject({ type: "https://winnow.dev/problems/key-revoked", retryable: false });
        expect(run.site.hits.get(`/revoked/${result.index}`) ?? 0).toBe(0);
      }
      owner.close();
    },
    2 * TEST_TIMEOUT_MS,
  );

  it(
    "ends a page whose every attempt was cut short as page-abandoned, and completes its job",
    async () => {
      const owner = await newAccount();
      const job = await submit(owner.apiKey, "abandoned", 1, `http://${receiver.hostPort}/abandoned`);
      // The page's one attempt is in flight, and outlives the jobs worker's shutdown grace.
      await until(job, owner.apiKey, () => hitsOf("abandoned") > 0);
      run.stack.process("jobs").kill("SIGTERM");
      await sleep(500);
      await run.stack.waitUntilReady();
      const ended = await until(job, owner.apiKey, (each) => each.status === "completed");
      expect(ended.results).toMatchObject([
        {
          status: "failed",
          problem: { type: "https://winnow.dev/problems/page-abandoned", status: 503, retryable: true },
        },
      ]);
      for (;;) {
        const events = receiver.deliveries.map((d) => JSON.parse(d.body) as { type: string; job_id: string });
        if (events.some((event) => event.type === "completed" && event.job_id === ended.id)) break;
        await sleep(200);
      }
      owner.close();
    },
    2 * TEST_TIMEOUT_MS,
  );
});
