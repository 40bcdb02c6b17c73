/**
 * Where a page shows a scalar value, on its snapshot: the innermost elements
 * whose text shows it (with the text around it, or as their own text), those
 * whose text reads it by its shape, and the attributes that hold it; each
 * with how its value is read there and what that reads. The texts are read
 * first, then the readings by shape compared with the value.
 */
import type { Field } from "@winnow/platform";
import type { Element } from "domhandler";
import type { Located, Locator } from "./locator.js";
import type { PageSnapshot } from "./page-snapshot.js";
import { MAX_AROUND, readText, spanOf, valuePattern } from "./places.js";
import { sameValue } from "./values.js";

/** Elements tried per value. */
export const MAX_TARGETS = 4;
/** Text an element may hold around a value read by its shape. */
const MAX_PATTERN_TEXT = 300;

type Reading = Pick<Locator, "attr" | "own" | "prefix" | "suffix" | "pattern" | "items" | "fields">;

/** An element that shows the value, how its value is read, and what that reads (undefined: nothing). */
export interface Target {
  element: Element;
  reading: Reading;
  raw: Located["raw"] | undefined;
}

/**
 * The innermost elements whose text shows the value, with the text around it; then those whose text reads it by its
 * shape (places.ts, valuePattern), where the words around it are too many or vary ("Posted: <date> Post subject:
 * <title>"); then attributes that hold it.
 */
export function valueTargets(snapshot: PageSnapshot, field: Field, value: unknown): Target[] {
  const pattern = valuePattern(value);
  const shows = new Map<Element, [number, number]>();
  const shaped = new Map<Element, string | undefined>();
  for (const element of snapshot.elements) {
    const text = snapshot.texts.get(element)!;
    const span = text.length > MAX_AROUND + String(value).length + 30 ? undefined : spanOf(text, value, field.name);
    if (span) shows.set(element, span);
    if (pattern && text.length <= MAX_PATTERN_TEXT) shaped.set(element, readText(text, { pattern }));
  }
  const targets: Target[] = [];
  for (const [element, [start, end]] of shows) {
    if (targets.length >= MAX_TARGETS) break;
    if (element.children.some((child) => shows.has(child as Element))) continue;
    const text = snapshot.texts.get(element)!;
    // Text around the value that child elements add ("[Paperback]", "(1994)") may differ between pages; the element's
    // own text does not hold it.
    const own = snapshot.ownTexts.get(element)!;
    if ((start > 0 || end < text.length) && own.length < text.length && isWhole(spanOf(own, value, field.name), own))
      targets.push({ element, reading: { own: true }, raw: readText(own, {}) });
    const around = { prefix: text.slice(0, start), suffix: text.slice(end) };
    targets.push({ element, reading: around, raw: readText(text, around) });
  }
  const reads = new Set([...shaped].filter(([, read]) => sameValue(read, value)).map(([element]) => element));
  targets.push(
    ...[...reads]
      .filter((element) => !element.children.some((child) => reads.has(child as Element)))
      .slice(0, MAX_TARGETS)
      .map((element) => ({ element, reading: { pattern: pattern! }, raw: value as string })),
  );
  if (typeof value !== "string") return targets;
  for (const element of snapshot.elements) {
    if (targets.length >= 2 * MAX_TARGETS) break;
    const held = snapshot.attributes.get(element)?.get(value);
    if (held) targets.push({ element, reading: { attr: held.attr }, raw: held.raw });
  }
  return targets;
}

function isWhole(span: [number, number] | undefined, text: string): boolean {
  return span !== undefined && span[0] === 0 && span[1] === text.length;
}
