/**
 * What is learned per template: for each field, the locators found so far
 * with how many pages they agreed and disagreed on. Updates are counts to
 * add, so replicas that learn from pages of one template at once add up
 * rather than overwrite each other. Templates are kept per tenant (the
 * account that taught them): one account's templates never answer
 * another's pages. Stores are bounded: templates per site (tenant and host),
 * so one account's learning cannot push out another's, and in all, least
 * recently used first out, and locators per field.
 */
import { type Absence, isAbsence, type Locator, locatorKey } from "./locator.js";
import { type KnownTemplate, type Site, siteId, type TemplateKey, templateId } from "./signature.js";

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
  /** Whose template it is (SHARED_TENANT: every account's). */
  tenant: string;
  signature: string;
  /** Pages learned from. */
  pages: number;
  lastUsed: Date;
  locators: number;
  /** Fields with a trusted locator. */
  trustedFields: string[];
}

export interface TemplateStore {
  /** The site's templates with their skeletons, to match a page's layout against. */
  templates(site: Site): Promise<KnownTemplate[]>;
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
  /** The host's templates of every tenant (for operators). */
  list(host: string): Promise<TemplateSummary[]>;
  /** Forgets the host's templates, of one tenant or of all; returns how many there were. */
  forget(host: string, tenant?: string): Promise<number>;
  close(): Promise<void>;
}

export interface StoreBounds {
  /** Per tenant and host. */
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
  key: TemplateKey;
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
  /** By templateId. */
  private readonly entries = new Map<string, MemoryTemplate>();
  private clock = 0;

  constructor(private readonly bounds: StoreBounds) {}

  async templates(site: Site): Promise<KnownTemplate[]> {
    return this.ofSite(site).map((t) => ({ signature: t.key.signature, paths: t.paths, pages: t.pages }));
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
    const id = templateId(template);
    const found = this.entries.get(id) ?? {
      key: { tenant: template.tenant, host: template.host, signature: template.signature },
      paths,
      pages: 0,
      seen: 1,
      lastUsed: 0,
      usedAt: new Date(),
      records: new Map(),
    };
    this.entries.set(id, found);
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
    this.evict(template);
  }

  async list(host: string): Promise<TemplateSummary[]> {
    return [...this.entries.values()]
      .filter((t) => t.key.host === host)
      .map((t) => ({
        tenant: t.key.tenant,
        signature: t.key.signature,
        pages: t.pages,
        lastUsed: t.usedAt,
        locators: t.records.size,
        trustedFields: trustedFields([...t.records.values()]),
      }));
  }

  async forget(host: string, tenant?: string): Promise<number> {
    const forgotten = [...this.entries.values()].filter(
      (t) => t.key.host === host && (tenant === undefined || t.key.tenant === tenant),
    );
    for (const t of forgotten) this.entries.delete(templateId(t.key));
    return forgotten.length;
  }

  async close(): Promise<void> {}

  private ofSite(site: Site): MemoryTemplate[] {
    const id = siteId(site);
    return [...this.entries.values()].filter((t) => siteId(t.key) === id);
  }

  private evict(site: Site): void {
    const byAge = (templates: MemoryTemplate[]) => templates.sort((a, b) => b.lastUsed - a.lastUsed);
    for (const t of byAge(this.ofSite(site)).slice(this.bounds.templatesPerHost))
      this.entries.delete(templateId(t.key));
    for (const t of byAge([...this.entries.values()]).slice(this.bounds.templates))
      this.entries.delete(templateId(t.key));
  }
}
