/**
 * Each record's own page read for the fields its listing left null (options.details): the record's link, on the
 * listing's site, scraped with the record's item schema like any page. What the listing states is kept; where the
 * record's page reads otherwise the value's status is "conflict" and its evidence holds the other reading
 * (listing-answer.ts); the listing's values make the record's page ask no model for them alone once its layout is
 * learned (ExtractRequest.known_fields). A record
 * whose page fails keeps the listing's values: its missing fields are "truncated", and a warning says why.
 */
import { escapePointer } from "@winnow/platform";
import type { Evidence, ExtractResponse, FieldStatus } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { type ScrapeContext, type ScrapeDependencies, scrapePage } from "../scrape/scrape-page.js";
import type { ScrapeRequest } from "../scrape/scrape-request.js";
import type { CrawlPace } from "./crawl-pace.js";
import { recordLinkField } from "./list-fields.js";
import type { ListedRecord, ListingAnswer, ListingFacts } from "./listing-answer.js";
import { readByModel } from "./pages-read.js";
import { pastDeadline } from "./past-deadline.js";
import type { RobotsRules } from "./robots-rules.js";
import { sameSite } from "./same-site.js";

export interface DetailOutcome {
  read: number;
  failed: number;
  /** Pages a model read. */
  model: number;
}

export async function fillDetails(
  deps: ScrapeDependencies,
  request: ScrapeRequest,
  context: ScrapeContext,
  answer: ListingAnswer,
  {
    perHost,
    robots,
    pace,
    read,
  }: {
    perHost: number;
    robots: RobotsRules | undefined;
    pace: CrawlPace;
    /** Told the records' pages read so far, after each. */
    read: (count: number) => void;
  },
): Promise<DetailOutcome> {
  const outcome = { read: 0, failed: 0, model: 0 };
  const wanted = answer.records().filter((listed) => missingFields(listed).length > 0);
  const byHost = new Map<string, ListedRecord[]>();
  for (const listed of wanted) {
    const host = new URL(listed.pageUrl).host;
    byHost.set(host, [...(byHost.get(host) ?? []), listed]);
  }
  const fillOne = async (listed: ListedRecord) => {
    const prefix = `/${escapePointer(listed.list.name)}/${listed.index}`;
    const unread = (reason: string) =>
      answer.state({
        fieldStatus: missingFields(listed).map((name) => ({
          pointer: `${prefix}/${escapePointer(name)}`,
          status: "truncated",
        })),
        warnings: [{ code: "detail-failed", message: `the record's own page was not read: ${reason}`, path: prefix }],
      });
    // A record whose page may not be read is no failed page: Winnow-Pages counts only pages asked for.
    const refusal = pastDeadline(context) ? "the request's deadline passed first" : await whyNotRead(listed, robots);
    if (refusal || !listed.link) return unread(refusal ?? "");
    await pace.wait(listed.link);
    if (pastDeadline(context)) return unread("the request's deadline passed first");
    try {
      const result = await readRecordPage(deps, request, context, listed, listed.link);
      outcome.read += 1;
      read(outcome.read);
      outcome.model += readByModel(result);
      answer.addUsage(result.usage);
      answer.state({ ...merged(listed, prefix, result), page: listed.link });
    } catch (error) {
      if (context.hop.signal?.aborted) throw error;
      outcome.failed += 1;
      unread(error instanceof Error ? error.message : String(error));
    }
  };
  // A few pages at once per host, as a polite crawler reads a site; hosts in parallel.
  await Promise.all(
    [...byHost.values()].flatMap((queue) =>
      Array.from({ length: Math.min(perHost, queue.length) }, async () => {
        for (let listed = queue.shift(); listed; listed = queue.shift()) await fillOne(listed);
      }),
    ),
  );
  return outcome;
}

/** The record's fields the listing left null (its link aside: it is how the page was found). */
function missingFields({ list, record }: ListedRecord): string[] {
  const link = recordLinkField(list);
  return list.item.fields.map((f) => f.name).filter((name) => name !== link && (record[name] ?? null) === null);
}

/** Why the record's own page may not be read: it has none, it is on another site, or robots.txt disallows it. */
async function whyNotRead({ link, pageUrl }: ListedRecord, robots: RobotsRules | undefined) {
  if (!link) return "the record has no link of its own (none, or one other records share)";
  if (!sameSite(link, pageUrl)) return `its link ${link} leaves the listing's site`;
  if (robots && !(await robots.allows(link))) return `robots.txt disallows ${link}`;
  return undefined;
}

/**
 * The record's own page (whyNotRead found it may be read) scraped with the record's item schema; the fields its listing
 * answered are known: once the page's layout is learned, they are checked where its template reads them, and a model
 * is called only for the fields the listing left.
 */
async function readRecordPage(
  deps: ScrapeDependencies,
  request: ScrapeRequest,
  context: ScrapeContext,
  listed: ListedRecord,
  url: string,
): Promise<ExtractResponse> {
  const { list } = listed;
  const schema = JSON.parse(request.schemaJson) as Record<string, unknown[]>;
  const itemPrefix = `/${escapePointer(list.name)}/0`;
  const { result } = await scrapePage(
    deps,
    {
      ...request,
      url,
      schemaJson: JSON.stringify(schema[list.name]![0]),
      fieldHints: underItem(request.fieldHints, itemPrefix),
      fieldRules: underItem(request.fieldRules, itemPrefix),
      screenshot: false,
    },
    context,
    list.item.fields.map((f) => f.name).filter((name) => !missingFields(listed).includes(name)),
  );
  return result;
}

/** The entries by pointer below a list's item, by their pointer in the item's own schema. */
function underItem<T>(byPointer: Record<string, T>, itemPrefix: string): Record<string, T> {
  return Object.fromEntries(
    Object.entries(byPointer)
      .filter(([pointer]) => pointer.startsWith(`${itemPrefix}/`))
      .map(([pointer, entry]) => [pointer.slice(itemPrefix.length), entry]),
  );
}

/** The record's page's values in the record's null fields, and conflicts where the two read differently. */
function merged(listed: ListedRecord, prefix: string, result: ExtractResponse): ListingFacts {
  const { list, record } = listed;
  const detail = JSON.parse(result.dataJson) as Record<string, unknown>;
  const statusOf = new Map(result.fieldStatus.map((item) => [item.pointer, item.status]));
  const evidenceOf = new Map(result.evidence.map((item) => [item.pointer, item]));
  const link = recordLinkField(list);
  const evidence: Evidence[] = [];
  const fieldStatus: FieldStatus[] = [];
  const conflicts: ListingFacts["conflicts"] = [];
  for (const { name } of list.item.fields) {
    const found = detail[name] ?? null;
    if (found === null || name === link) continue;
    const own = `/${escapePointer(name)}`;
    const pointer = `${prefix}${own}`;
    const stated = record[name] ?? null;
    const read = evidenceOf.get(own);
    if (stated === null) {
      record[name] = found;
      fieldStatus.push({ pointer, status: statusOf.get(own) ?? "found" });
      if (read) evidence.push({ ...read, pointer });
    } else if (!sameValue(stated, found)) {
      conflicts.push({
        pointer,
        alternative: {
          valueJson: JSON.stringify(found),
          source: read?.source ?? "",
          text: read?.text ?? "",
          grounded: read?.grounded ?? false,
        },
      });
    }
  }
  return { evidence, fieldStatus, conflicts };
}

/** Two readings of one value agree: equal, or the same text but for case and spacing. */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") return comparable(a) === comparable(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

function comparable(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}
