/**
 * A whole listing in one scrape (options.pages, options.details): the first page, then each next page the last one
 * links to (the extractor names it: next_page_url), each rendered and extracted like any scrape, through the
 * renderer's egress guard. It stops at the page limit, a page read before, a page that adds no new record, or a
 * next link that leaves the site or a page robots.txt disallows; then, with details, each record's own page fills
 * what the listing left null.
 * Whatever cut the list short (the limit, the deadline, a failed page, a link off the site) is a `list-incomplete`
 * warning: a listing is never shorter than it says.
 */
import { parseSchema } from "@winnow/platform";
import type { Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { RenderMode } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { type ScrapeContext, type ScrapeDependencies, type ScrapeOutcome, scrapePage } from "../scrape/scrape-page.js";
import type { ScrapeRequest } from "../scrape/scrape-request.js";
import { CrawlPace } from "./crawl-pace.js";
import { fillDetails } from "./detail-fill.js";
import { listFields } from "./list-fields.js";
import { ListingAnswer } from "./listing-answer.js";
import { type PagesRead, readByModel } from "./pages-read.js";
import { pastDeadline } from "./past-deadline.js";
import { pageAddress } from "./record-merge.js";
import { RobotsRules } from "./robots-rules.js";
import { sameSite } from "./same-site.js";

export interface ListingOutcome extends ScrapeOutcome {
  pages: PagesRead;
}

/**
 * The operator's defaults: MAX_LISTING_PAGES, LISTING_DETAIL_CONCURRENCY (two at once per host, as polite crawlers do)
 * and LISTING_CRAWL_DELAY_MS (no pause of Winnow's own; a site's robots.txt may ask one).
 */
export const LISTING_DEFAULTS = { maxPages: 50, detailConcurrency: 2, honourRobots: true, crawlDelayMs: 0 };

/** What a listing has read so far: its pages (listing and records' own) and its records. */
export type ListingProgress = (read: { pages_read: number; records: number }) => void;

export interface ListingSettings {
  /** Records' own pages read at once per host. */
  detailConcurrency: number;
  /** The least pause between two pages of one host the listing reads (crawl-pace.ts). */
  crawlDelayMs: number;
  /** Read no page robots.txt disallows (LISTING_IGNORE_ROBOTS turns it off, for the operator's own sites). */
  honourRobots: boolean;
}

export async function readListing(
  deps: ScrapeDependencies,
  request: ScrapeRequest,
  context: ScrapeContext,
  settings: ListingSettings,
  progress: ListingProgress = () => {},
): Promise<ListingOutcome> {
  const lists = listFields(parseSchema(JSON.parse(request.schemaJson)));
  const first = await scrapePage(deps, request, context);
  const answer = new ListingAnswer(lists, first.result);
  const pages: PagesRead = { listing: 1, details: 0, failed: 0, model: readByModel(first.result) };
  const read = new Set([request.url, first.page.finalUrl].map((url) => pageAddress(url, url)));
  answer.addPage(first.page.finalUrl, first.result);
  const readSoFar = () => progress({ pages_read: pages.listing + pages.details, records: answer.records().length });
  readSoFar();

  const robots = settings.honourRobots ? new RobotsRules((url) => fetchText(deps, context, url)) : undefined;
  const pace = new CrawlPace(settings.crawlDelayMs, async (url) => robots?.crawlDelayMs(url), context.hop);
  pace.started(first.page.finalUrl);
  let last = first;
  const cut = (message: string): Warning => ({ code: "list-incomplete", message, path: "" });
  for (;;) {
    const next = last.result.nextPageUrl;
    const address = next ? pageAddress(next, last.page.finalUrl) : undefined;
    if (!address || read.has(address)) break;
    if (!sameSite(address, first.page.finalUrl)) {
      answer.state({ warnings: [cut(`the next page's link leaves the site and was not followed: ${address}`)] });
      break;
    }
    if (pages.listing >= request.listing.pages) {
      answer.state({
        warnings: [cut(`stopped at options.pages (${request.listing.pages}); the listing goes on at ${address}`)],
      });
      break;
    }
    // The site's pace first: a pause that ends at the deadline leaves no time for the page.
    await pace.wait(address);
    if (pastDeadline(context)) {
      answer.state({ warnings: [cut(`the request's deadline passed before the next page: ${address}`)] });
      break;
    }
    if (robots && !(await robots.allows(address))) {
      answer.state({ warnings: [cut(`robots.txt disallows the next page, which was not read: ${address}`)] });
      break;
    }
    read.add(address);
    let page: ScrapeOutcome;
    try {
      page = await scrapePage(deps, { ...request, url: address, screenshot: false }, context);
    } catch (error) {
      if (context.hop.signal?.aborted) throw error;
      pages.failed += 1;
      const reason = error instanceof Error ? error.message : String(error);
      answer.state({ warnings: [cut(`listing page ${pages.listing + 1} (${address}) failed: ${reason}`)] });
      break;
    }
    pages.listing += 1;
    pages.model += readByModel(page.result);
    read.add(pageAddress(page.page.finalUrl, page.page.finalUrl));
    if (answer.addPage(page.page.finalUrl, page.result) === 0) break;
    readSoFar();
    last = page;
  }

  if (request.listing.details) {
    const details = await fillDetails(deps, request, context, answer, {
      perHost: settings.detailConcurrency,
      robots,
      pace,
      read: (count) => {
        pages.details = count;
        readSoFar();
      },
    });
    pages.details = details.read;
    pages.failed += details.failed;
    pages.model += details.model;
  }
  const result = answer.result();
  const tokens = { input: result.usage?.promptTokens ?? 0, output: result.usage?.completionTokens ?? 0 };
  const path = tokens.input + tokens.output > 0 ? "model" : first.path;
  return { ...first, result, path, tokens, pages, evidencePages: answer.pagesOfEvidence() };
}

/** A text file (robots.txt) as the renderer fetches it: statically, through its egress guard. */
async function fetchText(deps: ScrapeDependencies, context: ScrapeContext, url: string): Promise<string> {
  const options = { mode: RenderMode.RENDER_MODE_STATIC, timeoutMs: 0, waitFor: "", screenshot: false, outline: [] };
  const page = await deps.backends.renderer.render({ url, options, accountId: context.accountId }, context.hop);
  return page.html;
}
