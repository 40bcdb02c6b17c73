import { EgressGuard, parseEgressAllowlist } from "@winnow/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeServer, fixedLookup, listen } from "../renderer.test-helpers.js";
import { StaticFetcher } from "./static-fetch.js";

/**
 * Kept connections on the static path: real servers on two loopback
 * addresses under one port, a name whose DNS answer changes between fetches.
 */
let first: Awaited<ReturnType<typeof listen>>;
let second: Awaited<ReturnType<typeof listen>>;
const connections: string[] = [];
let answer = "127.0.0.1";
let fetcher: StaticFetcher;

beforeAll(async () => {
  const page = (who: string) => `<html><body><p>served by ${who}</p></body></html>`;
  first = await listen((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(page("first")));
  second = await listen(
    (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(page("second")),
    "127.0.0.3",
    first.port,
  );
  first.on("connection", () => connections.push("first"));
  second.on("connection", () => connections.push("second"));
  const guard = new EgressGuard(parseEgressAllowlist("127.0.0.0/8"), fixedLookup({ "shop.test": () => [answer] }));
  fetcher = new StaticFetcher({ guard, maxBytes: 1 << 20, maxRedirects: 3 });
});

afterAll(async () => {
  await fetcher?.close();
  await closeServer(first);
  await closeServer(second);
});

const fetchPage = async () =>
  (await fetcher.fetch(new URL(`http://shop.test:${first.port}/item`), new AbortController().signal)).html;

describe("StaticFetcher", () => {
  it("fetches a site again over the connection it kept", async () => {
    // A connection is free again only once undici has seen its response end, which can be just after the next fetch
    // starts.
    for (let i = 0; i < 6; i++) expect(await fetchPage()).toContain("served by first");
    expect(connections.length).toBeLessThanOrEqual(2);
  });

  it("never reuses a connection once the name points at another address: it dials the address checked this time", async () => {
    const before = connections.length;
    answer = "127.0.0.3";
    expect(await fetchPage()).toContain("served by second");
    expect(connections.slice(before)).toEqual(["second"]);
    answer = "127.0.0.1";
    expect(await fetchPage()).toContain("served by first");
  });
});
