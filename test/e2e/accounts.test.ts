/**
 * Accounts end to end, over the whole stack as separate processes plus a
 * second gateway replica: the dashboard in real Chromium (sign up, see the
 * key, scrape with it, refresh, old key refused), its security properties,
 * and "refresh means dead at once" under concurrent load on both replicas.
 */
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type AuthClient, createClient, promiseClient } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { LAUNCH_ARGS } from "@winnow/renderer";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenEnv } from "../../scripts/src/caller-tokens.js";
import { REPO_ROOT, type Stack, startStack } from "../../scripts/src/stack.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { type FixtureSite, startFixtureSite } from "../support/fixture-site.js";
import { freePorts } from "../support/ports.js";
import { type ServiceProcess, startService } from "../support/service-process.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";
import { PAGES } from "./pages.js";

const SCREENSHOTS = path.join(REPO_ROOT, "test-results", "dashboard");
const SCHEMA = { product_name: "string", price_usd: "number" };
const LOGIN_ATTEMPTS = 3;

let stack: Stack;
let secondGateway: ServiceProcess;
let secondGatewayUrl: string;
/** Between the second gateway and auth, to break that link. */
let authLink: TcpProxy;
let site: FixtureSite;
let llm: FakeLlm;
let auth: AuthClient;
let dataDir: string;
const output: string[] = [];

beforeAll(async () => {
  site = await startFixtureSite(PAGES);
  llm = await startFakeLlm(() => ({ product_name: "Ridgeline Trail Shoe", price_usd: "129.99" }));
  dataDir = await mkdtemp(path.join(tmpdir(), "winnow-accounts-"));
  const [gateway, authPort, renderer, extractor, gateway2, jobs] = (await freePorts(6)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    WINNOW_DATA_DIR: dataDir,
    WINNOW_EGRESS_ALLOW: site.hostPort,
    LLM_BASE_URL: llm.baseUrl,
    LLM_API_KEY: "test-key",
    LLM_MODEL: "winnow-test-model",
    // Every field to the model, so usage records model tokens (the builtin pre-fill, or a template
    // learned from the earlier scrapes of the same page, could answer alone).
    EXTRACT_HYBRID: "off",
    EXTRACT_TEMPLATES: "false",
    LOG_LEVEL: "warn",
    // High enough that the rotation flood is never rate-limited (its old key fails by the thousand, from one address).
    PLAN_REQUESTS_PER_MINUTE: "1000000",
    KEY_FAILURES_PER_MINUTE: "1000000",
    PLAN_MAX_CONCURRENT_SCRAPES: "64",
    LOGIN_ATTEMPTS_PER_15_MIN: String(LOGIN_ATTEMPTS),
    // Any free port for each service's /metrics, so parallel stacks never collide.
    METRICS_PORT: "0",
  };
  stack = await startStack({
    inheritEnv: false,
    env,
    ports: { gateway, auth: authPort, renderer, extractor, jobs },
    onOutput: (service, line) => output.push(`${service}: ${line}`),
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n${output.join("\n")}`);
  });
  secondGatewayUrl = `http://127.0.0.1:${gateway2}`;
  authLink = await startTcpProxy(authPort);
  secondGateway = await startService(
    "gateway",
    {
      ...env,
      // A replica's own embedded gateway database (its scrape cache): one process's at a time.
      WINNOW_DATA_DIR: path.join(dataDir, "second-gateway"),
      PORT: String(gateway2),
      AUTH_ADDR: `127.0.0.1:${authLink.port}`,
      // Nothing is written before the SIGTERM of the last test: the counts it checks come from the drain.
      USAGE_FLUSH_MS: "600000",
      RENDERER_ADDR: `127.0.0.1:${renderer}`,
      EXTRACTOR_ADDR: `127.0.0.1:${extractor}`,
      // The tokens the stack generated in its data directory, as a replica of the same deployment has them.
      ...tokenEnv(stack.callerTokens, ["gateway", "service"]),
    },
    secondGatewayUrl,
  );
  // The operator's credential: the tests rotate keys by account id.
  auth = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${authPort}`, stack.callerTokens.admin));
});

afterAll(async () => {
  auth?.grpc.close();
  await secondGateway?.stop();
  await authLink?.close();
  await stack?.stop();
  await site?.close();
  await llm?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const scrape = (gatewayUrl: string, apiKey: string, signal?: AbortSignal) =>
  fetch(`${gatewayUrl}/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({ url: `${site.origin}/product`, schema: SCHEMA }),
    signal,
  });

describe("the dashboard in Chromium", () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: LAUNCH_ARGS });
    // Phone width: every step must be usable on a small screen.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.gatewayUrl });
    page = await context.newPage();
  });
  afterAll(() => browser?.close());

  const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

  it("signs up, shows and copies the key, scrapes with it, refreshes it, and the old key is refused at once", async () => {
    const email = `${randomUUID()}@example.com`;
    const password = "a long enough password";

    await page.goto(`${stack.gatewayUrl}/`);
    await expect.poll(() => page.url()).toBe(`${stack.gatewayUrl}/dashboard/login`);
    await shot("1-log-in");
    await page.getByRole("link", { name: "Sign up" }).click();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel(/^Password/).fill(password);
    await shot("2-sign-up");
    await page.getByRole("button", { name: "Sign up" }).click();

    // The key page: masked until revealed, copyable.
    await page.waitForURL(`${stack.gatewayUrl}/dashboard`);
    const keyField = page.getByLabel(/Your API key/);
    expect(await keyField.getAttribute("type")).toBe("password");
    await shot("3-key-masked");
    await page.getByRole("button", { name: "Reveal" }).click();
    expect(await keyField.getAttribute("type")).toBe("text");
    const oldKey = await keyField.inputValue();
    expect(oldKey).toMatch(/^wnw_[0-9A-Za-z]{11}_[0-9A-Za-z]{28}$/);
    await shot("4-key-revealed");
    await page.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/Copied/);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(oldKey);

    // The key works over plain HTTP, as curl would use it.
    const first = await scrape(stack.gatewayUrl, oldKey);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ product_name: "Ridgeline Trail Shoe", price_usd: 129.99 });

    // The playground runs a scrape and shows the answer formatted.
    await page.getByRole("link", { name: "Playground", exact: true }).click();
    await page.getByLabel("Page URL").fill(`${site.origin}/product`);
    await page.getByLabel(/^Schema/).fill(JSON.stringify(SCHEMA));
    await page.getByLabel(/Task description/).fill("Prices in US dollars.");
    await page.getByRole("button", { name: "Scrape" }).click();
    await expect
      .poll(() => page.locator("#result-status").textContent(), { timeout: TEST_TIMEOUT_MS / 2 })
      .toBe("200 OK");
    expect(await page.locator("#result").textContent()).toBe(
      JSON.stringify({ product_name: "Ridgeline Trail Shoe", price_usd: 129.99 }, null, 2),
    );
    expect(
      llm.requests
        .at(-1)
        ?.messages.map((m) => m.content)
        .join("\n"),
    ).toContain("Prices in US dollars.");
    await shot("5-playground");

    // Refresh, with a confirmation step.
    await page.getByRole("link", { name: "Key and usage" }).click();
    await page.getByRole("link", { name: /Refresh key/ }).click();
    await shot("6-refresh-confirm");
    await page.getByRole("button", { name: "Yes, refresh my key" }).click();
    await page.waitForURL(`${stack.gatewayUrl}/dashboard?refreshed=1`);
    await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/previous key no longer works/);
    const newKey = await page.getByLabel(/Your API key/).inputValue();
    expect(newKey).not.toBe(oldKey);

    // The very next requests: old key 401 on both replicas, new key 200.
    for (const gatewayUrl of [stack.gatewayUrl, secondGatewayUrl]) {
      const refused = await scrape(gatewayUrl, oldKey);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ type: "https://winnow.dev/problems/unauthorized" });
    }
    expect((await scrape(stack.gatewayUrl, newKey)).status).toBe(200);

    // Usage: three scrapes with model tokens, on two keys, per key and day. It is recorded
    // just after each answer is sent, so it may take a moment to appear.
    const today = new Date().toISOString().slice(0, 10);
    const oldId = oldKey.slice(4, 15);
    const newId = newKey.slice(4, 15);
    const usageRows = async () => {
      await page.reload();
      return page
        .locator("tbody tr")
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
    };
    await expect
      .poll(async () => (await usageRows()).map((row) => row.slice(0, 3)).sort(), { timeout: TEST_TIMEOUT_MS / 4 })
      .toEqual(
        [
          [today, oldId, "2"],
          [today, newId, "1"],
        ].sort(),
      );
    // Every scrape went to the model: the path columns (cache, template, builtin, model) say so, then the tokens.
    for (const row of await usageRows()) {
      expect(row.slice(3, 7)).toEqual(["0", "0", "0", row[2]]);
      expect(Number(row[7])).toBeGreaterThan(0);
      expect(Number(row[8])).toBeGreaterThan(0);
    }
    await shot("7-usage");

    // Log out: the session is over for the server too, not just the cookie.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(`${stack.gatewayUrl}/dashboard/login`);
    await page.goto(`${stack.gatewayUrl}/dashboard`);
    expect(page.url()).toBe(`${stack.gatewayUrl}/dashboard/login`);

    // Wrong password: a generic message; the right one logs back in.
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("The email or password is incorrect.");
    await shot("8-log-in-failed");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(`${stack.gatewayUrl}/dashboard`);
    expect(await page.getByLabel(/Your API key/).inputValue()).toBe(newKey);
  });
});

describe("dashboard security", () => {
  /** A fresh visitor: the log-in page's CSRF cookie and token. */
  async function visit(): Promise<{ cookie: string; csrf: string; res: Response }> {
    const res = await fetch(`${stack.gatewayUrl}/dashboard/login`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("winnow_csrf="))!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await res.text())![1]!;
    return { cookie, csrf, res };
  }

  const post = (pathname: string, cookie: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${stack.gatewayUrl}${pathname}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: cookie.split(";")[0]!,
        // As a browser says where its form was: without it the post is refused.
        origin: stack.gatewayUrl,
        ...headers,
      },
      body: new URLSearchParams(form),
    });

  it("sends security headers and HttpOnly, SameSite cookies; pages are not cached", async () => {
    const { cookie, res } = await visit();
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'self'/);
    expect(res.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'|frame-ancestors 'self'/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");

    const email = `${randomUUID()}@example.com`;
    const { cookie: csrfCookie, csrf } = await visit();
    const signedUp = await post("/dashboard/signup", csrfCookie, {
      _csrf: csrf,
      email,
      password: "another long password",
    });
    expect(signedUp.status).toBe(303);
    const session = signedUp.headers.getSetCookie().find((c) => c.startsWith("winnow_session="))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).not.toMatch(/Secure/);

    // Behind a TLS-terminating proxy (TRUST_PROXY) the cookie is Secure; without trust, X-Forwarded-Proto is ignored.
    const forwarded = await fetch(`${stack.gatewayUrl}/dashboard/login`, { headers: { "x-forwarded-proto": "https" } });
    expect(forwarded.headers.getSetCookie().find((c) => c.startsWith("winnow_csrf="))).not.toMatch(/Secure/);
  });

  it("refuses a form without the CSRF token, with a wrong one, or from another origin", async () => {
    const { cookie, csrf } = await visit();
    const form = { email: `${randomUUID()}@example.com`, password: "a long enough password" };
    for (const [extra, headers] of [
      [{}, {}],
      [{ _csrf: "x".repeat(43) }, {}],
      [{ _csrf: csrf }, { origin: "https://evil.example" }],
    ] as const) {
      const res = await post("/dashboard/signup", cookie, { ...form, ...extra }, headers);
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/Forbidden/);
    }
  });

  it("does not reveal whether an email has an account", async () => {
    const email = `${randomUUID()}@example.com`;
    await auth.createAccount({ email, password: "the right password" });
    const { cookie, csrf } = await visit();
    const known = await post("/dashboard/login", cookie, { _csrf: csrf, email, password: "a wrong password" });
    const unknown = await post("/dashboard/login", cookie, {
      _csrf: csrf,
      email: `${randomUUID()}@example.com`,
      password: "a wrong password",
    });
    expect(known.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (text: string) => /role="alert">([^<]*)</.exec(text)?.[1];
    expect(message(await known.text())).toBe(message(await unknown.text()));
  });

  it("rate-limits failed log-ins per email from one address", async () => {
    const email = `${randomUUID()}@example.com`;
    const { cookie, csrf } = await visit();
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_ATTEMPTS + 1; i++) {
      const res = await post("/dashboard/login", cookie, { _csrf: csrf, email, password: "guess number one" });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await res.text()).toMatch(/Too many attempts/);
      }
    }
    expect(statuses).toEqual([...Array(LOGIN_ATTEMPTS).fill(401), 429]);
  });

  it("sends visitors without a live session to the log-in page", async () => {
    for (const pathname of ["/dashboard", "/dashboard/playground", "/dashboard/refresh"]) {
      const res = await fetch(`${stack.gatewayUrl}${pathname}`, {
        redirect: "manual",
        headers: { cookie: "winnow_session=forged" },
      });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/dashboard/login");
    }
  });
});

describe("refresh means dead at once", () => {
  type Outcome = { gateway: string; sentAt: number; doneAt: number; status: number; keyFromCache: boolean };

  /**
   * Floods both gateway replicas with an account's key (their key caches warm
   * up on it), breaks the second gateway's link to auth if asked, rotates the
   * key, restores the link, and returns every outcome with the rotation's
   * start and end. Stops once both replicas have answered several requests
   * sent after the rotation returned (outcomes, not a fixed time, so a slow
   * machine does not starve either side).
   */
  async function floodAcrossRotation(breakLink?: () => void) {
    const created = await auth.createAccount({ email: `${randomUUID()}@example.com`, password: "" });
    const oldKey = created.apiKey;
    const outcomes: Outcome[] = [];
    let stop = false;
    const worker = async (gatewayUrl: string, send: () => Promise<Response>) => {
      while (!stop) {
        const sentAt = performance.now();
        // A request stuck behind a broken link counts as failed (0), not as an answer.
        const { status, keyFromCache } = await send().then(
          async (res) => {
            await res.body?.cancel();
            return {
              status: res.status,
              keyFromCache: /auth;[^,]*desc="cached"/.test(res.headers.get("server-timing") ?? ""),
            };
          },
          () => ({ status: 0, keyFromCache: false }),
        );
        outcomes.push({ gateway: gatewayUrl, sentAt, doneAt: performance.now(), status, keyFromCache });
      }
    };
    const gateways = [stack.gatewayUrl, secondGatewayUrl];
    const timeout = () => AbortSignal.timeout(3_000);
    const workers = gateways.flatMap((gatewayUrl) => [
      ...Array.from({ length: 6 }, () =>
        worker(gatewayUrl, () =>
          fetch(`${gatewayUrl}/account`, { headers: { "x-api-key": oldKey }, signal: timeout() }),
        ),
      ),
      worker(gatewayUrl, () => scrape(gatewayUrl, oldKey, timeout())),
    ]);

    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    // Both replicas answer the key from their caches (a scrape's Server-Timing says so) before the rotation.
    await until(() =>
      gateways.every((g) => outcomes.some((o) => o.gateway === g && o.status === 200 && o.keyFromCache)),
    );
    breakLink?.();
    const rotateStarted = performance.now();
    const rotated = await auth.rotateKey({ accountId: created.account!.id });
    const rotatedAt = performance.now();
    if (breakLink) {
      // The link stays broken for a while after the rotation has returned: whatever the second
      // replica answers meanwhile, it must not be the old key's success from a stale cache.
      await new Promise((resolve) => setTimeout(resolve, 500));
      authLink.restore();
    }
    await until(() =>
      gateways.every(
        (g) => outcomes.filter((o) => o.gateway === g && o.sentAt > rotatedAt && o.status === 401).length >= 20,
      ),
    );
    stop = true;
    await Promise.all(workers);

    const before = outcomes.filter((o) => o.doneAt < rotateStarted);
    const after = outcomes.filter((o) => o.sentAt > rotatedAt);
    for (const gatewayUrl of gateways) {
      expect(before.filter((o) => o.gateway === gatewayUrl && o.status === 200).length).toBeGreaterThan(0);
    }
    // Before the rotation the old key was valid (a scrape may still fail otherwise on a loaded machine, never with
    // 401).
    expect(before.filter((o) => o.status === 401)).toEqual([]);
    expect(after.filter((o) => o.status === 200)).toEqual([]);
    for (const gatewayUrl of gateways) {
      expect((await fetch(`${gatewayUrl}/account`, { headers: { "x-api-key": rotated.apiKey } })).status).toBe(200);
      expect((await fetch(`${gatewayUrl}/account`, { headers: { "x-api-key": oldKey } })).status).toBe(401);
    }
    return after;
  }

  it("refuses the old key on both gateway replicas, caches warm, for every request sent after the rotation returned", async () => {
    const after = await floodAcrossRotation();
    // With both links up, nothing fails for another reason: every later answer is a 401.
    expect(after.map((o) => o.status).filter((status) => status !== 401)).toEqual([]);
  });

  it("also while the second gateway's link to auth is cut during the rotation and then restored", async () => {
    await floodAcrossRotation(() => authLink.cut());
  });

  it("also while that link silently stops carrying anything (half-open) during the rotation", async () => {
    await floodAcrossRotation(() => authLink.blackhole());
  });
});

describe("usage counted in batches", () => {
  it("writes every count on SIGTERM: scrapes answered just before a gateway stops are not lost", async () => {
    const created = await auth.createAccount({ email: `${randomUUID()}@example.com`, password: "" });
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () => scrape(secondGatewayUrl, created.apiKey).then((res) => res.status)),
    );
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // Checks of the key alone are not scrapes and are not counted.
    expect((await fetch(`${secondGatewayUrl}/account`, { headers: { "x-api-key": created.apiKey } })).status).toBe(200);
    const usage = () => auth.getUsage({ sessionToken: "", accountId: created.account!.id, days: 1 });
    expect((await usage()).days).toEqual([]);

    await secondGateway.stop();
    expect(secondGateway.child.exitCode).toBe(0);
    const [today] = (await usage()).days;
    expect(today).toMatchObject({
      keyId: created.keyId,
      scrapes: 5,
      byPath: { cache: 0, template: 0, builtin: 0, model: 5 },
    });
    expect(today!.tokensIn).toBeGreaterThan(0);
    expect(today!.tokensOut).toBeGreaterThan(0);
  });
});
