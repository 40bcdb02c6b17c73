/**
 * robots.txt for the pages a whole listing chooses to read itself (its next pages, its records' own pages; the page
 * the caller named is a scrape like any other). Each site's file is read once per listing, through the renderer like
 * any page (so the egress guard applies), and read by robots-parser for Winnow's user agent: what it allows, and the
 * Crawl-delay it asks (crawl-pace.ts). As RFC 9309 says: a site that cannot be reached (5xx, unreachable, timed out)
 * allows nothing; a file that is not there (4xx), or not text the renderer reads, allows everything.
 */
import { WinnowError } from "@winnow/platform";
import robotsParserModule from "robots-parser";

// The package is CommonJS whose module.exports is the function; its types declare it an ES default export, which
// NodeNext then types as the module object. At run time the default import is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** The product token of the renderer's User-Agent ("Mozilla/5.0 (compatible; Winnow/0.1; ...)"). */
const USER_AGENT = "Winnow";

type Rules = ReturnType<typeof robotsParser>;

export class RobotsRules {
  private readonly bySite = new Map<string, Promise<Rules | "allow-all" | "disallow-all">>();

  /** fetchText: the text at a URL, as the renderer fetched it; rejects with the renderer's WinnowError. */
  constructor(private readonly fetchText: (url: string) => Promise<string>) {}

  async allows(url: string): Promise<boolean> {
    const read = await this.rulesOf(url);
    if (read === "allow-all" || read === "disallow-all") return read === "allow-all";
    return read.isAllowed(url, USER_AGENT) ?? true;
  }

  /** The site's Crawl-delay for Winnow's user agent, in ms; undefined when its robots.txt states none. */
  async crawlDelayMs(url: string): Promise<number | undefined> {
    const read = await this.rulesOf(url);
    const seconds = typeof read === "string" ? undefined : read.getCrawlDelay(USER_AGENT);
    return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  }

  private rulesOf(url: string): Promise<Rules | "allow-all" | "disallow-all"> {
    const robotsUrl = new URL("/robots.txt", url).href;
    let rules = this.bySite.get(robotsUrl);
    if (!rules) {
      rules = this.read(robotsUrl);
      this.bySite.set(robotsUrl, rules);
    }
    return rules;
  }

  private async read(robotsUrl: string): Promise<Rules | "allow-all" | "disallow-all"> {
    try {
      return robotsParser(robotsUrl, await this.fetchText(robotsUrl));
    } catch (error) {
      if (!(error instanceof WinnowError)) throw error;
      const unreachable =
        error.type === "target-unreachable" ||
        error.type === "target-timeout" ||
        (error.type === "target-http-error" && error.targetStatus >= 500);
      return unreachable ? "disallow-all" : "allow-all";
    }
  }
}
