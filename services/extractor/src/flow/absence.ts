/**
 * Whether a null can be called `absent`: the page does not state the value.
 * The engines read only some of the forms a page can state a value in (no
 * engine reads every sentence), so a null proves absence only where the page
 * does not even name what the field is: none of the words of its name, nor
 * the words pages label that concept with. A page that names it ("Cook time",
 * "SKU") and gave no value the engines could read says `not-found` instead,
 * and so does any field whose concept pages state without naming it: a
 * heading, a byline's author or date, a price, an availability, running text.
 */
import { CONCEPTS, LABEL_SYNONYMS, type PagePart, RUNNING_TEXT } from "../engines/builtin/concepts.js";
import { fieldHints } from "../engines/builtin/name-concepts.js";
import type { PageStatements } from "../page/stated.js";

/**
 * Parts of the page the engine reads that do not state a value unnamed: an id read from the page's address is not
 * shown at all, and a count is read with its noun ("87 reviews").
 */
const NAMED_PARTS = new Set<PagePart>(["address id", "review count"]);

/** Words shorter than this ("of", "is", "id") name nothing on their own. */
const MIN_WORD = 3;

/** The phrases a page would name the field's concept with: its name's words, alone and together, and their synonyms. */
function conceptPhrases(name: string): string[] {
  const { subject } = fieldHints(name);
  const phrase = subject.join(" ");
  const words = subject.filter((word) => word.length >= MIN_WORD);
  return [
    ...new Set(
      [phrase, ...words]
        .flatMap((key) => [key, ...(LABEL_SYNONYMS.get(key) ?? [])])
        .filter((p) => p.length >= MIN_WORD),
    ),
  ];
}

/** Whether a null of this field may be `absent`: its concept is one pages name, and this page names it nowhere. */
export function provenAbsent(page: PageStatements, name: string): boolean {
  return !statedUnnamed(name) && !page.names(conceptPhrases(name));
}

/** The field's concept is one pages state without naming it (its place is a part of the page's layout, or prose). */
function statedUnnamed(name: string): boolean {
  const { subject } = fieldHints(name);
  return subject.some((_, start) =>
    subject.slice(start).some((_, i) => {
      const phrase = subject.slice(start, start + i + 1).join(" ");
      return (
        RUNNING_TEXT.has(phrase) ||
        (CONCEPTS.get(phrase) ?? []).some((place) => place.kind === "page" && !NAMED_PARTS.has(place.part))
      );
    }),
  );
}
