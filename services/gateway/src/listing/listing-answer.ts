/**
 * One answer built from a listing's pages: the first page's answer with each list holding the records of every page
 * once (record-merge.ts), and the evidence, statuses and warnings of each record moved to where it went in the
 * merged list. Values outside the lists are the first page's.
 */
import { escapePointer } from "@winnow/platform";
import type {
  Alternative,
  Evidence,
  ExtractResponse,
  FieldStatus,
  Warning,
} from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import type { ListField } from "./list-fields.js";
import { recordLinkField } from "./list-fields.js";
import { isRecord, RecordMerge } from "./record-merge.js";

/** A merged record and the listing page it was read on (its relative links resolve against that page). */
export interface ListedRecord {
  list: ListField;
  index: number;
  record: Record<string, unknown>;
  pageUrl: string;
  /** The record's own page, when it has a link no other record of its page shares (record-merge.ts). */
  link: string | undefined;
}

/** What a later read adds to the answer; a conflict is a value the record's own page reads otherwise. */
export interface ListingFacts {
  evidence?: Evidence[];
  fieldStatus?: FieldStatus[];
  warnings?: Warning[];
  conflicts?: { pointer: string; alternative: Alternative }[];
  /** The page the evidence was read on. */
  page?: string;
}

export class ListingAnswer {
  private readonly merges: Map<string, { list: ListField; merge: RecordMerge; pageUrls: string[] }>;
  private readonly data: Record<string, unknown>;
  private readonly evidence: Evidence[] = [];
  /** The page each value's evidence was read on, by pointer. */
  private readonly evidencePages = new Map<string, string>();
  private readonly fieldStatus: FieldStatus[] = [];
  private readonly warnings: Warning[] = [];
  private readonly usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  private pages = 0;

  constructor(
    lists: ListField[],
    private readonly first: ExtractResponse,
  ) {
    this.merges = new Map(
      lists.map((list) => [list.name, { list, merge: new RecordMerge(recordLinkField(list)), pageUrls: [] }]),
    );
    const data = JSON.parse(first.dataJson) as unknown;
    this.data = isRecord(data) ? data : {};
  }

  /** Adds a listing page's answer (the first page's first); answers how many new records it brought. */
  addPage(pageUrl: string, result: ExtractResponse): number {
    const firstPage = this.pages === 0;
    this.pages += 1;
    const data = JSON.parse(result.dataJson) as unknown;
    const moves = new Map<string, (number | undefined)[]>();
    let added = 0;
    for (const [name, { merge, pageUrls }] of this.merges) {
      const records = isRecord(data) && Array.isArray(data[name]) ? (data[name] as unknown[]) : [];
      const outcome = merge.add(pageUrl, records);
      for (const index of outcome.placed) if (index !== undefined) pageUrls[index] = pageUrl;
      moves.set(escapePointer(name), outcome.placed);
      added += outcome.added;
    }
    // A value outside the lists is the first page's; a record's goes where the record went, or nowhere if it was there.
    const move = (pointer: string): string | undefined => {
      const [, top = "", index, ...rest] = pointer.split("/");
      const placed = moves.get(top);
      if (!placed || index === undefined) return firstPage ? pointer : undefined;
      const to = /^\d+$/.test(index) ? placed[Number(index)] : undefined;
      return to === undefined ? undefined : ["", top, String(to), ...rest].join("/");
    };
    for (const item of result.evidence) {
      const pointer = move(item.pointer);
      if (pointer === undefined) continue;
      this.evidence.push({ ...item, pointer });
      this.evidencePages.set(pointer, pageUrl);
    }
    for (const item of result.fieldStatus) {
      const pointer = move(item.pointer);
      if (pointer !== undefined) this.fieldStatus.push({ ...item, pointer });
    }
    for (const warning of result.warnings) {
      const path = warning.path === "" ? (firstPage ? "" : undefined) : move(warning.path);
      if (path !== undefined) this.warnings.push({ ...warning, path });
    }
    this.addUsage(result.usage);
    return added;
  }

  /** Every merged record, with the page it was read on and its own page's address. */
  records(): ListedRecord[] {
    return [...this.merges.values()].flatMap(({ list, merge, pageUrls }) =>
      merge.records.flatMap((record, index) =>
        isRecord(record) ? [{ list, index, record, pageUrl: pageUrls[index]!, link: merge.links[index] }] : [],
      ),
    );
  }

  /** Facts learned after the pages were read: what the records' own pages said, what cut the listing short. */
  state(facts: ListingFacts): void {
    this.evidence.push(...(facts.evidence ?? []));
    if (facts.page) for (const item of facts.evidence ?? []) this.evidencePages.set(item.pointer, facts.page);
    this.fieldStatus.push(...(facts.fieldStatus ?? []));
    this.warnings.push(...(facts.warnings ?? []));
    for (const { pointer, alternative } of facts.conflicts ?? []) {
      this.fieldStatus.push({ pointer, status: "conflict" });
      // The listing's own evidence for the value stays; it gains the other reading.
      const at = this.evidence.map((item) => item.pointer).lastIndexOf(pointer);
      if (at >= 0) this.evidence[at] = { ...this.evidence[at]!, status: "conflict", alternative };
    }
  }

  /** Adds a later read's model use (the records' own pages) to the answer's. */
  addUsage(usage: ExtractResponse["usage"]): void {
    this.usage.promptTokens += usage?.promptTokens ?? 0;
    this.usage.completionTokens += usage?.completionTokens ?? 0;
    this.usage.totalTokens += usage?.totalTokens ?? 0;
  }

  result(): ExtractResponse {
    const data = { ...this.data };
    for (const [name, { merge }] of this.merges) if (merge.records.length > 0) data[name] = merge.records;
    // A later status for the same pointer (a conflict the record's page shows) replaces the listing's.
    const statuses = new Map(this.fieldStatus.map((item) => [item.pointer, item]));
    return {
      ...this.first,
      dataJson: JSON.stringify(data),
      evidence: this.evidence,
      fieldStatus: [...statuses.values()],
      warnings: this.warnings,
      usage: this.usage,
    };
  }

  /** The page each value was read on, by its pointer in the answer (the evidence envelope's `page`). */
  pagesOfEvidence(): Record<string, string> {
    return Object.fromEntries(this.evidencePages);
  }
}
