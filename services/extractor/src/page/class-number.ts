/**
 * Numbers a page states only in an element's class, for its style sheet to
 * draw (a star widget's `star-rating Three`, `stars-4`): the builtin engine
 * reads ratings from them, templates learn them as a reading of their own,
 * and such a class names content, not a part of the layout.
 */
import type { Element } from "domhandler";

/** Number words a star widget's class may hold. */
const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** The number one class name states: a number word, or a number joined to a rating word (`stars-4`, `rating_4`). */
export function classNameNumber(name: string): number | undefined {
  const lower = name.toLowerCase();
  const word = NUMBER_WORDS.indexOf(lower);
  if (word >= 0) return word;
  const joined = /^(?:stars?|rating|rated|score)[-_]?(\d{1,2})$/.exec(lower);
  return joined ? Number(joined[1]) : undefined;
}

/** The number the element's classes state, the first that states one. */
export function classNumber(element: Element): number | undefined {
  for (const name of (element.attribs.class ?? "").split(/\s+/)) {
    const number = classNameNumber(name);
    if (number !== undefined) return number;
  }
  return undefined;
}
