/**
 * The prompt's delimiters, and what keeps untrusted text (the page, the
 * builtin engine's suggestions, a task description an internal caller may
 * pass on from its own users) from imitating them. A model reads
 * `</page_content x="1">`, `＜/ｐａｇｅ＿ｃｏｎｔｅｎｔ＞` and a closing tag with
 * zero-width characters inside as the tag it looks like, so a tag is
 * recognised in the text's NFKC form with invisible characters removed, and
 * written as `[name]`. The rest of the text is left as it is: NFKC would
 * change values ("m²" to "m2").
 */

/** Every tag name the prompt delimits with (prompt.ts). */
const TAGS = ["page_content", "suggested_values", "task_description"];

/** What NFKC makes "<" (computed over all of Unicode: the ASCII sign, U+FE64 and U+FF1C). */
const OPENING = /[<\uFE64\uFF1C]/g;
/** Zero-width and other characters that render as nothing (joiners, variation selectors, soft hyphens, BOM). */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
const TAG = new RegExp(`^<\\s*/?\\s*(${TAGS.join("|")})(?![\\p{L}\\p{N}_])`, "iu");
/** How far past a "<" a tag's name and attributes are looked for, in normalised characters. */
const WINDOW = 256;

/** The text with every imitation of the prompt's delimiters written as `[name]`. */
export function neutralised(text: string): string {
  let out = "";
  let at = 0;
  for (const match of text.matchAll(OPENING)) {
    if (match.index < at) continue;
    const { normal, ends } = normalisedFrom(text, match.index);
    const tag = TAG.exec(normal);
    if (!tag) continue;
    // The tag's attributes go with it, up to its ">" (when one comes before another "<").
    const close = normal.indexOf(">", tag[0].length);
    const reopen = normal.indexOf("<", tag[0].length);
    const last = close >= 0 && (reopen < 0 || close < reopen) ? close : tag[0].length - 1;
    out += `${text.slice(at, match.index)}[${tag[1]!.toLowerCase()}]`;
    at = ends[last]!;
  }
  return at === 0 ? text : out + text.slice(at);
}

/**
 * NFKC of the text from `start`, character by character and without invisible characters, up to WINDOW characters;
 * `ends[i]` is where the original character that gave normal[i] ends.
 */
function normalisedFrom(text: string, start: number): { normal: string; ends: number[] } {
  let normal = "";
  const ends: number[] = [];
  for (let i = start; i < text.length && normal.length < WINDOW; ) {
    const char = String.fromCodePoint(text.codePointAt(i)!);
    i += char.length;
    if (INVISIBLE.test(char)) continue;
    const form = char.normalize("NFKC");
    normal += form;
    for (let k = 0; k < form.length; k += 1) ends.push(i);
  }
  return { normal, ends };
}
