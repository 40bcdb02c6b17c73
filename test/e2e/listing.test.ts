/**
 * Whole listings in one scrape (options.pages, options.details) against the running stack, on written listings:
 * each kind of pager, a loop, a next link to another site, robots.txt, a record page that 404s, a deadline mid-listing, and
 * the options' rules; and a whole listing per URL in a batch job, with its progress.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixturePage } from "../support/fixture-site.js";
import { startInProcessGateway } from "../support/in-process-gateway.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";

const SCHEMA = { products: [{ name: "string", price_usd: "number", url: "string" }] };
const DETAIL_SCHEMA = { products: [{ name: "string", price_usd: "number", sku: "string", url: "string" }] };
const WORDS = ["Oak", "Lamp", "Chair", "Desk", "Shelf", "Rug", "Vase", "Clock"];

/** A listing page of four products (names unique to `key` and `page`) and the pager markup given. */
function listing(key: string, page: number, pager: string, head = ""): string {
  const cards = [0, 1, 2, 3]
    .map((i) => {
      const n = page * 10 + i;
      return `<li class="product"><a class="name" href="/item/${key}-${n}">${WORDS[i]} ${key} ${n}</a><div class="price"><span>$${n}.50</span></div></li>`;
    })
    .join("");
  return `<!doctype html><html><head><title>Catalogue</title>${head}</head><body><nav><a href="/">Home</a> <a href="/help">Help</a></nav><main><h1>Catalogue</h1><ul class="grid">${cards}</ul><div class="pager">${pager}</div></main><footer><p>Shop Inc.</p></footer></body></html>`;
}

const itemPage = (name: string, price: string, sku: string) =>
  `<!doctype html><html><head><title>${name}</title></head><body><main><h1>${name}</h1><p class="price">Price: ${price}</p><dl><dt>SKU</dt><dd>${sku}</dd></dl></main></body></html>`;

/** A held page: answers when the suite ends, long after any deadline. */
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});
/** A listing's second page, held until the test has seen the job's progress after the first. */
let releaseSecond: () => void = () => {};
const secondHeld = new Promise<void>((resolve) => {
  releaseSecond = resolve;
});

const PAGES: Record<string, FixturePage> = {
  // rel=next in the head.
  "/rel/1": { body: listing("rel", 1, "", '<link rel="next" href="/rel/2">') },
  "/rel/2": { body: listing("rel", 2, "") },
  // A pager's word, in French, with its arrow.
  "/word/1": { body: listing("word", 1, '<a href="/word/2">Suivant ›</a>') },
  "/word/2": { body: listing("word", 2, '<a href="/word/1">‹ Précédent</a>') },
  // A numbered pager: the current page is not a link.
  "/num/1": { body: listing("num", 1, '<strong>1</strong> <a href="/num/2">2</a> <a href="/num/3">3</a>') },
  "/num/2": { body: listing("num", 2, '<a href="/num/1">1</a> <strong>2</strong> <a href="/num/3">3</a>') },
  "/num/3": { body: listing("num", 3, '<a href="/num/1">1</a> <a href="/num/2">2</a> <strong>3</strong>') },
  // A record offset in the query: ?start=0, ?start=4.
  "/off?start=0": { body: listing("off", 1, '<a href="/off?start=4">more</a> <a href="/off?start=8">last</a>') },
  "/off?start=4": { body: listing("off", 2, '<a href="/off?start=0">first</a>') },
  // A load-more link that is a plain URL.
  "/feed": { body: listing("feed", 1, '<a href="/feed?cursor=b">Load more</a>') },
  "/feed?cursor=b": { body: listing("feed", 2, "") },
  // A loop: page 2 links back to page 1.
  "/loop/1": { body: listing("loop", 1, '<a href="/loop/2">Next</a>') },
  "/loop/2": { body: listing("loop", 2, '<a href="/loop/1">Next</a>') },
  // The next link leaves the site.
  "/away/1": { body: listing("away", 1, '<a href="https://elsewhere.example/away/2">Next</a>') },
  // robots.txt keeps crawlers out of /private/.
  "/robots.txt": { type: "text/plain", body: "User-agent: *\nDisallow: /private/\n" },
  "/bot/1": { body: listing("bot", 1, '<a href="/private/2">Next</a>') },
  "/private/2": { body: listing("bot", 2, "") },
  // A listing read in a batch job, its second page held.
  "/prog/1": { body: listing("prog", 1, '<a href="/prog/2">Next</a>') },
  "/prog/2": { body: listing("prog", 2, ""), heldUntil: secondHeld },
  // A second page that never answers in time.
  "/slow/1": { body: listing("slow", 1, '<a href="/slow/2">Next</a>') },
  "/slow/2": { body: listing("slow", 2, ""), heldUntil: held },
  // Records' own pages: one disagrees on the price, one is gone.
  "/det/1": { body: listing("det", 1, "") },
  "/item/det-10": { body: itemPage("Oak det 10", "$10.50", "SKU-10") },
  "/item/det-11": { body: itemPage("Lamp det 11", "$99.00", "SKU-11") },
  "/item/det-12": { status: 404, body: itemPage("Gone", "", "") },
  "/item/det-13": { body: itemPage("Desk det 13", "$13.50", "SKU-13") },
};

let run: RunningStack;
/** A webhook receiver: every event's JSON body. */
const events: Record<string, unknown>[] = [];
let receiver: Server;
beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      events.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hooks = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  run = await launchStack(PAGES, { MAX_LISTING_PAGES: "20" }, { extraEgress: [hooks] });
});
afterAll(async () => {
  release();
  releaseSecond();
  await run?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function scrape(path: string, options: Record<string, unknown>, schema: object = SCHEMA) {
  const response = await run.scrape({
    url: `${run.site.origin}${path}`,
    schema,
    options: { evidence: true, ...options },
  });
  const body = (await response.json()) as {
    data: { products: { name: string; price_usd: number; sku?: string | null }[] };
    status: Record<string, string>;
    warnings?: { code: string; message: string; path: string }[];
    evidence: Record<string, { page?: string; status: string; alternative?: { value: unknown } }>;
  };
  return { response, body, names: body.data?.products?.map((p) => p.name) ?? [] };
}

const namesOf = (key: string, pages: number[]) =>
  pages.flatMap((page) => [0, 1, 2, 3].map((i) => `${WORDS[i]} ${key} ${page * 10 + i}`));

describe("a whole listing in one scrape", () => {
  it.each([
    ["rel=next", "/rel/1", "rel", [1, 2]],
    ["a pager's word and arrow", "/word/1", "word", [1, 2]],
    ["a numbered pager", "/num/1", "num", [1, 2, 3]],
    ["a record offset", "/off?start=0", "off", [1, 2]],
    ["a load-more link", "/feed", "feed", [1, 2]],
  ] as const)("follows %s, every record once in page order", async (_kind, path, key, pages) => {
    const { response, body, names } = await scrape(path, { pages: 10 });
    expect(response.status).toBe(200);
    expect(names).toEqual(namesOf(key, [...pages]));
    expect(response.headers.get("winnow-pages")).toBe(`listing=${pages.length}, details=0, failed=0, model=0`);
    expect(body.warnings?.filter((w) => w.code === "list-incomplete") ?? []).toEqual([]);
  });

  it("stops at a page read before, and says when options.pages cut the listing", async () => {
    const loop = await scrape("/loop/1", { pages: 10 });
    expect(loop.names).toEqual(namesOf("loop", [1, 2]));
    // Evidence names the page each value was read on.
    expect(loop.body.evidence["/products/0/name"]?.page).toBe(`${run.site.origin}/loop/1`);
    expect(loop.body.evidence["/products/4/name"]?.page).toBe(`${run.site.origin}/loop/2`);
    expect(run.site.requests("/loop/1")).toBe(1);
    const cut = await scrape("/num/1", { pages: 2 });
    expect(cut.names).toEqual(namesOf("num", [1, 2]));
    expect(cut.body.warnings).toContainEqual(expect.objectContaining({ code: "list-incomplete" }));
  });

  it("does not follow a next link to another site, and says so", async () => {
    const { response, body, names } = await scrape("/away/1", { pages: 5 });
    expect(response.headers.get("winnow-pages")).toBe("listing=1, details=0, failed=0, model=0");
    expect(names).toEqual(namesOf("away", [1]));
    const warning = body.warnings?.find((w) => w.code === "list-incomplete");
    expect(warning?.message).toContain("elsewhere.example");
  });

  it("does not read a next page robots.txt disallows, and says so", async () => {
    const { body, names } = await scrape("/bot/1", { pages: 5 });
    expect(names).toEqual(namesOf("bot", [1]));
    expect(run.site.requests("/private/2")).toBe(0);
    expect(body.warnings?.find((w) => w.code === "list-incomplete")?.message).toContain("robots.txt");
  });

  it("fills the records' fields from their own pages, keeps the listing's values, and keeps a record whose page is gone", async () => {
    const { response, body } = await scrape("/det/1", { details: true }, DETAIL_SCHEMA);
    expect(response.headers.get("winnow-pages")).toBe("listing=1, details=3, failed=1, model=0");
    const products = body.data.products;
    expect(products.map((p) => p.sku)).toEqual(["SKU-10", "SKU-11", null, "SKU-13"]);
    expect(body.evidence["/products/0/sku"]?.page).toBe(`${run.site.origin}/item/det-10`);
    expect(products[1]!.price_usd).toBe(11.5);
    expect(body.status["/products/1/price_usd"]).toBe("conflict");
    expect(body.evidence["/products/1/price_usd"]?.alternative?.value).toBe(99);
    expect(products[2]!.name).toBe("Chair det 12");
    expect(body.status["/products/2/sku"]).toBe("truncated");
    expect(body.warnings).toContainEqual(expect.objectContaining({ code: "detail-failed", path: "/products/2" }));
  });

  it("answers what it has, marked, when the deadline passes mid-listing", async () => {
    const gateway = await startInProcessGateway(run, {
      requestTimeoutMs: Math.round(TEST_TIMEOUT_MS / 4),
      keyPrefix: "listing:",
    });
    try {
      const response = await fetch(`${gateway.url}/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": run.stack.apiKey },
        body: JSON.stringify({
          url: `${run.site.origin}/slow/1`,
          schema: SCHEMA,
          options: { pages: 3, evidence: true },
        }),
      });
      const body = (await response.json()) as { data: { products: unknown[] }; warnings: { code: string }[] };
      expect(response.status).toBe(200);
      expect(response.headers.get("winnow-pages")).toBe("listing=1, details=0, failed=1, model=0");
      expect(body.data.products).toHaveLength(4);
      expect(body.warnings).toContainEqual(expect.objectContaining({ code: "list-incomplete" }));
    } finally {
      await gateway.close();
    }
  });

  it.each([
    [{ pages: 0 }, SCHEMA, "/options/pages", ">= 1"],
    [{ pages: 10_000 }, SCHEMA, "/options/pages", "MAX_LISTING_PAGES"],
    [{ details: true }, { title: "string", price: "number" }, "/options/details", "list of records"],
    [{ details: true }, { products: [{ name: "string" }] }, "/options/details", "link field"],
  ])("refuses %j with a 400 that states the rule", async (options, schema, path, rule) => {
    const response = await run.scrape({ url: `${run.site.origin}/rel/1`, schema, options });
    const body = (await response.json()) as { errors: { path: string; description: string }[] };
    expect(response.status).toBe(400);
    expect(body.errors).toContainEqual({ path, description: expect.stringContaining(rule) });
  });
});

describe("whole listings in a batch job", () => {
  it("reads each URL's whole listing, with the pages read and records so far on the job and in its webhooks", async () => {
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${run.stack.gatewayUrl}${path}`, {
        ...init,
        headers: { "content-type": "application/json", "x-api-key": run.stack.apiKey },
      });
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const submitted = await api("/batch/scrape", {
      method: "POST",
      body: JSON.stringify({
        urls: [`${run.site.origin}/num/1`, `${run.site.origin}/rel/1`],
        schema: SCHEMA,
        options: { pages: 10 },
        webhook: { url: hook },
      }),
    });
    expect(submitted.status).toBe(202);
    const { id, status_url, progress } = (await submitted.json()) as {
      id: string;
      status_url: string;
      progress: object;
    };
    expect(progress).toEqual({ pages_read: 0, records: 0 });
    type Job = {
      status: string;
      progress: { pages_read: number; records: number };
      results: { status: string; data: { products: { name: string }[] }; pages: object; records: number }[];
    };
    let job: Job;
    do {
      await sleep(200);
      job = (await (await api(status_url)).json()) as Job;
    } while (job.status === "running");
    expect(job.results.map((r) => [r.status, r.data.products.map((p) => p.name)])).toEqual([
      ["done", namesOf("num", [1, 2, 3])],
      ["done", namesOf("rel", [1, 2])],
    ]);
    expect(job.results.map((r) => [r.pages, r.records])).toEqual([
      [{ listing: 3, details: 0, failed: 0, model: 0 }, 12],
      [{ listing: 2, details: 0, failed: 0, model: 0 }, 8],
    ]);
    expect(job.progress).toEqual({ pages_read: 5, records: 20 });

    // Each page event carries the job's progress with that page counted; `completed` the whole job's. Deliveries
    // are not ordered (one put off for its receiver takes a later turn): wait for all three.
    const ofJob = () => events.filter((event) => event.job_id === id);
    while (ofJob().length < 3) await sleep(100);
    const pageEvents = ofJob().filter((event) => event.type === "page") as {
      page: { records: number };
      progress: { pages_read: number; records: number };
    }[];
    expect(pageEvents).toHaveLength(2);
    for (const event of pageEvents) expect(event.progress.records).toBeGreaterThanOrEqual(event.page.records);
    expect(Math.max(...pageEvents.map((event) => event.progress.records))).toBe(20);
    expect(ofJob().find((event) => event.type === "completed")).toMatchObject({
      job: { status: "completed", progress: { pages_read: 5, records: 20 } },
    });
  });

  it("counts a listing's pages and records in the job's progress while it is still being read", async () => {
    const api = (path: string) =>
      fetch(`${run.stack.gatewayUrl}${path}`, { headers: { "x-api-key": run.stack.apiKey } });
    const submitted = await fetch(`${run.stack.gatewayUrl}/batch/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": run.stack.apiKey },
      body: JSON.stringify({ urls: [`${run.site.origin}/prog/1`], schema: SCHEMA, options: { pages: 5 } }),
    });
    const { status_url } = (await submitted.json()) as { status_url: string };
    type Job = { status: string; progress: { pages_read: number; records: number } };
    let job: Job;
    do {
      await sleep(100);
      job = (await (await api(status_url)).json()) as Job;
    } while (job.progress.pages_read === 0);
    // Its one page, the listing, is still running: what it has read shows.
    expect(job).toEqual(expect.objectContaining({ status: "running", progress: { pages_read: 1, records: 4 } }));
    releaseSecond();
    do {
      await sleep(100);
      job = (await (await api(status_url)).json()) as Job;
    } while (job.status === "running");
    expect(job.progress).toEqual({ pages_read: 2, records: 8 });
  });

  it("refuses more listing pages than the operator allows, as POST /scrape does", async () => {
    const response = await fetch(`${run.stack.gatewayUrl}/batch/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": run.stack.apiKey },
      body: JSON.stringify({ urls: [`${run.site.origin}/rel/1`], schema: SCHEMA, options: { pages: 21 } }),
    });
    const body = (await response.json()) as { errors: { path: string; description: string }[] };
    expect(response.status).toBe(400);
    expect(body.errors).toContainEqual({
      path: "/options/pages",
      description: expect.stringContaining("MAX_LISTING_PAGES"),
    });
  });
});
