/**
 * A page's one paragraph of prose, where it has only one: what a record's own page (a job, a listing's item) says of
 * its subject, its description, where no structured data or meta tag declares one. A page of several paragraphs (an
 * article) has no single one that describes it, so none is read there.
 */
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { collapsed, isHiddenWithin, textOf } from "../../page/elements.js";
import type { Scored } from "./match.js";

/** Prose is a few sentences' worth of words, not a tagline or a label's line. */
const MIN_WORDS = 10;
/** Parts of a page that frame it rather than say what it is about. */
const FRAME = "nav, header, footer, aside, form";
/** A fair reading: less sure than a description the page declares. */
const CONFIDENCE = 0.65;

export function readLoneParagraph($: CheerioAPI): Scored<string> | undefined {
  const prose = $("p")
    .toArray()
    .filter((p: Element) => $(p).closest(FRAME).length === 0 && !isHiddenWithin(p))
    .map((element) => ({ element, text: collapsed(textOf(element)) }))
    .filter(({ text }) => (text.match(/\p{L}{2,}/gu)?.length ?? 0) >= MIN_WORDS && /[.!?]/.test(text));
  if (prose.length !== 1) return undefined;
  const [{ element, text }] = prose as [{ element: Element; text: string }];
  return { value: text, confidence: CONFIDENCE, origin: { source: "layout", text, element } };
}
