/**
 * What a task description asks of each field of the schema. It is read as
 * sentences (compromise tags their words, gives verbs' infinitives and nouns'
 * singulars), not as a bag of words: a field shares words with a task
 * ("Summarise the product") without being asked for.
 *
 * A field is produced by the task (only a model can answer it: `needs-model`
 * without one, `derived` with one, grounding.ts) when a clause:
 * - has an action verb whose noun is the field's head word ("Summarise ..." →
 *   `summary`, "translate" → `translation`, "rate" → `rating`);
 * - names the field as the action's target ("... as product_name_fr");
 * - has a verb whose object is what it produces, and that object is the field
 *   ("Classify the review's sentiment" → `review_sentiment`, "Write a summary");
 * - transforms an object (summarise, translate, rewrite) into a field named as
 *   the object with a language tag ("Translate the title" → `title_fr`); with no
 *   other product of the action in the schema, the object itself is rewritten
 *   ("Translate the title into German" → `title`);
 * - gives the field's allowed values ("Sentiment is one of: positive, neutral,
 *   negative"): a classification.
 * Anything else ("Extract the fields accurately", "Be concise") asks nothing of
 * a field: the page's value stands.
 *
 * A clause without an action may say how values are written: a currency, a
 * duration or measure unit, a scale or ISO 8601 ("Prices in US dollars",
 * "Return dates as ISO 8601"), read as field names are read (field-names.ts).
 * It concerns the fields whose head word the clause says (`price`,
 * `published_date`); task-answer.ts applies it without a model.
 */

import { createRequire } from "node:module";
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import type Nlp from "compromise";
import { type NameHints, nameHints } from "../schema/field-names.js";

/**
 * Verbs whose object is the value they produce: "Classify the sentiment", "Compute the total", "Write a summary".
 * Verbs that find a value the page states (determine, identify, extract) are not among them.
 */
const PRODUCING = new Set([
  "classify",
  "categorise",
  "categorize",
  "rate",
  "score",
  "compute",
  "calculate",
  "estimate",
  "infer",
  "predict",
  "guess",
  "assess",
  "evaluate",
  "judge",
  "generate",
  "write",
  "compose",
  "label",
]);
/** Verbs whose object is the value they start from: "Summarise the reviews", "Translate the title". */
const TRANSFORMING = new Set([
  "summarise",
  "summarize",
  "translate",
  "rewrite",
  "paraphrase",
  "shorten",
  "simplify",
  "condense",
]);
/** Endings that make a noun of a verb's stem: summar-y, translat-ion, classif-ication, rat-ing, infer-ence. */
const NOUN_ENDINGS = ["", "e", "y", "ion", "ation", "ication", "ing", "ment", "ence", "ance", "al"];
/** Words that introduce an action's target: "... as product_name_fr", "into title_de". */
const TARGET_WORDS = new Set(["as", "into", "in", "to"]);

const LANGUAGES = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });
/** ISO 4217 codes by their English names, singular and lower case ("us dollar" → USD). */
let currencyNames: Map<string, string> | undefined;

/** A unit or format the task asks values in, and the words of the clause that says it (its subject among them). */
export interface Instruction {
  hints: Omit<NameHints, "subject">;
  /** The clause as written, for warnings. */
  text: string;
  words: Set<string>;
}

export interface TaskFields {
  /** Names (at any depth) of the fields the task asks to produce or transform. */
  produced: Set<string>;
  /** Top-level fields each unit or format instruction concerns. */
  instructed: Map<string, Instruction[]>;
}

interface Term {
  text: string;
  word: string;
  tags: Set<string>;
  post: string;
}

/** Loaded for the first task description: most requests have none, and each extraction worker would pay for it. */
let nlp: typeof Nlp | undefined;

const NOTHING: TaskFields = { produced: new Set(), instructed: new Map() };

/** What the task asks of the schema's fields. */
export function readTask(taskDescription: string, tree: ObjectNode): TaskFields {
  if (taskDescription.trim() === "") return NOTHING;
  const names = [...fieldNames(tree)];
  const read = clauses(taskDescription);
  const produced = new Set(
    read.flatMap((clause) => [
      ...clause.flatMap((term, at) => (isAction(term) ? producedBy(clause, at, names) : [])),
      ...allowedValuesOf(clause, names),
    ]),
  );
  const instructions = read.flatMap((clause) => (clause.some(isAction) ? [] : (instructionOf(clause) ?? [])));
  const instructed = new Map<string, Instruction[]>();
  for (const { name } of tree.fields) {
    const concerning = instructions.filter(({ words }) => words.has(head(name) ?? ""));
    if (!produced.has(name) && concerning.length > 0) instructed.set(name, concerning);
  }
  return { produced, instructed };
}

/** Top-level fields the task asks something of: produced, or to be written in a unit or format. */
export function askedOf(task: TaskFields, tree: ObjectNode): string[] {
  return tree.fields.map(({ name }) => name).filter((name) => task.produced.has(name) || task.instructed.has(name));
}

/** The task's clauses (sentences, and their parts between semicolons), as terms with their base forms. */
function clauses(taskDescription: string): Term[][] {
  nlp ??= createRequire(import.meta.url)("compromise") as typeof Nlp;
  const doc = nlp(taskDescription);
  // Roots, leaving the text as written: verbs' infinitives and nouns' singulars ("summarised" → "summarise").
  doc.compute("root");
  type Read = { text: string; normal: string; root?: string; tags: string[]; post: string };
  return doc.json().flatMap(({ terms }: { terms: Read[] }) => {
    const split: Term[][] = [[]];
    for (const term of terms) {
      split.at(-1)!.push({
        text: term.text,
        word: (term.root ?? term.normal).replace(/'s?$/, ""),
        tags: new Set(term.tags),
        post: term.post,
      });
      if (term.post.includes(";")) split.push([]);
    }
    return split.filter((clause) => clause.length > 0);
  });
}

function isAction(term: Term): boolean {
  return term.tags.has("Verb") && (PRODUCING.has(term.word) || TRANSFORMING.has(term.word));
}

/** The fields the action at `at` produces. */
function producedBy(clause: Term[], at: number, names: string[]): string[] {
  const verb = clause[at]!.word;
  const object = objectOf(clause, at);
  const after = clause.slice(at + 1);
  const targets = after.flatMap((term, i) =>
    i > 0 && TARGET_WORDS.has(after[i - 1]!.word) && names.includes(term.text) ? [term.text] : [],
  );
  const nouns = names.filter((name) => nominalises(head(name), verb));
  if (PRODUCING.has(verb)) return [...targets, ...nouns, ...fullest(names.filter((name) => isObject(name, object)))];
  const languages = new Set(after.map((term) => term.word));
  const translated = names.filter((name) => isObjectIn(name, object, languages));
  const products = [...targets, ...nouns, ...translated];
  return products.length > 0 ? products : names.filter((name) => sameWords(subject(name), object));
}

/** The words of the noun phrase after the verb at `at`: up to a preposition, conjunction, another action or a stop. */
function objectOf(clause: Term[], at: number): string[] {
  const words: string[] = [];
  for (const term of clause.slice(at + 1)) {
    if (term.tags.has("Preposition") || term.tags.has("Conjunction") || isAction(term)) break;
    if (!term.tags.has("Determiner")) words.push(term.word);
    if (/[,.:!?]/.test(term.post)) break;
  }
  return words;
}

/**
 * "Sentiment is one of: positive, neutral, negative", "Tone: formal or casual": the fields a clause lists the allowed
 * values of (a subject, then after "is" or a colon only options: no preposition or verb, "one of" or an "or").
 */
function allowedValuesOf(clause: Term[], names: string[]): string[] {
  // A copula, or "be" after a modal ("must be one of"), which the tagger reads as a plain verb.
  const isCopula = (term: Term) => term.tags.has("Copula") || term.word === "be";
  const copula = clause.findIndex((term, i) => isCopula(term) || (i > 0 && clause[i - 1]!.post.includes(":")));
  if (copula <= 0) return [];
  const options = clause.slice(isCopula(clause[copula]!) ? copula + 1 : copula);
  const words = options.map((term) => term.word);
  const listed = words.includes("or") || words.join(" ").startsWith("one of");
  if (!listed || options.some((term) => term.tags.has("Verb") || (term.tags.has("Preposition") && term.word !== "of")))
    return [];
  // "must be one of", "should be one of": the modal says how the field is bound, not what it is.
  const said = clause
    .slice(0, copula)
    .filter((term) => !term.tags.has("Determiner") && !term.tags.has("Modal") && !term.tags.has("Auxiliary"));
  return fullest(
    names.filter((name) =>
      isObject(
        name,
        said.map((term) => term.word),
      ),
    ),
  );
}

/**
 * A unit or format a clause asks values in, read as a field's name states one; undefined when it states none. URLs and
 * percentages are left out: the builtin engine writes them one way whatever the task says.
 */
function instructionOf(clause: Term[]): Instruction | undefined {
  const text = clause
    .map((term) => `${term.text}${term.post}`)
    .join("")
    .trim();
  // Units as written: the singular forms ("gram") are not the spellings field names use ("grams").
  const { subject: _subject, format, ...hints }: NameHints = nameHints(clause.map((term) => term.text).join("_"));
  const stated: Instruction["hints"] = { ...hints, ...(format === "iso8601" ? { format } : {}) };
  const named = currencyIn(clause.map((term) => term.word).join(" "));
  if (named) stated.currency = named;
  const words = new Set(clause.map((term) => singular(term.word)));
  return Object.keys(stated).length > 0 ? { hints: stated, text, words } : undefined;
}

/** The ISO 4217 code of a currency a text names in words ("in US dollar"), or undefined. */
function currencyIn(text: string): string | undefined {
  if (!currencyNames) {
    const display = new Intl.DisplayNames(["en"], { type: "currency" });
    currencyNames = new Map(
      Intl.supportedValuesOf("currency").map((code) => [(display.of(code) ?? code).toLowerCase(), code]),
    );
  }
  const padded = ` ${text.replace(/[^\p{L}\p{N}]+/gu, " ")} `;
  return [...currencyNames].find(([name]) => padded.includes(` ${name} `))?.[1];
}

/** Every field name of the schema, at any depth. */
function fieldNames(node: SchemaNode): Set<string> {
  if (node.kind === "array") return fieldNames(node.items);
  if (node.kind !== "object") return new Set();
  return new Set(node.fields.flatMap(({ name, node: child }) => [name, ...fieldNames(child)]));
}

/** The words of a field's name that say what it is, without unit, format or a trailing language tag. */
function subject(name: string): string[] {
  const words = nameHints(name).subject;
  return words.length > 1 && isLanguage(words.at(-1)!) ? words.slice(0, -1).map(singular) : words.map(singular);
}

/** What the field is: the last word of its subject (`product_name` is a name). */
function head(name: string): string | undefined {
  return subject(name).at(-1);
}

/** Whether the field is the phrase: the same head word, and no word of the field's that the phrase does not say. */
function isObject(name: string, phrase: string[]): boolean {
  const words = subject(name);
  const said = phrase.map(singular);
  return words.length > 0 && words.at(-1) === said.at(-1) && words.every((word) => said.includes(word));
}

/** Of the fields a phrase names, those that say the most of it: "the total price" is `total_price`, not `price`. */
function fullest(names: string[]): string[] {
  const most = Math.max(...names.map((name) => subject(name).length));
  return names.filter((name) => subject(name).length === most);
}

/** Whether the field is the phrase in a language: its name is the phrase's words and a language tag (`title_fr`). */
function isObjectIn(name: string, phrase: string[], languages: Set<string>): boolean {
  const words = nameHints(name).subject;
  const tag = words.at(-1);
  if (words.length < 2 || !tag || !(isLanguage(tag) || languages.has(tag))) return false;
  return sameWords(words.slice(0, -1).map(singular), phrase);
}

function sameWords(a: string[], b: string[]): boolean {
  const said = b.map(singular);
  return a.length === said.length && a.every((word, i) => word === said[i]);
}

/** Whether a word is an ISO 639 language code ("fr", "de"). */
function isLanguage(word: string): boolean {
  return /^[a-z]{2}$/.test(word) && LANGUAGES.of(word) !== undefined;
}

/** Whether a noun is made from the verb: "summary" from "summarize", "translation" from "translate". */
function nominalises(noun: string | undefined, verb: string): boolean {
  if (!noun) return false;
  const stem = verb.replace(/(ise|ize|y|e)$/, "");
  return stem.length >= 3 && NOUN_ENDINGS.some((ending) => noun === `${stem}${ending}`);
}

/** A word without its plural ending, so that "prices" says `price` and "ingredients" `ingredient_list`. */
function singular(word: string): string {
  if (word.length <= 3 || word.endsWith("ss")) return word;
  return word.replace(/(ies)$/, "y").replace(/s$/, "");
}
