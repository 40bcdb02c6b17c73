import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import type { Lookup } from "./dns-lookup.js";
import { EgressGuard, isPublicAddress, memoizedRefusal, parseEgressAllowlist } from "./egress-guard.js";
import { WinnowError } from "./problems.js";

/** A resolver with fixed answers, so DNS results (including hostile ones) are under test control. */
function fixedLookup(answers: Record<string, string[]>): Lookup {
  return async (hostname) => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses;
  };
}

async function verdict(guard: EgressGuard, url: string): Promise<string> {
  return (await guard.refusal(new URL(url)))?.type ?? "allowed";
}

describe("isPublicAddress", () => {
  it.each([
    "0.0.0.0",
    "127.0.0.1",
    "127.255.255.254",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "169.254.169.254",
    "224.0.0.1",
    "255.255.255.255",
    "240.0.0.1",
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "198.18.0.1",
    "::",
    "::1",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "2001:db8::1",
    "100::1",
    "fec0::1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "::ffff:0:10.0.0.1",
    "::127.0.0.1",
    "64:ff9b::10.0.0.1",
    "64:ff9b:1::a00:1",
    "2002:7f00:1::",
    "2002:a9fe:a9fe::1",
    "2001:0:4136:e378:8000:63bf:80ff:fffe",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(ipaddr.parse(address))).toBe(false);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
  ])("allows %s", (address) => {
    expect(isPublicAddress(ipaddr.parse(address))).toBe(true);
  });
});

describe("EgressGuard", () => {
  const guard = new EgressGuard(
    undefined,
    fixedLookup({
      "public.example": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
      "mixed.example": ["93.184.216.34", "10.0.0.5"],
      "rebind.example": ["127.0.0.1"],
      "mapped.example": ["::ffff:192.168.0.1"],
      localhost: ["127.0.0.1", "::1"],
    }),
  );

  it.each([
    ["ftp://93.184.216.34/file", "url-not-allowed"],
    ["file:///etc/passwd", "url-not-allowed"],
    ["data:text/html,hi", "url-not-allowed"],
    ["javascript:alert(1)", "url-not-allowed"],
    ["ws://public.example/", "url-not-allowed"],
    ["http://user:secret@public.example/", "url-not-allowed"],
    ["http://user@public.example/", "url-not-allowed"],
  ])("refuses %s by scheme or credentials", async (url, expected) => {
    expect(await verdict(guard, url)).toBe(expected);
  });

  it.each([
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://017700000001/",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://0.0.0.0:8080/",
    "http://10.0.0.1/",
    "http://192.168.0.1./",
    "http://localhost/",
    "http://app.localhost/",
    "http://localhost./",
    "http://mixed.example/",
    "http://rebind.example/",
    "http://mapped.example/",
  ])("refuses %s as a non-public address", async (url) => {
    expect(await verdict(guard, url)).toBe("url-not-allowed");
  });

  it("allows a name whose every address is public, and public IP literals", async () => {
    expect(await verdict(guard, "https://public.example/page?q=1")).toBe("allowed");
    expect(await verdict(guard, "http://8.8.8.8/")).toBe("allowed");
    expect(await verdict(guard, "http://[2606:4700:4700::1111]/")).toBe("allowed");
  });

  it("answers target-unreachable when the name does not resolve", async () => {
    expect(await verdict(guard, "http://nowhere.example/")).toBe("target-unreachable");
  });

  it("names the host but never the resolved address in the message", async () => {
    const error = await guard.refusal(new URL("http://mixed.example/"));
    expect(error?.message).toContain("mixed.example");
    expect(error?.message).not.toContain("10.0.0.5");
  });

  it.each([
    ["http://127.0.0.1:8080/", "WINNOW_EGRESS_ALLOW=127.0.0.1:8080"],
    ["http://[::1]/", "WINNOW_EGRESS_ALLOW=[::1]:80"],
    ["https://rebind.example/", "WINNOW_EGRESS_ALLOW=rebind.example:443"],
    ["http://app.localhost:3000/", "WINNOW_EGRESS_ALLOW=app.localhost:3000"],
  ])("says how an operator allows %s: %s", async (url, allowance) => {
    const error = await guard.refusal(new URL(url));
    expect(error?.message).toContain(allowance);
  });

  it("pins the checked address, asking the resolver once", async () => {
    const asked: string[] = [];
    const pinning = new EgressGuard(undefined, async (hostname) => {
      asked.push(hostname);
      return asked.length === 1 ? ["93.184.216.34"] : ["10.0.0.1"];
    });
    expect(await pinning.pin("Public.Example", 443)).toEqual({ address: "93.184.216.34", family: 4 });
    expect(asked).toEqual(["public.example"]);
  });

  it("asks the resolver once for a host many requests check at the same time, and again afterwards", async () => {
    const asked: string[] = [];
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const shared = new EgressGuard(undefined, async (hostname) => {
      asked.push(hostname);
      await answered;
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    });
    const verdicts = Array.from({ length: 12 }, (_, i) =>
      shared.refusal(new URL(`https://ads.tracker.example/${i}.js`)),
    );
    answer();
    for (const verdict of await Promise.all(verdicts)) expect(verdict?.type).toBe("target-unreachable");
    expect(asked).toEqual(["ads.tracker.example"]);
    await shared.refusal(new URL("https://ads.tracker.example/later.js"));
    expect(asked).toHaveLength(2);
  });
});

describe("EgressGuard with an allowlist", () => {
  const lookup = fixedLookup({ localhost: ["127.0.0.1", "::1"], "fixtures.internal": ["10.9.8.7"] });

  it("lets CIDR ranges through, in any address spelling", async () => {
    const guard = new EgressGuard(parseEgressAllowlist("127.0.0.0/8, ::1/128"), lookup);
    expect(await verdict(guard, "http://127.0.0.1:8081/")).toBe("allowed");
    expect(await verdict(guard, "http://0x7f.0.0.2/")).toBe("allowed");
    expect(await verdict(guard, "http://[::ffff:127.0.0.1]/")).toBe("allowed");
    expect(await verdict(guard, "http://[::1]:9/")).toBe("allowed");
    expect(await verdict(guard, "http://10.0.0.1/")).toBe("url-not-allowed");
  });

  it("requires every resolved address to be allowed", async () => {
    const guard = new EgressGuard(parseEgressAllowlist("127.0.0.1/32"), lookup);
    expect(await verdict(guard, "http://127.0.0.1/")).toBe("allowed");
    expect(await verdict(guard, "http://127.0.0.2/")).toBe("url-not-allowed");
    expect(await verdict(guard, "http://localhost/")).toBe("url-not-allowed");
  });

  it("matches host:port pairs on the port, with default ports from the scheme", async () => {
    const guard = new EgressGuard(parseEgressAllowlist("127.0.0.1:8081,[::1]:443,fixtures.internal:80"), lookup);
    expect(await verdict(guard, "http://127.0.0.1:8081/x")).toBe("allowed");
    expect(await verdict(guard, "http://2130706433:8081/")).toBe("allowed");
    expect(await verdict(guard, "http://127.0.0.1:8082/")).toBe("url-not-allowed");
    expect(await verdict(guard, "https://[::1]/")).toBe("allowed");
    expect(await verdict(guard, "http://[::1]/")).toBe("url-not-allowed");
    expect(await verdict(guard, "http://fixtures.internal/")).toBe("allowed");
    expect(await verdict(guard, "https://fixtures.internal/")).toBe("url-not-allowed");
  });

  it("still refuses other schemes and credentials for allowlisted hosts", async () => {
    const guard = new EgressGuard(parseEgressAllowlist("127.0.0.0/8"), lookup);
    expect(await verdict(guard, "ftp://127.0.0.1/")).toBe("url-not-allowed");
    expect(await verdict(guard, "http://a:b@127.0.0.1/")).toBe("url-not-allowed");
  });
});

describe("parseEgressAllowlist", () => {
  it("is empty when unset or blank", () => {
    expect(parseEgressAllowlist(undefined).cidrs).toEqual([]);
    expect(parseEgressAllowlist(" , ").hostPorts.size).toBe(0);
  });

  it("reads CIDRs, bare IPs and host:port pairs", () => {
    const allowlist = parseEgressAllowlist("10.0.0.0/8, 192.168.1.5 ,fd00::/8, Example.COM:8443, [::1]:80");
    expect(allowlist.cidrs.map(([address, bits]) => `${address.toString()}/${bits}`)).toEqual([
      "10.0.0.0/8",
      "192.168.1.5/32",
      "fd00::/8",
    ]);
    expect([...allowlist.hostPorts]).toEqual(["example.com|8443", "::1|80"]);
  });

  it.each([
    ["10.0.0.0/33", /"10\.0\.0\.0\/33"/],
    ["not-a-cidr/8", /"not-a-cidr\/8"/],
    ["localhost", /"localhost"/],
    ["127.0.0.1:0", /"127\.0\.0\.1:0"/],
    ["127.0.0.1:99999", /"127\.0\.0\.1:99999"/],
    ["user@host:80", /"user@host:80"/],
    ["::1:80:x", /"::1:80:x"/],
    ["bad host:80", /"bad host:80"/],
  ])("names the bad entry %s", (value, message) => {
    expect(() => parseEgressAllowlist(`127.0.0.0/8,${value}`)).toThrow(message);
  });
});

describe("memoizedRefusal", () => {
  it("resolves each host once per scope and refuses unparsable URLs", async () => {
    const asked: string[] = [];
    const lookup: Lookup = async (hostname) => {
      asked.push(hostname);
      return ["93.184.216.34"];
    };
    const refusal = memoizedRefusal(new EgressGuard(undefined, lookup));
    expect(await refusal("https://public.example/a.js")).toBeUndefined();
    expect(await refusal("https://public.example/b.css")).toBeUndefined();
    expect(await refusal("http://public.example/")).toBeUndefined();
    expect(asked).toEqual(["public.example", "public.example"]);
    expect(await refusal("http://u:p@public.example/")).toBeInstanceOf(WinnowError);
    expect((await refusal("http://[::1"))?.type).toBe("url-not-allowed");
  });
});
