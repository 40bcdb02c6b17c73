/**
 * Whether a labelled value is on the page at all, in the sense the oracle
 * reader uses (`../shared/tools/oracle_llm.py`: `norm`, `present`, `pick`):
 * some alternative, list item or object value appears, normalised, in the
 * page's HTML or its text. A value that is not there can reach the oracle
 * only inside a suggestion a normalising engine made (an ISO date from
 * "12.11.2021"); no reader that copies from the page can return it.
 */
import { decodeHTML } from "entities";

function norm(text: string): string {
  return decodeHTML(text)
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[*_#|`>[\]()\\]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The written forms of a number the oracle looks for: 1234.5 as "1234.5", "1234.50", "1,234.50", "1,234.5". */
function numberForms(value: number): string[] {
  const grouped = (digits: number) =>
    value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: Math.max(digits, 20) });
  return [String(value), value.toFixed(2), grouped(2), grouped(0)];
}

function present(value: unknown, text: string): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === "boolean") return true;
  if (typeof value === "number") return numberForms(value).some((form) => text.includes(form));
  if (Array.isArray(value)) return value.some((item) => present(item, text));
  if (typeof value === "object") {
    const alternatives = (value as { $any?: unknown[] }).$any;
    return alternatives
      ? alternatives.some((alternative) => present(alternative, text))
      : Object.values(value).some((item) => present(item, text));
  }
  const wanted = norm(String(value));
  return wanted !== "" && text.includes(wanted);
}

/** A checker for one page: is this labelled value on it? */
export function labelsOnPage(html: string): (expected: unknown) => boolean {
  const text = `${norm(html)} ${norm(html.replace(/<[^>]+>/g, " "))}`;
  return (expected) => present(expected, text);
}
