/**
 * One account's slow pages hold no neighbour's browser scrapes: the gateway tells the renderer whose render it is,
 * and the renderer gives each account at most RENDER_MAX_PAGES_PER_ACCOUNT pages (here 1 of 2).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";

const page = (title: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>Price: 12.50</p></body></html>`;
/** Deadlines far beyond what these pages need: nothing here depends on how fast the machine is. */
const GENEROUS_MS = 120_000;

let run: RunningStack;
let release!: () => void;
const held = new Promise<void>((resolve) => {
  release = resolve;
});

beforeAll(async () => {
  run = await launchStack(
    { "/held": { body: page("Held"), heldUntil: held }, "/quick": { body: page("Quick") } },
    { RENDER_MAX_PAGES: "2", RENDER_TIMEOUT_MS: String(GENEROUS_MS), REQUEST_TIMEOUT_MS: String(GENEROUS_MS) },
  );
});
afterAll(async () => {
  release();
  await run?.stop();
});

const scrape = (path: string, apiKey: string) =>
  run.scrape(
    { url: `${run.site.origin}${path}`, schema: { title: "string" }, options: { render: "browser" } },
    { "x-api-key": apiKey },
  );

describe("browser pages between accounts", () => {
  it(
    "renders a neighbour's page while one account's slow pages are held",
    async () => {
      const neighbourKey = await run.newAccountKey();
      const slow = [scrape("/held", run.stack.apiKey), scrape("/held", run.stack.apiKey)];
      // One of the account's scrapes holds a page; its other waits for the account's turn, not for the free page.
      await vi.waitFor(() => expect(run.site.requests("/held")).toBe(1), { timeout: GENEROUS_MS, interval: 100 });
      const quick = await scrape("/quick", neighbourKey);
      expect(quick.status).toBe(200);
      expect(run.site.requests("/held")).toBe(1);

      release();
      expect((await Promise.all(slow)).map((res) => res.status)).toEqual([200, 200]);
      expect(run.site.requests("/held")).toBe(2);
    },
    3 * GENEROUS_MS,
  );
});
