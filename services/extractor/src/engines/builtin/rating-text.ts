/**
 * A rating as pages write it for readers ("4.4 out of 5", "4.4/5 stars")
 * and the count beside it ("87 reviews", "(120 ratings)"), where no
 * structured data states them: the first of each among the page's short
 * texts, outside the parts that hold other things (comments, related items,
 * sidebars: byline.ts), which is where a page's own summary of its reviews
 * sits: before the reviews, each of which states a rating of its own.
 */
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { collapsed, textOf } from "../../page/elements.js";
import { isElsewhere } from "./byline.js";
import type { Scored } from "./match.js";

export interface RatingText {
  rating: Scored<number> | undefined;
  count: Scored<number> | undefined;
}

/** "4.4 out of 5", "Rated 4.4/5", "4.4 of 5 stars": a score and the scale's top. */
const RATING = /^(?:rated\s+)?(\d(?:[.,]\d{1,2})?)\s*(?:out of|of|\/)\s*(\d{1,3})(?:\s*stars?)?$/i;
/** "87 reviews", "(1,204 ratings)". */
const COUNT = /^\(?\s*(\d[\d,.]*)\s+(?:reviews?|ratings?|votes?)\s*\)?$/i;
/** Elements short texts sit in; a longer text is a sentence that merely mentions a number. */
const TEXTS = "span, a, p, div, li, strong, b, small, em";
const MAX_CHARS = 30;
/** Less sure than structured data, which states what each number is. */
const CONFIDENCE = 0.7;

export function readRatingText($: CheerioAPI): RatingText {
  const found: RatingText = { rating: undefined, count: undefined };
  for (const element of $(TEXTS).toArray()) {
    if (found.rating && found.count) break;
    const text = collapsed(textOf(element));
    if (text.length > MAX_CHARS || isElsewhere(element)) continue;
    const rating = RATING.exec(text);
    if (rating && !found.rating && Number(rating[1]!.replace(",", ".")) <= Number(rating[2]))
      found.rating = scored(Number(rating[1]!.replace(",", ".")), text, element);
    const count = COUNT.exec(text);
    if (count && !found.count) found.count = scored(Number(count[1]!.replace(/[,.]/g, "")), text, element);
  }
  return found;
}

function scored(value: number, text: string, element: Element): Scored<number> {
  return { value, confidence: CONFIDENCE, origin: { source: "label", text, element } };
}
