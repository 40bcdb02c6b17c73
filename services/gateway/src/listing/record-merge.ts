/**
 * The records of a listing's pages merged in page order, each once. A record with a link is the same record wherever
 * it shows (a record that shifts from page 2 to page 3 while the listing is read, an announcement every page repeats);
 * a record without one is the same only where the same values sit at the same position of their page (two real
 * records sharing every value, on one page or two, are both kept).
 */
export class RecordMerge {
  readonly records: unknown[] = [];
  private readonly seen = new Set<string>();

  /** linkField: the record field holding its own page (list-fields.ts), if the records have one. */
  constructor(private readonly linkField: string | undefined) {}

  /**
   * Adds one page's records; answers where each went in the merged list (undefined: a record already there) and how
   * many were new.
   */
  add(pageUrl: string, records: unknown[]): { added: number; placed: (number | undefined)[] } {
    let added = 0;
    const placed = records.map((record, position) => {
      const key = this.keyOf(record, position, pageUrl);
      if (this.seen.has(key)) return undefined;
      this.seen.add(key);
      added += 1;
      return this.records.push(record) - 1;
    });
    return { added, placed };
  }

  private keyOf(record: unknown, position: number, pageUrl: string): string {
    const link = this.linkField && isRecord(record) ? record[this.linkField] : undefined;
    const url = typeof link === "string" ? pageAddress(link, pageUrl) : undefined;
    return url ? `link ${url}` : `values ${position} ${JSON.stringify(record)}`;
  }
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
