/**
 * The playground page over real HTTP with a real auth service: its result table has a Status column, and the page
 * lists each status the gateway sends with its one-line meaning (the script shows a value's beside it) and a style.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIELD_STATUSES } from "../docs/openapi.js";
import { dashboardVisit, postForm, startTestGateway, type TestGateway } from "../gateway.test-helpers.js";
import { escapeHtml } from "../http/escape-html.js";

let gateway: TestGateway;
let page: string;
beforeAll(async () => {
  gateway = await startTestGateway({});
  const { cookie, csrf } = await dashboardVisit(gateway.url, "/dashboard/signup");
  const email = `${randomUUID()}@example.com`;
  const signUp = await postForm(gateway.url, "/dashboard/signup", cookie, {
    _csrf: csrf,
    email,
    password: "marble kettle orbit",
  });
  const session = signUp.headers.getSetCookie().find((c) => c.startsWith("winnow_session="))!;
  const res = await fetch(`${gateway.url}/dashboard/playground`, { headers: { cookie: session.split(";")[0]! } });
  expect(res.status).toBe(200);
  page = await res.text();
});
afterAll(() => gateway?.close());

describe("the playground page", () => {
  it("heads the result table with each value's status before its source and confidence", () => {
    const headings = [...page.matchAll(/<th scope="col">([^<]+)<\/th>/g)].map(([, heading]) => heading);
    expect(headings).toEqual(["Value", "Status", "Source", "Page text", "Confidence"]);
  });

  it("lists every status with its one-line meaning, in words", () => {
    const listed = [...page.matchAll(/<dd data-status="([^"]+)">([^<]*)<\/dd>/g)].map(([, status, meaning]) => ({
      status,
      meaning,
    }));
    expect(listed).toEqual(FIELD_STATUSES.map(({ status, summary }) => ({ status, meaning: escapeHtml(summary) })));
    for (const { status } of FIELD_STATUSES)
      expect(page).toContain(`<span class="status status-${status}">${status}</span>`);
  });

  it("styles every status the gateway sends", async () => {
    const css = await readFile(new URL("../../assets/dashboard.css", import.meta.url), "utf8");
    for (const { status } of FIELD_STATUSES) expect(css, status).toMatch(new RegExp(`\\.status-${status}\\b`));
  });
});
