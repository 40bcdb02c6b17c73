/**
 * The dashboard's CSRF protection over real HTTP with a real auth service:
 * tokens bound to their session, the source of every POST, and __Host-
 * cookies over TLS (behind a proxy hop that says so).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardVisit, postForm, startTestGateway, type TestGateway } from "../gateway.test-helpers.js";

const PASSWORD = "a long enough password";

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({ trustProxy: 1 });
});
afterAll(() => gateway?.close());

/** Signs up a new account; its session cookie (name=value). */
async function signUp(): Promise<string> {
  const email = `${randomUUID()}@example.com`;
  const { cookie, csrf } = await dashboardVisit(gateway.url, "/dashboard/signup");
  const res = await postForm(gateway.url, "/dashboard/signup", cookie, { _csrf: csrf, email, password: PASSWORD });
  expect(res.status).toBe(303);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith("winnow_session="))!
    .split(";")[0]!;
}

/** The token of the signed-in key page (its refresh and log-out forms). */
const keyPageToken = async (session: string) => (await dashboardVisit(gateway.url, "/dashboard", session)).csrf;

const keyId = async (session: string) =>
  (await gateway.auth.getAccount({ sessionToken: session.split("=")[1]! })).keyId;

describe("CSRF tokens are bound to the session", () => {
  it("refuses a planted CSRF cookie with its matching token, or another session's token", async () => {
    const victim = await signUp();
    const attacker = await signUp();
    const before = await keyId(victim);
    // What an attacker can get for himself: an anonymous cookie and its token, and his own session's token.
    const anonymous = await dashboardVisit(gateway.url);
    const attackersToken = await keyPageToken(attacker);
    for (const [cookie, token] of [
      [`${victim}; ${anonymous.cookie}`, anonymous.csrf],
      [`${victim}; ${anonymous.cookie}`, attackersToken],
      [victim, attackersToken],
    ] as const) {
      const res = await postForm(gateway.url, "/dashboard/refresh", cookie, { _csrf: token });
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/Forbidden/);
    }
    expect(await keyId(victim)).toBe(before);

    // The victim's own page works.
    const own = await postForm(gateway.url, "/dashboard/refresh", victim, {
      _csrf: await keyPageToken(victim),
    });
    expect(own.status).toBe(303);
    expect(own.headers.get("location")).toBe("/dashboard?refreshed=1");
    expect(await keyId(victim)).not.toBe(before);
  });

  it("refuses a POST that says neither Origin nor Referer, or a foreign one; a same-origin Referer will do", async () => {
    const session = await signUp();
    const form = { _csrf: await keyPageToken(session) };
    for (const headers of [{}, { referer: "https://evil.example/dashboard" }, { origin: "null" }]) {
      const res = await postForm(gateway.url, "/dashboard/refresh", session, form, headers);
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/not sent from this site/);
    }
    const res = await postForm(gateway.url, "/dashboard/refresh", session, form, {
      referer: `${gateway.url}/dashboard/refresh`,
    });
    expect(res.status).toBe(303);
  });
});

describe("over TLS", () => {
  const tls = { "x-forwarded-proto": "https" };

  it("sets __Host- cookies (Secure, Path=/) and ignores cookies without the prefix", async () => {
    const page = await fetch(`${gateway.url}/dashboard/login`, { headers: tls });
    const csrfCookie = page.headers.getSetCookie().find((c) => c.startsWith("__Host-winnow_csrf="))!;
    expect(csrfCookie).toMatch(/; Path=\/;/);
    expect(csrfCookie).toMatch(/; Secure/);
    expect(csrfCookie).not.toMatch(/Domain=/);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = csrfCookie.split(";")[0]!;

    const email = `${randomUUID()}@example.com`;
    await gateway.auth.createAccount({ email, password: PASSWORD });
    const origin = `https://${new URL(gateway.url).host}`;
    const loggedIn = await postForm(
      gateway.url,
      "/dashboard/login",
      cookie,
      { _csrf: csrf, email, password: PASSWORD },
      {
        ...tls,
        origin,
      },
    );
    expect(loggedIn.status).toBe(303);
    const session = loggedIn.headers.getSetCookie().find((c) => c.startsWith("__Host-winnow_session="))!;
    expect(session).toMatch(/; Path=\/;/);
    expect(session).toMatch(/; Secure/);

    // The same anonymous value planted without the prefix (as a plain-http page or a subdomain could) is not read.
    const planted = cookie.replace("__Host-", "");
    const refused = await postForm(
      gateway.url,
      "/dashboard/login",
      planted,
      { _csrf: csrf, email, password: PASSWORD },
      {
        ...tls,
        origin,
      },
    );
    expect(refused.status).toBe(403);
  });
});
