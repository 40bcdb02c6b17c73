/**
 * The template store as the hot path reads it: a site's templates and a
 * template's locators are read from the database at most once per
 * `ttlMs` per replica (and again after this replica records), and the
 * pages a template serves are counted in memory. Without it every scrape
 * made two queries and a write before it could answer; now learning, after
 * the answer, is the only database work, and only when a page teaches
 * something new (learner.ts). Another replica's learning is seen within
 * `ttlMs`; the verification cadence (every 20th page, learner.ts) is per
 * replica.
 */
import { LRUCache } from "lru-cache";
import { type KnownTemplate, type Site, siteId, type TemplateKey, templateId } from "./signature.js";
import type { LocatorRecord, LocatorUpdate, TemplateStore, TemplateSummary } from "./store.js";

/** How long a replica answers from the templates it read before reading them again. */
export const TEMPLATE_CACHE_MS = 5_000;

/** Entries kept per cache. */
const MAX_ENTRIES = 10_000;

export class CachedTemplateStore implements TemplateStore {
  /** Reads younger than ttlMs answer again; the least recently used go first past MAX_ENTRIES (they are only a cache). */
  private readonly sites: LRUCache<string, Promise<KnownTemplate[]>>;
  private readonly locatorsByTemplate: LRUCache<string, Promise<LocatorRecord[]>>;
  private readonly seen = new LRUCache<string, number>({ max: MAX_ENTRIES });

  constructor(
    private readonly store: TemplateStore,
    ttlMs: number,
  ) {
    this.sites = new LRUCache({ max: MAX_ENTRIES, ttl: ttlMs });
    this.locatorsByTemplate = new LRUCache({ max: MAX_ENTRIES, ttl: ttlMs });
  }

  templates(site: Site): Promise<KnownTemplate[]> {
    return this.read(this.sites, siteId(site), () => this.store.templates(site));
  }

  async use(template: TemplateKey): Promise<number> {
    const id = templateId(template);
    const seen = (this.seen.get(id) ?? 0) + 1;
    this.seen.set(id, seen);
    return seen;
  }

  locators(template: TemplateKey): Promise<LocatorRecord[]> {
    return this.read(this.locatorsByTemplate, templateId(template), () => this.store.locators(template));
  }

  async record(template: TemplateKey, paths: string[], updates: LocatorUpdate[]): Promise<void> {
    try {
      await this.store.record(template, paths, updates);
    } finally {
      this.sites.delete(siteId(template));
      this.locatorsByTemplate.delete(templateId(template));
    }
  }

  list(host: string): Promise<TemplateSummary[]> {
    return this.store.list(host);
  }

  /** Forgetting is an operator's rare act: the caches start over. */
  async forget(host: string, tenant?: string): Promise<number> {
    this.sites.clear();
    this.locatorsByTemplate.clear();
    return this.store.forget(host, tenant);
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private read<T>(cache: LRUCache<string, Promise<T>>, id: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(id);
    if (hit) return hit;
    const value = load();
    cache.set(id, value);
    // A failed read is not kept: the next page tries the database again.
    value.catch(() => cache.peek(id) === value && cache.delete(id));
    return value;
  }
}
