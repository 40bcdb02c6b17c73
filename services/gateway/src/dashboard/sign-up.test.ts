/**
 * Sign-up over real HTTP with a real auth service: a password that is easy to
 * guess is refused, and the page says why.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardVisit, postForm, startTestGateway, type TestGateway } from "../gateway.test-helpers.js";

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({});
});
afterAll(() => gateway?.close());

const signUp = async (password: string) => {
  const { cookie, csrf } = await dashboardVisit(gateway.url, "/dashboard/signup");
  const email = `${randomUUID()}@example.com`;
  return postForm(gateway.url, "/dashboard/signup", cookie, { _csrf: csrf, email, password });
};

describe("sign-up", () => {
  it.each([
    [" ".repeat(10), /Repeated characters like &#34;aaa&#34; are easy to guess/],
    ["password123", /This is a commonly used password/],
  ])("refuses %j, saying why", async (password, why) => {
    const res = await signUp(password);
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toMatch(/Password is too easy to guess/);
    expect(page).toMatch(why);
    expect(page).toMatch(/Add more words that are less common/);
  });

  it("accepts a few uncommon words", async () => {
    expect((await signUp("marble kettle orbit")).status).toBe(303);
  });
});
