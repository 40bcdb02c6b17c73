/**
 * The page's own heading from its <title>, og:title and first <h1>, which
 * disagree in known ways: titles carry the site's name ("Emden - Reisen"),
 * and some pages use an <h1> for the logo or the menu. Agreement between
 * them is what earns confidence.
 */
import type { Element } from "domhandler";
import { comparable, decodedText, elementsUnder, squashed, textOf } from "../../page/elements.js";
import type { StructuredData } from "../../page/page.js";
import type { Scored } from "./match.js";

const SEPARATOR = /\s+(?:[|–—•·»:~/]|-{1,2}|::)\s+/;

export function pageHeadline(page: StructuredData): Scored<string> | undefined {
  const found = reconciled(page);
  return found && { ...found, value: withoutQualifiers(found.value) };
}

/**
 * A year or format tag after a title is the page's note about it, not its name: "Se7en (1995)", "Rules of Deception
 * [Paperback]".
 */
function withoutQualifiers(text: string): string {
  return text.replace(/(\s*\[[^\]]{1,40}\])+$/, "").replace(/\s*\(\d{4}(?:[–/-]\d{1,4})?\)$/, "") || text;
}

function reconciled(page: StructuredData): Scored<string> | undefined {
  const ogName = page.meta.has("og:title") ? "og:title" : "twitter:title";
  const og = decodedText(page.meta.get(ogName));
  const title = decodedText(page.title);
  const siteNames = siteNamesOf(page);
  const titles = [og, title].filter((t) => t !== undefined);
  // An <h1> that is the site's name, or the part of the title after the separator, is a logo.
  const headings = page.h1s
    .map((text, index) => ({ text: decodedText(text), element: page.h1Elements[index] }))
    .filter((h1): h1 is { text: string; element: Element | undefined } => h1.text !== undefined)
    .filter(
      ({ text, element }) =>
        !siteNames.some((site) => comparable(site) === comparable(text)) &&
        !titles.some((t) => isTrailingPart(t, text)) &&
        !(element && isHomeLink(element, text)),
    );
  const fromHeading = ({ text, element }: (typeof headings)[number], confidence: number): Scored<string> => ({
    value: text,
    confidence,
    origin: { source: "heading", text, element },
  });
  // An <h1> that the title repeats is the heading (the title then only adds the site's name).
  const repeated = headings.find(({ text }) => titles.some((t) => comparable(t).includes(comparable(text))));
  if (repeated) return fromHeading(repeated, 0.85);
  // The page's one <h1> (besides its logo) is what its readers see as the heading, even where the title words it for
  // search engines.
  const only = headings.length === 1 ? headings[0] : undefined;
  if (only?.text.includes(" ")) return fromHeading(only, 0.75);
  if (og)
    return {
      ...withoutSiteName(og, siteNames, 0.75),
      origin: { source: "meta", text: og, element: page.metaElements.get(ogName) },
    };
  // Unconfirmed, one <h1> among several or the bare title is a guess (a logo, "Menu", a title worded for search
  // engines).
  const first = headings[0];
  if (first) return fromHeading(first, 0.5);
  return title ? { ...withoutSiteName(title, siteNames, 0.5), origin: { source: "meta", text: title } } : undefined;
}

/**
 * An <h1> whose text is a link to the site's home page is the site's name set as a logo (blog themes title every
 * page so): a page's own heading does not lead back to the home page.
 */
function isHomeLink(heading: Element, text: string): boolean {
  return elementsUnder(heading, MAX_HEADING_ELEMENTS).some(
    (link) =>
      link.tagName === "a" &&
      (/\bhome\b/i.test(link.attribs.rel ?? "") || isRootAddress(link.attribs.href)) &&
      comparable(textOf(link)) === comparable(text),
  );
}

/** A heading holds a few elements; more is not a heading worth searching. */
const MAX_HEADING_ELEMENTS = 50;

/** "/", "https://site.example/" or "//site.example": the address of a site's home page. */
function isRootAddress(href: string | undefined): boolean {
  const base = "http://relative.invalid/a/b";
  if (href === undefined || href.trim().startsWith("#") || !URL.canParse(href.trim(), base)) return false;
  const url = new URL(href.trim(), base);
  return url.pathname === "/" && url.search === "";
}

/** The names the page gives its site (og:site_name, application-name). */
export function siteNamesOf(page: StructuredData): string[] {
  return [page.meta.get("og:site_name"), page.meta.get("application-name")]
    .map(decodedText)
    .filter((n) => n !== undefined);
}

/** A title without the site's name before or after a separator ("Article - Site" → "Article"). */
function withoutSiteName(text: string, siteNames: string[], confidence: number): Scored<string> {
  const parts = text.split(SEPARATOR);
  if (parts.length < 2) return { value: text, confidence };
  const named = parts.filter(
    (part) => !looksLikeDomain(part) && !siteNames.some((site) => comparable(site) === comparable(part)),
  );
  if (named.length < parts.length && named.length > 0) return { value: named.join(" - "), confidence };
  // The page names its site and no part is that name, however worded: every part is the title's ("Würde des Lebens –
  // ein Projekt" on "Große Fragen").
  if (siteNames.length > 0 && !parts.some((part) => siteNames.some((site) => mayName(part, site))))
    return { value: text, confidence: confidence - 0.05 };
  // No known site name: the short last part is the usual place for one.
  const last = parts.at(-1)!;
  const rest = parts.slice(0, -1).join(" - ");
  return last.split(" ").length <= 4 && last.length < rest.length
    ? { value: rest, confidence: confidence - 0.05 }
    : { value: text, confidence: confidence - 0.2 };
}

/** Whether a part of a title may be the site's name worded otherwise ("Big Site Magazine" for "BigSite"). */
function mayName(part: string, site: string): boolean {
  const [a, b] = [squashed(part), squashed(site)];
  return a.length > 0 && b.length > 0 && (a.includes(b) || b.includes(a));
}

/** Whether `part` is a later part of a separated title ("Article - Site" and "Site"). */
function isTrailingPart(title: string, part: string): boolean {
  return title
    .split(SEPARATOR)
    .slice(1)
    .some((segment) => comparable(segment) === comparable(part));
}

function looksLikeDomain(text: string): boolean {
  return /^(https?:\/\/)?(www\.)?[\w-]+(\.[\w-]+)+\/?$/i.test(text.trim());
}
