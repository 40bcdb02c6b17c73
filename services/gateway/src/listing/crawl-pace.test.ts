import { WinnowError } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { CrawlPace } from "./crawl-pace.js";
import { RobotsRules } from "./robots-rules.js";

const none = async () => undefined;

describe("CrawlPace", () => {
  it("spaces the starts of one host's pages by the delay, and other hosts' not at all", async () => {
    const pace = new CrawlPace(150, none, {});
    pace.started("http://a.test/1");
    const firstStart = Date.now();
    const starts = await Promise.all(
      ["http://a.test/2", "http://a.test/3", "http://b.test/1"].map(async (url) => {
        await pace.wait(url);
        return Date.now();
      }),
    );
    // A timer never fires early by more than the clock's millisecond.
    expect(starts[0]! - firstStart).toBeGreaterThanOrEqual(149);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(149);
    expect(starts[2]!).toBeLessThan(starts[0]!);
  });

  it("waits as long as the site asks when that is longer than the operator's delay", async () => {
    const pace = new CrawlPace(0, async () => 150, {});
    pace.started("http://a.test/1");
    const before = Date.now();
    await pace.wait("http://a.test/2");
    expect(Date.now() - before).toBeGreaterThanOrEqual(149);
  });

  it("never waits past the request's deadline", async () => {
    const pace = new CrawlPace(600_000, none, { deadline: new Date(Date.now() - 1) });
    pace.started("http://a.test/1");
    await pace.wait("http://a.test/2");
  });
});

describe("RobotsRules.crawlDelayMs", () => {
  const rules = (text: string | WinnowError) =>
    new RobotsRules(async () => {
      if (text instanceof WinnowError) throw text;
      return text;
    });

  it("reads the site's Crawl-delay for Winnow, in ms", async () => {
    expect(await rules("User-agent: *\nCrawl-delay: 2\n").crawlDelayMs("http://a.test/x")).toBe(2000);
    expect(await rules("User-agent: Winnow\nCrawl-delay: 0.5\n").crawlDelayMs("http://a.test/x")).toBe(500);
  });

  it("says none where robots.txt states none or cannot be read", async () => {
    expect(await rules("User-agent: *\nDisallow: /private/\n").crawlDelayMs("http://a.test/x")).toBeUndefined();
    expect(await rules("User-agent: *\nCrawl-delay: soon\n").crawlDelayMs("http://a.test/x")).toBeUndefined();
    const missing = new WinnowError("target-http-error", "404", { targetStatus: 404 });
    expect(await rules(missing).crawlDelayMs("http://a.test/x")).toBeUndefined();
  });
});
