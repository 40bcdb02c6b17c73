/**
 * The maker a product page credits under its heading ("Alpine Jacket" over
 * "by Northpeak"), where no structured data or label names a brand: a short
 * "by …" line among the few elements that follow the heading. Articles
 * credit their authors the same way, so it answers only for a brand.
 */
import type { Element } from "domhandler";
import { collapsed, textOf } from "../../page/elements.js";
import type { Scored } from "./match.js";

/** "by Northpeak", "By Northpeak Outdoor Co.": a name, no date or sentence after the word. */
const BY_LINE = /^by\s+([^\d\s][^\d]{1,40})$/i;
/** How far after the heading the line may be: the heading's own block, not the page below it. */
const MAX_SIBLINGS = 3;
/** A fair reading, less sure than a label or structured data that says "brand". */
const CONFIDENCE = 0.65;

export function readMakerLine(heading: Element | undefined): Scored<string> | undefined {
  let next = heading?.nextSibling;
  for (let seen = 0; next && seen < MAX_SIBLINGS; next = next.nextSibling) {
    if (next.type !== "tag") continue;
    seen += 1;
    const text = collapsed(textOf(next as Element));
    const by = BY_LINE.exec(text);
    if (by)
      return {
        value: by[1]!.trim(),
        confidence: CONFIDENCE,
        origin: { source: "byline", text, element: next as Element },
      };
  }
  return undefined;
}
