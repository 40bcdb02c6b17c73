/**
 * Template learning: trusted locators answer their fields on a template's
 * next pages; after each answer, the values known with confidence teach the
 * template's locators (an agreement or a disagreement for each locator that
 * reads something, and new locators found for the value). Learned state is
 * data read through a schema (a record that does not parse is ignored) and
 * answers go through shape.ts, so nothing learned can break a response.
 */
import { setImmediate as setImmediatePromise } from "node:timers/promises";
import type { Field, Logger, ObjectNode, SchemaNode } from "@winnow/platform";
import { LRUCache } from "lru-cache";
import type { PageIndex } from "../page/page-index.js";
import { selectorOf } from "../page/selector.js";
import { deriveLocators, heldAgainst } from "./derive.js";
import {
  ABSENCE,
  type Absence,
  absenceSchema,
  applyLocator,
  isAbsence,
  type Locator,
  locatorKey,
  locatorSchema,
} from "./locator.js";
import { type Answered, pageSnapshot, type Stored } from "./page-snapshot.js";
import { type PageLayout, type PageTemplate, type TemplateKey, templateId, templateOf } from "./signature.js";
import { isTrusted, type LocatorRecord, type LocatorUpdate, rank, type TemplateStore } from "./store.js";
import { isLearnable, isPresentValue, readAs, sameValue } from "./values.js";

/** Every this many pages of a template, fields it holds absent are asked again: an optional part may show after all. */
const ABSENCE_RECHECK = 5;
/**
 * Every this many pages of a template, it answers nothing: the engines read
 * every field, and each trusted locator is held against what they found (a
 * site that changed a detail of its layout demotes what no longer holds).
 */
const VERIFY_EVERY = 20;
/** Pages remembered per template, and templates remembered, to know a page read again (per replica). */
const RECENT_PAGES = 8;
const RECENT_TEMPLATES = 10_000;
/**
 * After this many pages of a template on which no element showed a field's
 * value, it is looked for only on every UNSHOWN_RECHECK-th page: a value the
 * page states only in its structured data (a JSON-LD price, a rating count)
 * was otherwise looked for in vain in every element of every page, most of
 * learning's cost on a template's steady pages. Per replica.
 */
const UNSHOWN_AFTER = 3;
const UNSHOWN_RECHECK = 10;
const UNSHOWN_KEPT = 100_000;

/** A field answered by the template, with what showed it (evidence for the caller). */
export interface TemplateFieldAnswer {
  /** Null for a field the template holds absent. */
  value: unknown;
  /** A CSS selector of the element it was read from (as evidence gives one); empty for a field held absent. */
  selector: string;
  /** The locator that found it, written out: `"ISBN-13:" +1 td[0]`, `absent`. */
  locator: string;
  /** The element's text (or attribute) it was read from. */
  text: string;
  confidence: number;
}

export class TemplateLearner {
  /** Pages each template last learned from, the least recently learned template first out. */
  private readonly recentPages = new LRUCache<string, string[]>({ max: RECENT_TEMPLATES });
  /** Per template and field: pages in a row on which no element showed the field's value. */
  private readonly unshown = new LRUCache<string, number>({ max: UNSHOWN_KEPT });

  constructor(
    private readonly store: TemplateStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Whether this page is new to the template, remembering it: the same page
   * read again is no second page, and trust needs two different pages that
   * agree. Kept per replica, so a page read again through another replica
   * may still count once more.
   */
  private firstReading(key: TemplateKey, page: string): boolean {
    const id = templateId(key);
    const pages = this.recentPages.get(id) ?? [];
    this.recentPages.set(id, [page, ...pages.filter((p) => p !== page)].slice(0, RECENT_PAGES));
    return !pages.includes(page);
  }

  /**
   * The page's template: the known one of its host it shares its layout with, or a new one; undefined when the store
   * cannot be read.
   */
  async templateFor(layout: PageLayout): Promise<PageTemplate | undefined> {
    try {
      return templateOf(layout, await this.store.templates(layout));
    } catch (error) {
      this.logger.warn({ err: error, host: layout.host }, "template store unavailable; extracting without templates");
      return undefined;
    }
  }

  /**
   * Answers from the template's trusted locators, by field name; none when
   * the store cannot be read, or on a page that verifies them (`byModel`:
   * a model will read the page; the builtin engine alone cannot check them).
   */
  async answer(
    key: PageTemplate,
    tree: ObjectNode,
    index: PageIndex,
    byModel: boolean,
  ): Promise<Map<string, TemplateFieldAnswer>> {
    const [seen, records] = await Promise.all([this.store.use(key).catch(() => 0), this.records(key)]);
    const answers = new Map<string, TemplateFieldAnswer>();
    if (byModel && seen > 0 && seen % VERIFY_EVERY === 0) return answers;
    const recheck = seen % ABSENCE_RECHECK === 0;
    for (const field of tree.fields.filter(isLearnable)) {
      const trusted = records.filter((record) => record.field === fieldKey(field) && isTrusted(record)).sort(rank);
      const absence = trusted.find((record) => isAbsence(record.locator));
      const read = trusted.flatMap((record) => {
        if (isAbsence(record.locator)) return [];
        const located = applyLocator(index, record.locator);
        const value = located ? readAs(field, located.raw) : null;
        return located && isPresentValue(value) ? [{ record, located, value }] : [];
      });
      if (read.length === 0 && absence && !recheck) {
        answers.set(field.name, {
          value: null,
          selector: "",
          locator: describeLocator(absence.locator),
          text: "",
          confidence: confidenceOf(absence),
        });
        continue;
      }
      // Trusted locators that read different values on this page: the template has changed; the other engines answer.
      if (read.length === 0 || read.some((r) => !sameValue(r.value, read[0]!.value))) continue;
      const { record, located, value } = read[0]!;
      answers.set(field.name, {
        value,
        selector: selectorOf(located.element),
        locator: describeLocator(record.locator),
        text: located.text,
        confidence: confidenceOf(record),
      });
    }
    return answers;
  }

  /**
   * Learns from one page: `values` are the fields' values known with
   * confidence (not the template's own answers), null for a field the model
   * read the whole page for and did not find. Each stored locator of a field
   * that reads a value on the page agrees or disagrees; locators found anew
   * for the value are added with one agreement (looked for only now and then
   * where no element has shown it lately: UNSHOWN_AFTER); a null agrees with the
   * field's absence, a value disagrees. Both in two phases: the page read
   * once into a snapshot (page-snapshot.ts), with what each stored locator
   * reads there; then each value's stored locators held against it and its
   * new locators derived, from that snapshot alone (derive.ts).
   */
  async learn(
    key: TemplateKey,
    layout: PageLayout,
    tree: ObjectNode,
    index: PageIndex,
    values: Record<string, unknown>,
    page: string,
  ): Promise<void> {
    if (!this.firstReading(key, page)) return;
    const records = await this.records(key);
    const answered = tree.fields
      .filter((field) => isLearnable(field) && Object.hasOwn(values, field.name))
      .map((field): Answered => ({ field, value: values[field.name] }));
    const present = answered.filter(({ value }) => isPresentValue(value));
    const sought = present.filter(({ field }) => this.seeks(key, field));
    const stored = present.flatMap(({ field }) =>
      records.flatMap((r): Stored[] =>
        r.field === fieldKey(field) && !isAbsence(r.locator) ? [{ field, locator: r.locator }] : [],
      ),
    );
    // The first phase: the page read once, for every value whose locators are looked for and every stored locator
    // (none of either: nothing to read). Reading a large page takes tens of milliseconds: requests waiting meanwhile
    // go first.
    const reads = sought.length > 0 || stored.length > 0;
    if (reads) await setImmediatePromise();
    const snapshot = reads ? pageSnapshot(index, sought, stored) : undefined;
    const readings = snapshot?.readings ?? new Map<Locator, unknown>();
    const updates: LocatorUpdate[] = [];
    for (const answer of answered) {
      const { field, value } = answer;
      if (value === null) updates.push({ field: fieldKey(field), locator: ABSENCE, agree: 1, disagree: 0 });
      if (!isPresentValue(value)) continue;
      // So do a field's locators.
      await setImmediatePromise();
      const fieldRecords = records.filter((r) => r.field === fieldKey(field));
      // The second phase, from the snapshot alone: the stored locators held against the value, and the locators that
      // read the value back.
      const derived = snapshot && sought.includes(answer) ? deriveLocators(snapshot, field, value) : undefined;
      if (derived) this.countShown(key, field, derived.length > 0);
      const known = new Set(fieldRecords.map((r) => locatorKey(r.locator)));
      updates.push(
        ...heldAgainst(readings, value, fieldRecords),
        ...(derived ?? [])
          .filter((locator) => !known.has(locatorKey(locator)))
          .map((locator) => ({ field: fieldKey(field), locator, agree: 1, disagree: 0 })),
      );
    }
    // A page that only agrees with what the template already trusts teaches it nothing: no write (the steady state).
    const trusted = new Set(records.filter(isTrusted).map((r) => `${r.field}\u0000${locatorKey(r.locator)}`));
    if (updates.every((u) => u.disagree === 0 && trusted.has(`${u.field}\u0000${locatorKey(u.locator)}`))) return;
    await this.store.record(key, layout.paths, updates);
  }

  /** Counts a page on which the field's value was looked for: one more in a row where no element showed it, or none. */
  private countShown(key: TemplateKey, field: Field, shown: boolean): void {
    const unshown = unshownKey(key, field);
    if (shown) this.unshown.delete(unshown);
    else this.unshown.set(unshown, (this.unshown.get(unshown) ?? 0) + 1);
  }

  /**
   * Whether the field's value is looked for in the page's elements: always while elements have shown it lately, and
   * on every UNSHOWN_RECHECK-th page after UNSHOWN_AFTER pages in a row where none did (a page passed over counts).
   */
  private seeks(key: TemplateKey, field: Field): boolean {
    const unshown = unshownKey(key, field);
    const misses = this.unshown.get(unshown) ?? 0;
    if (misses < UNSHOWN_AFTER || misses % UNSHOWN_RECHECK === 0) return true;
    this.unshown.set(unshown, misses + 1);
    return false;
  }

  /** The template's records that parse as locators: a corrupted or foreign row is skipped, never applied. */
  private async records(key: TemplateKey): Promise<LocatorRecord[]> {
    const records = await this.store.locators(key).catch((error: unknown) => {
      this.logger.warn({ err: error, host: key.host }, "template store unavailable; extracting without templates");
      return [];
    });
    return records.flatMap((record) => {
      const locator = locatorSchema.or(absenceSchema).safeParse(record.locator);
      const counts = Number.isSafeInteger(record.agree) && Number.isSafeInteger(record.disagree);
      return locator.success && counts && typeof record.field === "string"
        ? [{ ...record, locator: locator.data }]
        : [];
    });
  }
}

function unshownKey(key: TemplateKey, field: Field): string {
  return `${templateId(key)}\u0000${fieldKey(field)}`;
}

/** A field as templates know it: its name and type, so a field of the same name and another type learns apart. */
function fieldKey(field: Field): string {
  return `${field.name}:${typeName(field.node)}`;
}

function typeName(node: SchemaNode): string {
  if (node.kind === "scalar") return node.type;
  return node.kind === "array" ? `${typeName(node.items)}[]` : node.kind;
}

function confidenceOf(record: LocatorRecord): number {
  return Math.min(0.99, record.agree / (record.agree + 1));
}

/** A locator as a person reads it: `"Price:" +1 td[0]`, `div.genres[0] items a`, `absent`. */
function describeLocator(locator: Locator | Absence): string {
  if (isAbsence(locator)) return "absent";
  const from = locator.label === undefined ? "" : `${JSON.stringify(locator.label)} +${locator.up ?? 0} `;
  const read = locator.items ? ` items ${locator.items}` : locator.attr ? ` @${locator.attr}` : "";
  return `${from}${locator.path}[${locator.index}]${read}`;
}
