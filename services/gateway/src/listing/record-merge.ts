/**
 * The records of a listing's pages merged in page order, each once. A record with a link of its own is the same record
 * wherever it shows (a record that shifts from page 2 to page 3 while the listing is read, an announcement every page
 * repeats); a record without one is the same only where the same values sit at the same position of their page (two
 * real records sharing every value, on one page or two, are both kept). A link that several records of one page share
 * (every card's "Learn more" to one address) is no record's own.
 */
export class RecordMerge {
  readonly records: unknown[] = [];
  /** Each merged record's own page (resolved, without fragment), when it has one. */
  readonly links: (string | undefined)[] = [];
  private readonly seen = new Set<string>();

  /** linkField: the record field holding its own page (list-fields.ts), if the records have one. */
  constructor(private readonly linkField: string | undefined) {}

  /**
   * Adds one page's records; answers where each went in the merged list (undefined: a record already there) and how
   * many were new.
   */
  add(pageUrl: string, records: unknown[]): { added: number; placed: (number | undefined)[] } {
    const links = ownLinks(records, this.linkField, pageUrl);
    let added = 0;
    const placed = records.map((record, position) => {
      const link = links[position];
      const key = link ? `link ${link}` : `values ${position} ${JSON.stringify(record)}`;
      if (this.seen.has(key)) return undefined;
      this.seen.add(key);
      added += 1;
      this.links.push(link);
      return this.records.push(record) - 1;
    });
    return { added, placed };
  }
}

/** Each record's own page: its link field as an address, unless another record of the page has the same. */
function ownLinks(records: unknown[], linkField: string | undefined, pageUrl: string): (string | undefined)[] {
  const links = records.map((record) => {
    const link = linkField && isRecord(record) ? record[linkField] : undefined;
    return typeof link === "string" ? pageAddress(link, pageUrl) : undefined;
  });
  const counts = new Map<string, number>();
  for (const link of links) if (link) counts.set(link, (counts.get(link) ?? 0) + 1);
  return links.map((link) => (link && counts.get(link) === 1 ? link : undefined));
}

/** A link as an address, resolved against the page it was read on, without its fragment; undefined if it is none. */
export function pageAddress(link: string, pageUrl: string): string | undefined {
  const trimmed = link.trim();
  if (trimmed === "" || !URL.canParse(trimmed, pageUrl)) return undefined;
  const url = new URL(trimmed, pageUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  url.hash = "";
  return url.href;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
