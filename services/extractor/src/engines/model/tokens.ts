/**
 * Token counting with OpenAI's o200k_base encoding (GPT-4o and later), pure
 * JavaScript with the ranks bundled: nothing is downloaded at run time
 * (gpt-tokenizer: the same counts as js-tiktoken, about ten times faster). For
 * other model families (Llama, Qwen, Mistral behind vLLM or Ollama) it is a
 * close estimate; the budgets keep a margin for that.
 */
import { createRequire } from "node:module";

type Counter = (text: string, options: { disallowedSpecial: Set<string> }) => number;
let counter: Counter | undefined;

/** A run this long without a space is counted in pieces: BPE is quadratic in the length of one run of letters. */
const LONG_RUN = /\S{256,}/g;
const RUN_PIECE = 128;
/** Special tokens a page writes ("<|endoftext|>") are its text, counted as such, never a reason to fail. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The text's tokens; a long run without spaces (80 KB of one letter, a data URI) is counted in pieces, which cuts at
 * most a token or two per piece from what one count would merge, so the count errs on the safe side for budgets.
 */
export function countTokens(text: string): number {
  // Loaded on first use: the ranks are megabytes of JavaScript that slow every start-up, and the builtin engine never
  // needs them.
  counter ??= (createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as { countTokens: Counter })
    .countTokens;
  const count = counter;
  let total = 0;
  let at = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    total += count(text.slice(at, run.index), AS_TEXT);
    for (let i = 0; i < run[0].length; i += RUN_PIECE) total += count(run[0].slice(i, i + RUN_PIECE), AS_TEXT);
    at = run.index + run[0].length;
  }
  return total + count(text.slice(at), AS_TEXT);
}

/** Context windows of common models, by name prefix (longest prefix wins). */
const CONTEXT_WINDOWS: Array<[prefix: string, tokens: number]> = [
  ["gpt-4.1", 1_047_576],
  ["gpt-5", 400_000],
  ["gpt-4o", 128_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4", 200_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-4", 8_192],
  ["gpt-3.5-turbo", 16_385],
];

/** Unknown models (a local Llama or Qwen) often run with a small context; assume a modest one. */
const UNKNOWN_MODEL_CONTEXT = 8_192;

/**
 * The most page tokens one call carries. Long pages are split into parts
 * rather than filling a large window: models read short inputs more reliably,
 * and the parts run in parallel. The rest of the window holds the
 * instructions, the schema and the answer.
 */
const MAX_PART_TOKENS = 24_000;

function contextWindow(model: string): number {
  const name = model.toLowerCase().replace(/^.*\//, "");
  const match = CONTEXT_WINDOWS.filter(([prefix]) => name.startsWith(prefix)).sort(
    (a, b) => b[0].length - a[0].length,
  )[0];
  return match?.[1] ?? UNKNOWN_MODEL_CONTEXT;
}

/**
 * Page tokens per call for a model: half its window (the rest for instructions, schema and answer), at most
 * MAX_PART_TOKENS.
 */
export function pageTokenBudget(model: string, override: number | undefined): number {
  return override ?? Math.min(MAX_PART_TOKENS, Math.floor(contextWindow(model) / 2));
}
