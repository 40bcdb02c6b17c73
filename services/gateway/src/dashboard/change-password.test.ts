/**
 * Changing the dashboard password over real HTTP with a real auth service: the
 * current password is asked for, a weak new one is refused saying why, and a
 * change logs out every other browser while this one stays in.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardVisit, postForm, startTestGateway, type TestGateway } from "../gateway.test-helpers.js";

const PASSWORD = "marble kettle orbit";
const NEW_PASSWORD = "lantern quarry velvet";

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({});
});
afterAll(() => gateway?.close());

/** Logs in as a browser would; the cookies of its session (and its CSRF cookie). */
async function logIn(email: string, password: string): Promise<{ status: number; cookie: string }> {
  const { cookie, csrf } = await dashboardVisit(gateway.url, "/dashboard/login");
  const res = await postForm(gateway.url, "/dashboard/login", cookie, { _csrf: csrf, email, password });
  const session = res.headers.getSetCookie().find((c) => c.startsWith("winnow_session="));
  return { status: res.status, cookie: session ? `${cookie}; ${session.split(";")[0]}` : cookie };
}

async function changePassword(cookie: string, current: string, next: string): Promise<Response> {
  const { csrf } = await dashboardVisit(gateway.url, "/dashboard/password", cookie);
  return postForm(gateway.url, "/dashboard/password", cookie, {
    _csrf: csrf,
    current_password: current,
    new_password: next,
  });
}

const signedIn = async (cookie: string) =>
  (await fetch(`${gateway.url}/dashboard`, { headers: { cookie }, redirect: "manual" })).status === 200;

describe("changing the dashboard password", () => {
  it("needs the current password, refuses a weak new one saying why, and logs out the account's other browsers", async () => {
    const email = `${randomUUID()}@example.com`;
    const { cookie: signUpCookie, csrf } = await dashboardVisit(gateway.url, "/dashboard/signup");
    expect(
      (await postForm(gateway.url, "/dashboard/signup", signUpCookie, { _csrf: csrf, email, password: PASSWORD }))
        .status,
    ).toBe(303);
    const here = await logIn(email, PASSWORD);
    const elsewhere = await logIn(email, PASSWORD);
    expect(await signedIn(here.cookie)).toBe(true);

    const wrong = await changePassword(here.cookie, "not my password", NEW_PASSWORD);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toMatch(/The current password is incorrect/);
    const weak = await changePassword(here.cookie, PASSWORD, "password123");
    expect(weak.status).toBe(400);
    expect(await weak.text()).toMatch(/too easy to guess/);
    expect(await signedIn(elsewhere.cookie)).toBe(true);

    const changed = await changePassword(here.cookie, PASSWORD, NEW_PASSWORD);
    expect(changed.status).toBe(303);
    expect(changed.headers.get("location")).toBe("/dashboard?password=changed");
    expect(await signedIn(here.cookie)).toBe(true);
    expect(await signedIn(elsewhere.cookie)).toBe(false);
    expect((await logIn(email, PASSWORD)).status).toBe(401);
    expect((await logIn(email, NEW_PASSWORD)).status).toBe(303);
  });

  it("sends a visitor without a session to log in", async () => {
    const res = await fetch(`${gateway.url}/dashboard/password`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/\/dashboard\/login/);
  });
});
