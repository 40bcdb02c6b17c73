import dgram from "node:dgram";
import type { AddressInfo } from "node:net";
import dnsPacket from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnsLookup } from "./dns-lookup.js";

const RECORDS: Record<string, { A?: string; AAAA?: string }> = {
  "shop.test": { A: "203.0.113.7", AAAA: "2001:db8::7" },
  "v4only.test": { A: "203.0.113.8" },
};

/**
 * A real DNS server on loopback that loses the first query of each name and type, as a resolver under a burst of
 * queries does, and answers the ones asked again; "silent.test" it never answers.
 */
let server: dgram.Socket;
let address: string;
const asked = new Map<string, number>();

beforeAll(async () => {
  server = dgram.createSocket("udp4");
  server.on("message", (message, from) => {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (!question || question.name === "silent.test") return;
    const key = `${question.name} ${question.type}`;
    const times = (asked.get(key) ?? 0) + 1;
    asked.set(key, times);
    if (times === 1) return; // lost
    const data = RECORDS[question.name]?.[question.type as "A" | "AAAA"];
    const reply = dnsPacket.encode({
      id: query.id,
      type: "response",
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (RECORDS[question.name] ? 0 : 3), // NXDOMAIN
      questions: [question],
      answers: data ? [{ type: question.type as "A", name: question.name, ttl: 60, data }] : [],
    });
    server.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => server.bind(0, "127.0.0.1", resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => server?.close());

describe("dnsLookup", () => {
  it("asks again when an answer is lost, and answers both families", async () => {
    const lookup = dnsLookup([address]);
    expect(await lookup("shop.test")).toEqual(["203.0.113.7", "2001:db8::7"]);
    expect(asked.get("shop.test A")).toBe(2);
  });

  it("answers the one family a name has", async () => {
    expect(await dnsLookup([address])("v4only.test")).toEqual(["203.0.113.8"]);
  });

  it("fails for a name that does not exist", async () => {
    await expect(dnsLookup([address])("nowhere.test")).rejects.toMatchObject({ code: "ENOTFOUND" });
  });

  it("gives up on a server that never answers instead of waiting on it", async () => {
    await expect(dnsLookup([address])("silent.test")).rejects.toMatchObject({ code: "ETIMEOUT" });
  });
});
