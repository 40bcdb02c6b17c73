/**
 * The second phase of learning, from a field's value on a page (known with
 * confidence) and the page's snapshot (page-snapshot.ts) alone: how the
 * field's stored locators fare against the value, by what the snapshot says
 * each reads; and new locators, from the elements that show the value
 * (value-targets.ts, list-targets.ts, records.ts) and the ways to find them
 * again (element-locators.ts). The locators kept are those that read the
 * value back, so they are right here; whether they hold on the template's
 * other pages is what learning counts.
 */
import type { Field } from "@winnow/platform";
import { elementLocators } from "./element-locators.js";
import { listTargets } from "./list-targets.js";
import { ABSENCE, isAbsence, type Locator } from "./locator.js";
import type { PageSnapshot } from "./page-snapshot.js";
import { withoutEmpty } from "./places.js";
import type { LocatorRecord, LocatorUpdate } from "./store.js";
import { type Target, valueTargets } from "./value-targets.js";
import { agrees, isPresentValue, readAs } from "./values.js";

/** Locators kept per field and page: enough alternatives for learning to choose from. */
const MAX_LOCATORS = 6;

/**
 * The locators that read the value back on this page: the elements that show it whose reading agrees with it (each
 * held against it once), each found again in the ways element-locators.ts finds; the first few.
 */
export function deriveLocators(snapshot: PageSnapshot, field: Field, value: unknown): Locator[] {
  return targetsOf(snapshot, field, value)
    .filter(({ raw }) => raw !== undefined && agrees(readAs(field, raw), value))
    .flatMap(({ element, reading }) =>
      elementLocators(snapshot, element).map((where): Locator => ({ ...where, ...withoutEmpty(reading) })),
    )
    .slice(0, MAX_LOCATORS);
}

/** The elements that show the field's value, by the field's kind: a list of objects, a list of texts, a scalar. */
export function targetsOf(snapshot: PageSnapshot, field: Field, value: unknown): Target[] {
  const { node } = field;
  if (node.kind === "array" && node.items.kind === "object")
    return (snapshot.records.get(field.name) ?? []).map(({ container, reading, raw }) => ({
      element: container,
      reading,
      raw,
    }));
  return Array.isArray(value) ? listTargets(snapshot, field, value as string[]) : valueTargets(snapshot, field, value);
}

/**
 * How the field's stored locators fare against its value on this page, by what each reads there (the snapshot's
 * readings): each that reads a value agrees or disagrees, and a stored absence disagrees.
 */
export function heldAgainst(
  readings: PageSnapshot["readings"],
  value: unknown,
  records: LocatorRecord[],
): LocatorUpdate[] {
  return records.flatMap((record): LocatorUpdate[] => {
    if (isAbsence(record.locator)) return [{ field: record.field, locator: ABSENCE, agree: 0, disagree: 1 }];
    const read = readings.get(record.locator);
    if (!isPresentValue(read)) return [];
    const agreed = agrees(read, value);
    return [{ field: record.field, locator: record.locator, agree: Number(agreed), disagree: Number(!agreed) }];
  });
}
