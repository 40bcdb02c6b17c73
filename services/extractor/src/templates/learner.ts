/**
 * Template learning: trusted locators answer their fields on a template's
 * next pages; after each answer, the values known with confidence teach the
 * template's locators (an agreement or a disagreement for each locator that
 * reads something, and new locators found for the value). Learned state is
 * data read through a schema (a record that does not parse is ignored) and
 * answers go through shape.ts, so nothing learned can break a response.
 */
import type { Field, Logger, ObjectNode, SchemaNode } from "@winnow/platform";
import { deriveLocators } from "./derive.js";
import { applyLocator, locatorKey, locatorSchema, type Locator } from "./locator.js";
import type { PageIndex } from "./page-index.js";
import { templateOf, type PageLayout, type TemplateKey } from "./signature.js";
import { isTrusted, rank, type LocatorRecord, type LocatorUpdate, type TemplateStore } from "./store.js";
import { isLearnable, isPresentValue, readAs, sameValue } from "./values.js";

/** A field answered by the template, with what showed it (evidence for the caller). */
export interface TemplateFieldAnswer {
  value: unknown;
  /** The locator that found it, written out. */
  selector: string;
  /** The element's text (or attribute) it was read from. */
  text: string;
  confidence: number;
}

export class TemplateLearner {
  constructor(
    private readonly store: TemplateStore,
    private readonly logger: Logger,
  ) {}

  /** The page's template: the known one of its host it shares its layout with, or a new one; undefined when the store cannot be read. */
  async templateFor(layout: PageLayout): Promise<TemplateKey | undefined> {
    try {
      return templateOf(layout, await this.store.templates(layout.host));
    } catch (error) {
      this.logger.warn({ err: error, host: layout.host }, "template store unavailable; extracting without templates");
      return undefined;
    }
  }

  /** Answers from the template's trusted locators, by field name; none when the store cannot be read. */
  async answer(key: TemplateKey, tree: ObjectNode, index: PageIndex): Promise<Map<string, TemplateFieldAnswer>> {
    const records = await this.records(key);
    const answers = new Map<string, TemplateFieldAnswer>();
    for (const field of tree.fields.filter(isLearnable)) {
      const trusted = records.filter((record) => record.field === fieldKey(field) && isTrusted(record)).sort(rank);
      const read = trusted.flatMap((record) => {
        const located = applyLocator(index, record.locator);
        const value = located ? readAs(field, located.raw) : null;
        return located && isPresentValue(value) ? [{ record, located, value }] : [];
      });
      // Trusted locators that read different values on this page: the template has changed; the other engines answer.
      if (read.length === 0 || read.some((r) => !sameValue(r.value, read[0]!.value))) continue;
      const { record, located, value } = read[0]!;
      answers.set(field.name, { value, selector: describeLocator(record.locator), text: located.text, confidence: Math.min(0.99, record.agree / (record.agree + 1)) });
    }
    return answers;
  }

  /**
   * Learns from one page: `values` are the fields' values known with
   * confidence (not the template's own answers). Each stored locator of a
   * field that reads a value on the page agrees or disagrees; locators found
   * anew for the value are added with one agreement.
   */
  async learn(key: TemplateKey, layout: PageLayout, tree: ObjectNode, index: PageIndex, values: Record<string, unknown>): Promise<void> {
    const records = await this.records(key);
    const updates: LocatorUpdate[] = [];
    for (const field of tree.fields.filter(isLearnable)) {
      const value = values[field.name];
      if (!Object.hasOwn(values, field.name) || !isPresentValue(value)) continue;
      const known = new Set<string>();
      for (const record of records.filter((r) => r.field === fieldKey(field))) {
        known.add(locatorKey(record.locator));
        const located = applyLocator(index, record.locator);
        const read = located ? readAs(field, located.raw) : null;
        if (isPresentValue(read)) updates.push({ field: record.field, locator: record.locator, agree: Number(sameValue(read, value)), disagree: Number(!sameValue(read, value)) });
      }
      for (const locator of deriveLocators(index, field, value)) {
        if (!known.has(locatorKey(locator))) updates.push({ field: fieldKey(field), locator, agree: 1, disagree: 0 });
      }
    }
    await this.store.record(key, layout.paths, updates);
  }

  /** The template's records that parse as locators: a corrupted or foreign row is skipped, never applied. */
  private async records(key: TemplateKey): Promise<LocatorRecord[]> {
    const records = await this.store.locators(key).catch((error: unknown) => {
      this.logger.warn({ err: error, host: key.host }, "template store unavailable; extracting without templates");
      return [];
    });
    return records.flatMap((record) => {
      const locator = locatorSchema.safeParse(record.locator);
      const counts = Number.isSafeInteger(record.agree) && Number.isSafeInteger(record.disagree);
      return locator.success && counts && typeof record.field === "string" ? [{ ...record, locator: locator.data }] : [];
    });
  }
}

/** A field as templates know it: its name and type, so a field of the same name and another type learns apart. */
export function fieldKey(field: Field): string {
  return `${field.name}:${typeName(field.node)}`;
}

function typeName(node: SchemaNode): string {
  if (node.kind === "scalar") return node.type;
  return node.kind === "array" ? `${typeName(node.items)}[]` : node.kind;
}

/** A locator as a person reads it: `"Price:" +1 td[0] text`. */
export function describeLocator(locator: Locator): string {
  const from = locator.label === undefined ? "" : `${JSON.stringify(locator.label)} +${locator.up ?? 0} `;
  const read = locator.items ? ` items ${locator.items}` : locator.attr ? ` @${locator.attr}` : "";
  return `${from}${locator.path}[${locator.index}]${read}`;
}
