import { Winnow, WinnowBatch } from "@winnow/client";
import { describe, expect, it } from "vitest";

/** A fetch that counts the calls: a refused request must never be sent. */
function counting() {
  const calls: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    calls.push(String(input));
    return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { calls, fetch };
}

describe("a request with a key the client does not know", () => {
  it("is refused before it is sent: a top-level evidence, a misspelt option, a batch's stray key", async () => {
    const { calls, fetch } = counting();
    const winnow = new Winnow({ apiKey: "wnw_test", baseUrl: "http://127.0.0.1:1", fetch });
    const plain = (value: unknown) => value as Parameters<typeof winnow.scrape>[0];
    await expect(
      winnow.scrape(plain({ url: "https://shop.example/", schema: { a: "string" }, evidence: true })),
    ).rejects.toThrow(/scrape: unknown key "evidence"; known: url, schema, taskDescription, options/);
    await expect(
      winnow.scrape(plain({ url: "https://shop.example/", schema: { a: "string" }, options: { wait_for: "#a" } })),
    ).rejects.toThrow(/scrape options: unknown key "wait_for"; known: render, timeoutMs, waitFor/);
    const batch = new WinnowBatch({ apiKey: "wnw_test", baseUrl: "http://127.0.0.1:1", fetch });
    await expect(
      batch.submit({ urls: [], schema: {}, task_description: "x" } as unknown as Parameters<typeof batch.submit>[0]),
    ).rejects.toThrow(/submit: unknown key "task_description"/);
    expect(calls).toEqual([]);
  });

  it("sends a request that uses only known keys", async () => {
    const { calls, fetch } = counting();
    const winnow = new Winnow({ apiKey: "wnw_test", baseUrl: "http://127.0.0.1:1", fetch });
    await winnow.scrape({ url: "https://shop.example/", schema: { a: "string" }, options: { evidence: true } });
    expect(calls).toEqual(["http://127.0.0.1:1/scrape"]);
  });
});
