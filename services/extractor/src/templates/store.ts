/**
 * What is learned per template: for each field, the locators found so far
 * with how many pages they agreed and disagreed on. Updates are counts to
 * add, so replicas that learn from pages of one template at once add up
 * rather than overwrite each other. Stores are bounded: templates per host
 * and in all, least recently used first out, and locators per field.
 */
import { type Absence, isAbsence, type Locator, locatorKey } from "./locator.js";
import { type KnownTemplate, type TemplateKey, templateId } from "./signature.js";

export interface LocatorRecord {
  /** The field's name and type ("price_usd:number"): a field of another type is another field. */
  field: string;
  locator: Locator | Absence;
  agree: number;
  disagree: number;
}

/** Counts to add to a locator's record, which is created when new. */
export type LocatorUpdate = LocatorRecord;

export interface TemplateSummary {
  signature: string;
  /** Pages learned from. */
  pages: number;
  lastUsed: Date;
  locators: number;
  /** Fields with a trusted locator. */
  trustedFields: string[];
}

export interface TemplateStore {
  /** The host's templates with their skeletons, to match a page's layout against. */
  templates(host: string): Promise<KnownTemplate[]>;
  /**
   * Marks the template used by one more page; returns the pages that used it, this one included (0 for an unknown
   * template).
   */
  use(template: TemplateKey): Promise<number>;
  /** The template's locators; an unknown template has none. */
  locators(template: TemplateKey): Promise<LocatorRecord[]>;
  /**
   * Adds one page's counts to the template's locators (creating the template with the page's skeleton), then applies
   * the bounds.
   */
  record(template: TemplateKey, paths: string[], updates: LocatorUpdate[]): Promise<void>;
  list(host: string): Promise<TemplateSummary[]>;
  /** Forgets every template of the host; returns how many there were. */
  forget(host: string): Promise<number>;
  close(): Promise<void>;
}

export interface StoreBounds {
  templatesPerHost: number;
  templates: number;
}

/** Locators kept per template and field: the best by agreement, so new candidates can still enter. */
export const MAX_LOCATORS_PER_FIELD = 12;
/** Agreeing pages before a locator answers; one disagreement and it no longer does. */
export const TRUST_AGREEMENTS = 2;
/**
 * Pages without the field before the template answers it is absent: an optional part shows on fewer pages than this
 * misses.
 */
const TRUST_ABSENCES = 3;

export function isTrusted(record: Pick<LocatorRecord, "locator" | "agree" | "disagree">): boolean {
  return record.agree >= (isAbsence(record.locator) ? TRUST_ABSENCES : TRUST_AGREEMENTS) && record.disagree === 0;
}

/** The fields a template answers: by a trusted locator, or as absent ("engine (absent)"). */
export function trustedFields(records: Pick<LocatorRecord, "field" | "locator" | "agree" | "disagree">[]): string[] {
  return [
    ...new Set(records.filter(isTrusted).map((r) => (isAbsence(r.locator) ? `${r.field} (absent)` : r.field))),
  ].sort();
}

/** Which of a field's locators to keep: trusted ones first, then by agreement less disagreement. */
export function rank(
  a: Pick<LocatorRecord, "locator" | "agree" | "disagree">,
  b: Pick<LocatorRecord, "locator" | "agree" | "disagree">,
): number {
  return Number(isTrusted(b)) - Number(isTrusted(a)) || b.agree - b.disagree - (a.agree - a.disagree);
}

interface MemoryTemplate {
  paths: string[];
  pages: number;
  seen: number;
  /** A counter, not a time: two uses in one millisecond still have an order. */
  lastUsed: number;
  usedAt: Date;
  records: Map<string, LocatorRecord>;
}

/** A store in the process's memory: for tests and benchmarks, and when learning is not to outlive the process. */
export class MemoryTemplateStore implements TemplateStore {
  private readonly entries = new Map<string, MemoryTemplate>();
  private clock = 0;

  constructor(private readonly bounds: StoreBounds) {}

  async templates(host: string): Promise<KnownTemplate[]> {
    return [...this.entries]
      .filter(([key]) => hostOf(key) === host)
      .map(([key, t]) => ({ signature: key.slice(host.length + 1), paths: t.paths, pages: t.pages }));
  }

  async use(template: TemplateKey): Promise<number> {
    const found = this.entries.get(templateId(template));
    if (!found) return 0;
    found.lastUsed = ++this.clock;
    found.usedAt = new Date();
    return ++found.seen;
  }

  async locators(template: TemplateKey): Promise<LocatorRecord[]> {
    return [...(this.entries.get(templateId(template))?.records.values() ?? [])].map((record) => ({ ...record }));
  }

  async record(template: TemplateKey, paths: string[], updates: LocatorUpdate[]): Promise<void> {
    const key = templateId(template);
    const found = this.entries.get(key) ?? {
      paths,
      pages: 0,
      seen: 1,
      lastUsed: 0,
      usedAt: new Date(),
      records: new Map(),
    };
    this.entries.set(key, found);
    found.pages += 1;
    found.lastUsed = ++this.clock;
    found.usedAt = new Date();
    for (const update of updates) {
      const recordKey = `${update.field}\u0000${locatorKey(update.locator)}`;
      const current = found.records.get(recordKey);
      found.records.set(
        recordKey,
        current
          ? { ...current, agree: current.agree + update.agree, disagree: current.disagree + update.disagree }
          : { ...update },
      );
    }
    for (const field of new Set(updates.map((update) => update.field))) {
      const entries = [...found.records]
        .filter(([, record]) => record.field === field)
        .sort(([, a], [, b]) => rank(a, b));
      for (const [recordKey] of entries.slice(MAX_LOCATORS_PER_FIELD)) found.records.delete(recordKey);
    }
    this.evict(template.host);
  }

  async list(host: string): Promise<TemplateSummary[]> {
    return [...this.entries]
      .filter(([key]) => hostOf(key) === host)
      .map(([key, t]) => ({
        signature: key.slice(host.length + 1),
        pages: t.pages,
        lastUsed: t.usedAt,
        locators: t.records.size,
        trustedFields: trustedFields([...t.records.values()]),
      }));
  }

  async forget(host: string): Promise<number> {
    const keys = [...this.entries.keys()].filter((key) => hostOf(key) === host);
    for (const key of keys) this.entries.delete(key);
    return keys.length;
  }

  async close(): Promise<void> {}

  private evict(host: string): void {
    const byAge = (keys: string[]) =>
      keys.sort((a, b) => this.entries.get(b)!.lastUsed - this.entries.get(a)!.lastUsed);
    for (const key of byAge([...this.entries.keys()].filter((k) => hostOf(k) === host)).slice(
      this.bounds.templatesPerHost,
    ))
      this.entries.delete(key);
    for (const key of byAge([...this.entries.keys()]).slice(this.bounds.templates)) this.entries.delete(key);
  }
}

function hostOf(key: string): string {
  return key.slice(0, key.indexOf(" "));
}
