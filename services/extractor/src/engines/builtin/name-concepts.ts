/**
 * A field's name read for the concept it names, as callers write it:
 * `current_price` and `price_amount` are the price, `is_available` and
 * `has_stock` availability, `ingredient_list` the ingredients,
 * `num_reviews` and `number_of_ratings` counts, `publication_date` the
 * published date and `cost` the price. The name's words are brought to the
 * words of the concept table (concepts.ts: CONCEPTS and LABEL_SYNONYMS) by
 * word form and by WordNet's senses (schema/wordnet.ts), so the rest of the
 * engine reads one vocabulary; words that map to nothing stay as written.
 */
import { type NameHints, nameHints } from "../../schema/field-names.js";
import { baseForms, relatedWords } from "../../schema/wordnet.js";
import { CONCEPTS, LABEL_SYNONYMS } from "./concepts.js";
import { STOP_WORDS } from "./match.js";

/** Words that qualify a value without naming another thing: `is_available`, `current_price`, `price_amount`. */
const QUALIFIERS = new Set(["is", "has", "have", "current", "amount", "number"]);
/** Words that make a name a count of what follows: `num_reviews`, `number_of_ratings`. */
const COUNT_WORDS = new Set(["num", "number", "count", "no"]);
const DURATION_WORDS = new Set(["duration", "length", "period"]);
/** Ordinals that ask for one of a thing the page repeats: `first_post_time`. */
const ORDINALS = new Set(["first"]);
/** Words after a date's concept that say its value is a moment, as the date itself does: `post_time`, `posted_at`. */
const MOMENT_WORDS = new Set(["time", "at", "on"]);
/** Spans of a name tried as one concept: the concept table's longest phrase has three words. */
const MAX_SPAN = 3;

const cache = new Map<string, NameHints>();

/** The field's hints (schema/field-names.ts) with its subject in the concept table's words. */
export function fieldHints(name: string): NameHints {
  let hints = cache.get(name);
  if (!hints) {
    const read = nameHints(name);
    // With a duration's unit in the name (`total_duration_minutes`), its generic words say "time", as the data does.
    const subject = read.durationUnit
      ? read.subject.map((word) => (DURATION_WORDS.has(word) ? "time" : word))
      : read.subject;
    const rest = subject.slice(1);
    // An ordinal qualifies a thing only where the words after it name a concept; "first name" is a given name.
    const ordinal =
      ORDINALS.has(subject[0] ?? "") &&
      !rest.every((word) => NAMING_WORDS.has(word)) &&
      spansOf(rest).some((span) => span.concept);
    hints = ordinal
      ? { ...read, subject: conceptWords(rest), first: true }
      : { ...read, subject: conceptWords(subject) };
    cache.set(name, hints);
  }
  return hints;
}

/** The subject's words with each span that names a concept in other words replaced by the concept's own. */
function conceptWords(subject: string[]): string[] {
  const counted =
    subject.length > 1 && COUNT_WORDS.has(subject[0]!)
      ? [...subject.slice(subject[1] === "of" ? 2 : 1), "count"]
      : subject;
  // A qualifier goes only where the words it qualifies name a concept: `phone_number` is the phone, `part_number` stays.
  const qualified = counted.filter((word) => !QUALIFIERS.has(word));
  const spans = qualified.length > 0 ? spansOf(qualified) : [];
  return (spans.some((span) => span.concept) ? spans : spansOf(counted))
    .filter((span, i, all) => !(MOMENT_WORDS.has(span.words.join(" ")) && i > 0 && isDate(all[i - 1]!)))
    .flatMap((span) => span.words);
}

/** A span that names a concept of dates: one read from the page's date or a schema.org date property. */
function isDate(span: { words: string[]; concept: boolean }): boolean {
  const places = span.concept ? (CONCEPTS.get(span.words.join(" ")) ?? []) : [];
  return places.some(
    (place) =>
      (place.kind === "page" && place.part === "date") || (place.kind === "entity" && /date/i.test(place.path)),
  );
}

/** The words split into spans, each the longest from its start that names a concept, else one word as written. */
function spansOf(words: string[]): { words: string[]; concept: boolean }[] {
  const spans: { words: string[]; concept: boolean }[] = [];
  for (let start = 0; start < words.length; ) {
    const span = spanAt(words, start);
    spans.push({ words: span.words, concept: span.concept });
    start += span.length;
  }
  return spans;
}

/** The longest span from `start` that names a concept (in its own words), else the word there as written. */
function spanAt(words: string[], start: number): { words: string[]; length: number; concept: boolean } {
  for (let length = Math.min(MAX_SPAN, words.length - start); length > 0; length -= 1) {
    const span = words.slice(start, start + length);
    const concept = conceptOf(span);
    if (concept) return { words: concept.split(" "), length, concept: true };
  }
  return { words: [words[start]!], length: 1, concept: false };
}

/** Words that ask for what a thing is called: `product_name`, `recipe_title`. */
export const NAMING_WORDS = new Set(["name", "title"]);

/**
 * Whether the name asks what the page's main thing is called, naming the
 * thing by a word of its own (`product_name`, `recipe_title`, `item_title`):
 * no word before the naming word names a concept, so `author_name` or
 * `company_name` (a concept of their own, perhaps absent) never ask for it.
 */
export function namesMainThing(hints: NameHints): boolean {
  const { subject } = hints;
  const things = subject.slice(0, -1);
  return (
    things.length > 0 &&
    NAMING_WORDS.has(subject.at(-1)!) &&
    things.every((word) => !conceptVocabulary().has(baseKey([word])) && !NAMING_WORDS.has(word))
  );
}

let vocabulary: Map<string, string> | undefined;

/**
 * The concept table's phrases and the label words for them, by the base forms of their words ("in stock" under
 * "stock", "product code" under "product code" for sku).
 */
function conceptVocabulary(): Map<string, string> {
  if (!vocabulary) {
    vocabulary = new Map();
    // A concept's own words first, then the words labels use for it ("product code" for sku, "cost" for price).
    const phrases: [string, string][] = [
      ...[...CONCEPTS.keys(), ...LABEL_SYNONYMS.keys()].map((phrase): [string, string] => [phrase, phrase]),
      ...[...LABEL_SYNONYMS].flatMap(([concept, labels]) => labels.map((label): [string, string] => [label, concept])),
    ];
    for (const [phrase, concept] of phrases) {
      const key = baseKey(phrase.split(" "));
      if (key && !vocabulary.has(key)) vocabulary.set(key, concept);
    }
  }
  return vocabulary;
}

/** A span's concept phrase: the same words, another form of them, or (one word) a WordNet synonym or derived word. */
function conceptOf(span: string[]): string | undefined {
  const known = conceptVocabulary();
  const concept = known.get(baseKey(span));
  // A number tells variants apart (`isbn_13`, not any ISBN): a span with one keeps its words.
  if (span.some((word) => /\d/.test(word))) return concept === span.join(" ") ? concept : undefined;
  if (concept || span.length > 1) return concept;
  const [word] = span as [string];
  // A word that is a concept's own or one WordNet does not know stays as it is.
  if (word.length < 3 || /\d/.test(word)) return undefined;
  // WordNet's words lead only to a concept's own phrase: label words ("portions" for servings) are too loose for that.
  for (const related of relatedWords(word)) {
    const found = known.get(baseKey(related.split("_")));
    if (found && baseKey(found.split(" ")) === baseKey(related.split("_"))) return found;
  }
  return undefined;
}

/** The span's meaningful words in their shortest base form, joined: the key two phrasings share. */
function baseKey(words: string[]): string {
  return words
    .filter((word) => !STOP_WORDS.has(word))
    .map(baseForm)
    .join(" ");
}

/** A word's shortest base form that WordNet knows ("cooking" → cook, "ratings" → rating), else the word. */
export function baseForm(word: string): string {
  const forms = baseForms(word).map((form) => form.lemma);
  return forms.length > 0 ? forms.reduce((a, b) => (b.length < a.length ? b : a)) : word;
}
