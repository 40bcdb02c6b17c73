/**
 * The first pages a new user sees, in Chromium at desktop and phone width:
 * the playground shows a problem in full (title, detail, each field's path,
 * a hint), each value's status in words with its meaning, and says why an
 * answer is all null; a local address names
 * WINNOW_EGRESS_ALLOW; /docs and the dashboard link each other, fit a phone
 * without sideways scrolling, and every page has an icon that loads.
 * Screenshots go to test-results/surface/ (docs/screenshots/ holds copies).
 */
import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { LAUNCH_ARGS } from "@winnow/renderer";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/src/stack.js";
import { FIELD_STATUSES } from "../../services/gateway/src/docs/openapi.js";
import { freePorts } from "../support/ports.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";

const SCREENSHOTS = path.join(REPO_ROOT, "test-results", "surface");
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

const SHOP = `<!doctype html><html><head><title>Ridgeline Kettle</title></head><body>
<h1>Ridgeline Kettle</h1><p>A stovetop kettle in brushed steel.</p></body></html>`;

let run: RunningStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Responses of 400 and more for anything but /scrape, which answers problems on purpose. */
const failedLoads: string[] = [];

beforeAll(async () => {
  run = await launchStack({ "/kettle": { body: SHOP } });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: LAUNCH_ARGS });
  context = await browser.newContext({ viewport: DESKTOP, deviceScaleFactor: 1 });
  page = await context.newPage();
  page.on("response", (response) => {
    if (response.status() >= 400 && !response.url().endsWith("/scrape")) failedLoads.push(response.url());
  });
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.goto(`${run.stack.gatewayUrl}/dashboard/signup`);
  await page.getByLabel("Email").fill(`${randomUUID()}@example.com`);
  await page.getByLabel(/^Password/).fill("a long enough password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(`${run.stack.gatewayUrl}/dashboard`);
});
afterAll(async () => {
  await browser?.close();
  await run?.stop();
});

/** The whole page; /docs is long, so its first screen only. */
const shot = async (name: string, fullPage = true) => {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
};

/** Whether the page scrolls sideways at its current width. */
const overflows = () =>
  page.evaluate(() => {
    const root = document.scrollingElement!;
    return root.scrollWidth > root.clientWidth;
  });

async function scrapeInPlayground(fields: { url: string; schema: string; task?: string }) {
  await page.setViewportSize(DESKTOP);
  await page.goto(`${run.stack.gatewayUrl}/dashboard/playground`);
  await page.getByLabel("Page URL").fill(fields.url);
  await page.getByLabel(/^Schema/).fill(fields.schema);
  if (fields.task) await page.getByLabel(/^Task description/).fill(fields.task);
  await page.getByRole("button", { name: "Scrape" }).click();
  await expect
    .poll(() => page.locator("#result-status").textContent(), { timeout: TEST_TIMEOUT_MS })
    .not.toBe("Scraping…");
}

describe("the playground", () => {
  it("shows a problem in full: its title, detail, each field's path and a hint", async () => {
    await scrapeInPlayground({ url: `${run.site.origin}/kettle`, schema: '{ "title": "string", "price": "money" }' });
    expect(await page.locator("#result-status").textContent()).toBe("400: Invalid schema");
    const problem = page.locator("#problem");
    expect(await problem.isVisible()).toBe(true);
    expect(await problem.locator(".problem-title").textContent()).toBe("Invalid schema");
    expect(await problem.locator(".problem-detail").textContent()).toContain('unknown type "money"');
    expect(await problem.locator(".problem-errors li code").allTextContents()).toEqual(["/schema/price"]);
    expect(await problem.locator(".problem-hint").textContent()).toContain("A schema maps field names to types");
    await shot("playground-problem-desktop");
    await page.setViewportSize(PHONE);
    expect(await overflows()).toBe(false);
    await shot("playground-problem-phone");
  });

  it("names WINNOW_EGRESS_ALLOW when the page is on a local address", async () => {
    const [port] = await freePorts(1);
    await scrapeInPlayground({ url: `http://127.0.0.1:${port}/`, schema: '{ "title": "string" }' });
    expect(await page.locator("#problem .problem-title").textContent()).toBe("URL not allowed");
    expect(await page.locator("#problem .problem-detail").textContent()).toContain(
      `WINNOW_EGRESS_ALLOW=127.0.0.1:${port}`,
    );
  });

  it("shows each value's status in words with its one-line meaning, null values too", async () => {
    await scrapeInPlayground({ url: `${run.site.origin}/kettle`, schema: '{ "title": "string", "price": "number" }' });
    expect(await page.locator("#result-status").textContent()).toBe("200 OK");
    const rows = page.locator("#evidence tbody tr");
    expect(await rows.locator("td:first-child code").allTextContents()).toEqual(["/title", "/price"]);
    const meanings = Object.fromEntries(FIELD_STATUSES.map(({ status, summary }) => [status, summary]));
    for (const row of await rows.all()) {
      const status = (await row.locator(".status").textContent())!;
      expect(await row.locator(".meaning").textContent(), status).toBe(meanings[status]);
    }
    expect(await rows.nth(1).locator("td:first-child strong").textContent()).toBe("null");
    expect(["absent", "not-found"]).toContain(await rows.nth(1).locator(".status").textContent());
    await shot("playground-statuses-desktop");
    await page.setViewportSize(PHONE);
    expect(await overflows()).toBe(false);
    await shot("playground-statuses-phone");
  });

  it("explains an all-null answer from the fields' statuses", async () => {
    await scrapeInPlayground({
      url: `${run.site.origin}/kettle`,
      schema: '{ "warranty_years": "integer", "review_summary": "string" }',
      task: "Write a review summary in one sentence.",
    });
    expect(await page.locator("#result-status").textContent()).toBe("200 OK");
    const problem = page.locator("#problem");
    expect(await problem.locator(".problem-title").textContent()).toBe("Nothing matched");
    expect(await problem.locator(".problem-errors").textContent()).toContain("/review_summary needs-model");
    const hint = await problem.locator(".problem-hint").textContent();
    expect(hint).toContain("need an AI model");
    expect(hint).toContain("names that say what they hold");
    await shot("playground-nothing-matched-desktop");
    await page.setViewportSize(PHONE);
    expect(await overflows()).toBe(false);
    await shot("playground-nothing-matched-phone");
  });
});

describe("the pages at 390, 768, 1280 and 1920 px", () => {
  const WIDTHS = [390, 768, 1280, 1920];

  it("keep a laptop's answer in view, and an error leaves nothing of the answer before it", async () => {
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.goto(`${run.stack.gatewayUrl}/dashboard/playground`);
    await page.getByLabel("Page URL").fill(`${run.site.origin}/kettle`);
    await page.getByLabel(/^Schema/).fill('{ "title": "string" }');
    await page.getByRole("button", { name: "Scrape" }).click();
    await expect
      .poll(() => page.locator("#result-status").textContent(), { timeout: TEST_TIMEOUT_MS / 2 })
      .toBe("200 OK");
    // The answer's status and its first values are on screen, not below the fold.
    const inView = (selector: string) =>
      page.locator(selector).evaluate((element) => {
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.top < window.innerHeight && box.bottom > 0;
      });
    expect(await inView("#result-status")).toBe(true);
    expect(await inView("#evidence tbody tr")).toBe(true);
    expect(await page.locator("#evidence").isVisible()).toBe(true);
    await shot("playground-answer-laptop", false);
    await page.getByLabel(/^Schema/).fill('{ "title": ');
    await page.getByRole("button", { name: "Scrape" }).click();
    expect(await page.locator("#result-status").textContent()).toMatch(/^The schema is not valid JSON/);
    expect(await page.locator("#evidence").isVisible()).toBe(false);
    expect(await page.locator("#result").textContent()).toBe("");
  });

  it("show the usage table whole from 768 px, and say it scrolls on a phone; the example is this gateway's, with the key", async () => {
    await page.goto(`${run.stack.gatewayUrl}/dashboard`);
    const key = await page.locator("#api-key").inputValue();
    expect(
      (await run.scrape({ url: `${run.site.origin}/kettle`, schema: { title: "string" } }, { "x-api-key": key }))
        .status,
    ).toBe(200);
    // Counted once the gateway flushes its usage.
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator("#usage").count();
        },
        { timeout: TEST_TIMEOUT_MS / 2, interval: 500 },
      )
      .toBe(1);
    const example = await page.locator("pre.example").textContent();
    expect(example).toContain(`${run.stack.gatewayUrl}/scrape`);
    expect(example).toContain(`x-api-key: ${key}`);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      // The hint follows the window's resize event, which lands after the new size.
      const table = () =>
        page.locator("#usage").evaluate((box) => ({
          scrolls: box.scrollWidth > box.clientWidth,
          hint: !box.previousElementSibling!.hasAttribute("hidden"),
        }));
      await expect
        .poll(table, { timeout: TEST_TIMEOUT_MS / 4, message: `${width} px` })
        .toEqual({ scrolls: width < 768, hint: width < 768 });
      expect(await overflows(), `${width} px`).toBe(false);
      await shot(`account-${width}`);
    }
  });
});

describe("/docs", () => {
  it("fits a phone, documents the options, /account and the clients, and links the dashboard both ways", async () => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`${run.stack.gatewayUrl}/dashboard`);
    await page.getByRole("link", { name: "API docs" }).click();
    await page.waitForURL(`${run.stack.gatewayUrl}/docs`);
    for (const option of ["render", "timeout_ms", "wait_for", "evidence", "screenshot"]) {
      expect(await page.locator("#options + .scroll td code", { hasText: option }).count(), option).toBeGreaterThan(0);
    }
    expect(await page.locator("#account").textContent()).toBe("GET /account");
    expect(await page.locator("#json-schema").count()).toBe(1);
    const text = await page.locator("body").textContent();
    expect(text).toContain("npm install ./clients/node");
    expect(text).toContain("pip install ./clients/python");
    await shot("docs-desktop", false);
    await page.setViewportSize(PHONE);
    expect(await overflows()).toBe(false);
    await shot("docs-phone", false);
    await page.locator("nav").getByRole("link", { name: "Dashboard" }).click();
    await page.waitForURL(`${run.stack.gatewayUrl}/dashboard`);
  });

  it("every page links an icon that loads, and no page load fails", async () => {
    const res = await fetch(`${run.stack.gatewayUrl}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(await res.text()).toMatch(/^<svg /);
    for (const address of ["/docs", "/dashboard", "/dashboard/playground", "/dashboard/login"]) {
      await page.goto(`${run.stack.gatewayUrl}${address}`);
      expect(await page.locator('link[rel="icon"]').getAttribute("href"), address).toBe("/favicon.ico");
    }
    expect(failedLoads).toEqual([]);
  });
});
