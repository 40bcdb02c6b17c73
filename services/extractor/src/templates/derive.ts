/**
 * The second phase of learning, locators from answers: given a field's
 * value on a page (known with confidence) and the page's snapshot
 * (page-snapshot.ts), the elements that show it (value-targets.ts) and the
 * locators that find them again (element-locators.ts), each with what it
 * reads there. The locators kept are those that read the value back, so they
 * are right here; whether they hold on the template's other pages is what
 * learning counts.
 */
import type { Field } from "@winnow/platform";
import type { Element } from "domhandler";
import { elementLocators } from "./element-locators.js";
import type { Located, Locator } from "./locator.js";
import type { PageSnapshot } from "./page-snapshot.js";
import { withoutEmpty } from "./places.js";
import { valueTargets } from "./value-targets.js";
import { agrees, readAs } from "./values.js";

/** Locators kept per field and page: enough alternatives for learning to choose from. */
const MAX_LOCATORS = 6;

/** A candidate locator, the element it finds on the snapshot's page, and what it reads there (undefined: nothing). */
export interface Candidate {
  locator: Locator;
  element: Element;
  raw: Located["raw"] | undefined;
}

/** The locators that read the value back on this page, the first few of the candidates. */
export function deriveLocators(snapshot: PageSnapshot, field: Field, value: unknown): Locator[] {
  return candidateLocators(snapshot, field, value)
    .filter(({ raw }) => raw !== undefined && agrees(readAs(field, raw), value))
    .slice(0, MAX_LOCATORS)
    .map(({ locator }) => locator);
}

/** Every way to find again the elements that show the value: where each is, and how its value is read. */
export function candidateLocators(snapshot: PageSnapshot, field: Field, value: unknown): Candidate[] {
  return valueTargets(snapshot, field, value).flatMap(({ element, reading, raw }) =>
    elementLocators(snapshot, element).map((where) => ({
      locator: { ...where, ...withoutEmpty(reading) },
      element,
      raw,
    })),
  );
}
