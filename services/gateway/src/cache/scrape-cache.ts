import { createHash } from "node:crypto";
import type { ExtractorClient, Logger } from "@winnow/platform";
import {
  type DescribeEnginesResponse,
  ExtractResponse,
  type FieldRule,
} from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { type RenderOptions, RenderResponse } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { CacheStore } from "./cache-store.js";

/** How long the extractor's model and engine version are trusted before it is asked again. */
const IDENTITY_MAX_AGE_MS = 30_000;
/** A cache lookup that takes longer is given up: the scrape then runs as if nothing was cached. */
const LOOKUP_TIMEOUT_MS = 1_000;

/** What a data entry holds: the extractor's answer, and the screenshot taken with it. */
interface StoredData {
  response: unknown;
  screenshot?: string;
}

export interface CachedPage {
  page: RenderResponse;
  /** When the page was rendered (ms since the epoch). */
  renderedAt: number;
}

/** What the data's key is made of, besides the account and the page. */
export interface DataQuestion {
  schemaJson: string;
  /** A JSON Schema's descriptions, which the model reads. */
  fieldHints: Record<string, string>;
  /** A JSON Schema's enum, const and format, which both engines answer within. */
  fieldRules: Record<string, FieldRule>;
  taskDescription: string;
  evidence: boolean;
  screenshot: boolean;
  /** Whether the answer names the page's next listing page (ExtractRequest.want_next_page). */
  nextPage: boolean;
  /** Fields the caller already holds, which no model is called for alone (ExtractRequest.known_fields). */
  knownFields: readonly string[];
}

/**
 * Repeat scrapes answered from cache, on two levels: a rendered page by URL
 * and the options that change what is rendered; and an extraction by a hash
 * of the rendered page, the question (schema, task, what the answer holds) and
 * the extractor's model and engine version, so a new model or release never
 * answers from an older one's entries. Keys hold the account (the scope),
 * unless the operator shares the cache between accounts. A store that fails
 * or is slow costs the cache, never the scrape: it is logged and the scrape
 * runs as if nothing was cached.
 */
export class ScrapeCache {
  private identity: { value: DescribeEnginesResponse; at: number } | undefined;
  private storeDown = false;
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly store: CacheStore,
    private readonly extractor: ExtractorClient,
    private readonly logger: Logger,
  ) {}

  async page(scope: string, url: string, options: RenderOptions): Promise<CachedPage | undefined> {
    const entry = await this.read(pageKey(scope, url, options));
    return entry && { page: RenderResponse.decode(entry.value), renderedAt: entry.storedAt };
  }

  /**
   * Keeps a page on the account of `owner` (whose scrape rendered it); one whose render ran out of time is not kept
   * (the next scrape may get all of it).
   */
  keepPage(scope: string, owner: string, url: string, options: RenderOptions, page: RenderResponse): void {
    if (page.incomplete) return;
    this.write(pageKey(scope, url, options), Buffer.from(RenderResponse.encode(page).finish()), owner);
  }

  /** The data key for this page and question, or undefined when the extractor cannot say what would answer. */
  async dataKey(scope: string, page: RenderResponse, question: DataQuestion): Promise<string | undefined> {
    const identity = await this.engines();
    if (!identity) return undefined;
    const content = createHash("sha256").update(page.finalUrl).update("\0").update(page.html).digest("hex");
    return `data:${hashOf([scope, content, page.incomplete, question, identity.model, identity.engineVersion])}`;
  }

  async data(key: string): Promise<{ response: ExtractResponse; screenshot?: string } | undefined> {
    const entry = await this.read(key);
    if (!entry) return undefined;
    const stored = JSON.parse(entry.value.toString("utf8")) as StoredData;
    return { response: ExtractResponse.fromJSON(stored.response), screenshot: stored.screenshot };
  }

  keepData(key: string, owner: string, response: ExtractResponse, screenshot: string | undefined): void {
    const stored: StoredData = { response: ExtractResponse.toJSON(response), screenshot };
    this.write(key, Buffer.from(JSON.stringify(stored), "utf8"), owner);
  }

  private async engines(): Promise<DescribeEnginesResponse | undefined> {
    if (this.identity && Date.now() - this.identity.at < IDENTITY_MAX_AGE_MS) return this.identity.value;
    try {
      const value = await this.extractor.describeEngines({}, { deadline: new Date(Date.now() + LOOKUP_TIMEOUT_MS) });
      this.identity = { value, at: Date.now() };
      return value;
    } catch (error) {
      this.logger.warn({ err: error }, "the extractor did not say its engines; extractions are not cached meanwhile");
      return undefined;
    }
  }

  private async read(key: string) {
    // A write of this key still under way (writes are not awaited by scrapes) is read once it is done.
    await this.writing.get(key);
    try {
      const entry = await withTimeout(this.store.get(key));
      this.recovered();
      return entry;
    } catch (error) {
      this.failed(error);
      return undefined;
    }
  }

  /**
   * Stores in the background: a scrape's answer does not wait for it. Until it is done, this gateway's reads of the
   * key wait for it, so a repeat scrape here finds what the previous one kept.
   */
  private write(key: string, value: Buffer, owner: string): void {
    const done = withTimeout(this.store.set(key, value, owner)).then(
      () => this.recovered(),
      (error: unknown) => this.failed(error),
    );
    this.writing.set(key, done);
    void done.finally(() => {
      if (this.writing.get(key) === done) this.writing.delete(key);
    });
  }

  /** Waits for the writes under way (before the store is closed). */
  async settled(): Promise<void> {
    await Promise.all(this.writing.values());
  }

  /** Logged once per outage, not once per scrape. */
  private failed(error: unknown): void {
    if (this.storeDown) return;
    this.storeDown = true;
    this.logger.warn({ err: error }, "scrape cache unavailable: scrapes render and extract afresh until it is back");
  }

  private recovered(): void {
    if (!this.storeDown) return;
    this.storeDown = false;
    this.logger.info("scrape cache available again");
  }
}

function pageKey(scope: string, url: string, options: RenderOptions): string {
  // What changes the rendered page; the timeout only bounds it (a render that ran out of time is not kept).
  return `page:${hashOf([scope, url, options.mode, options.waitFor])}`;
}

function hashOf(parts: unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url");
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  return Promise.race([
    work,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${LOOKUP_TIMEOUT_MS} ms`)), LOOKUP_TIMEOUT_MS).unref(),
    ),
  ]);
}
