/**
 * Records that are ads: a short text that says so, a labelling attribute, or
 * a class or id word.
 */
import { type Element, isTag, isText } from "domhandler";
import { AD_TEXT } from "../../../page/ad-text.js";
import { collapsed, NOT_TEXT } from "../../../page/elements.js";
import { wordsOf as markupWords } from "./markup.js";
import { MAX_LINK_SEARCH } from "./roles.js";

/** A quick look for the words of AD_MARKUP in a class or id, before they are split into words. */
const AD_HINT = /ad|sponsor|promot|advert/i;

/** Words of markup that mark an ad ("adSlot", "sponsored-result"; singular). */
const AD_MARKUP = new Set(["sponsored", "ad", "advert", "advertisement", "promoted"]);

/** Whether a record is an ad: a short text that says so, or a class or id word that does ("adSlot", "sponsored-result"). */
export function isAd(record: Element[]): boolean {
  let read = 0;
  const visit = (element: Element, depth: number): boolean => {
    read += 1;
    if (read > MAX_LINK_SEARCH) return false;
    const named = `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`;
    if (AD_HINT.test(named)) for (const word of markupWords(element)) if (AD_MARKUP.has(word)) return true;
    const label = element.attribs["aria-label"];
    if (label && AD_TEXT.test(label.trim().split(/[.:]/)[0]!.trim())) return true;
    for (const child of element.children) {
      if (!isText(child) || child.data.length > 60) continue;
      const own = collapsed(child.data);
      if (own && own.length <= 30 && AD_TEXT.test(own)) return true;
    }
    return (
      depth < 40 &&
      element.children.some((child) => isTag(child) && !NOT_TEXT.has(child.tagName) && visit(child, depth + 1))
    );
  };
  return record.some((element) => visit(element, 0));
}
