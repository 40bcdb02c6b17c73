/**
 * The page's own link to the next page of its listing, as a reader would find it: a declared rel=next, a pager's
 * "Next" (in the common languages, or its arrows), the numbered pager's link after the current page, a link that
 * steps the address's page or offset parameter, or a plain "load more" link. The gateway follows it to read a whole
 * listing (options.pages); whether it may (same site, not read before) is the gateway's call.
 */
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { absoluteUrl, type Page } from "./page.js";

/** What a pager's forward link says, lower case, punctuation and arrows aside: English and the common languages. */
const NEXT_WORDS = new Set([
  "next",
  "next page",
  "next results",
  "older posts",
  "older entries",
  "suivant",
  "suivante",
  "page suivante",
  "weiter",
  "nächste",
  "nächste seite",
  "vor",
  "siguiente",
  "página siguiente",
  "próxima",
  "próximo",
  "seguinte",
  "successivo",
  "successiva",
  "avanti",
  "volgende",
  "następna",
  "dalej",
  "nästa",
  "neste",
  "næste",
  "seuraava",
  "sonraki",
  "další",
  "следующая",
  "далее",
  "вперед",
  "вперёд",
  "次へ",
  "次のページ",
  "下一页",
  "下一頁",
  "다음",
]);

/** A pager's forward arrows, alone or beside the word. */
const ARROWS = /[›»→>⟩❯▶▸]+/g;

/** "Load more" links that are plain URLs (a script-driven button has no href to follow). */
const LOAD_MORE =
  /^(load|show|view|see) more( results| items| posts)?$|^more results$|^mehr (laden|anzeigen)$|^(voir|afficher) plus$|^(cargar|ver) más$|^carica altri$/;

/** Query parameters that number a listing's pages or offset its records. */
const STEP_PARAMETERS = ["page", "p", "pg", "paged", "start", "offset", "from", "skip"];
/** Of those, the ones that number pages (1, 2, 3; "path-page" is /page/N/) rather than offset records. */
const PAGE_NUMBERS = new Set(["page", "p", "pg", "paged", "path-page"]);

export function nextPageUrl(page: Page): string | undefined {
  const { $ } = page;
  const here = page.url?.href;
  const usable = (href: string | undefined): string | undefined => {
    const url = absoluteUrl(href, page.baseUrl);
    return url && withoutHash(url) !== (here && withoutHash(here)) ? url : undefined;
  };
  const declared = $('link[rel~="next" i][href], a[rel~="next" i][href]').toArray();
  for (const element of declared) {
    const url = usable(element.attribs.href);
    if (url) return url;
  }
  const anchors = $("a[href]")
    .toArray()
    .filter((a) => !/\bprev/i.test(a.attribs.rel ?? ""));
  return (
    firstUsable(
      anchors.filter((a) => saysNext($, a)),
      usable,
    ) ??
    afterCurrentNumber($, anchors, usable) ??
    steppedAddress(page, anchors, usable) ??
    firstUsable(
      anchors.filter((a) => LOAD_MORE.test(label($, a))),
      usable,
    )
  );
}

function firstUsable(anchors: Element[], usable: (href: string | undefined) => string | undefined) {
  for (const anchor of anchors) {
    const url = usable(anchor.attribs.href);
    if (url) return url;
  }
  return undefined;
}

/** The anchor's words as a pager writes them: its text, else its aria-label or title (an arrow icon's name). */
function label($: CheerioAPI, anchor: Element): string {
  const text = normalized($(anchor).text());
  return text || normalized(anchor.attribs["aria-label"] ?? anchor.attribs.title ?? "");
}

function normalized(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}

/** "Next", "Next ›", "»", "Suivant": the forward word or arrow alone (not "Next article: ..."). */
function saysNext($: CheerioAPI, anchor: Element): boolean {
  const text = label($, anchor);
  const words = text
    .replace(ARROWS, " ")
    .replace(/[.:()[\]«‹<-]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (words === "") return text !== "" && !/[«‹<]/.test(text) && /^[›»→>⟩❯▶▸\s]+$/.test(text) && text.length <= 3;
  return NEXT_WORDS.has(words);
}

/**
 * A numbered pager: the current page's number (a link marked aria-current, or a number that is not a link beside
 * numbers that are), and the link in the same pager that reads the next number.
 */
function afterCurrentNumber(
  $: CheerioAPI,
  anchors: Element[],
  usable: (href: string | undefined) => string | undefined,
): string | undefined {
  const numbered = anchors.filter((a) => /^\d{1,5}$/.test(normalized($(a).text())));
  if (numbered.length === 0) return undefined;
  const counts = new Map<Element, number>();
  const pagers = new Set(numbered.map((a) => pagerOf(a, counts)).filter((pager) => pager !== undefined));
  for (const pager of pagers) {
    const current = currentNumber($, pager);
    if (current === undefined) continue;
    const next = numbered.find((a) => contains(pager, a) && number($, a) === current + 1);
    const url = next && usable(next.attribs.href);
    if (url) return url;
  }
  return undefined;
}

/** The pager holding a number link: the nearest ancestor with at least two number links among its descendants. */
function pagerOf(anchor: Element, counts: Map<Element, number>): Element | undefined {
  let node = anchor.parent;
  for (let depth = 0; node && depth < 4; depth += 1, node = node.parent) {
    if (node.type !== "tag") return undefined;
    // Counted once per element: a page of many number links (a table of figures) stays linear.
    const count = counts.get(node as Element) ?? countNumberLinks(node as Element);
    counts.set(node as Element, count);
    if (count >= 2) return node as Element;
  }
  return undefined;
}

function countNumberLinks(root: Element): number {
  let count = 0;
  const stack: Element[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    for (const child of node.children) {
      if (child.type !== "tag") continue;
      if (child.name === "a" && /^\s*\d{1,5}\s*$/.test(textOfNode(child))) count += 1;
      else stack.push(child);
    }
  }
  return count;
}

function textOfNode(element: Element): string {
  let text = "";
  for (const child of element.children) {
    if (child.type === "text") text += child.data;
    else if (child.type === "tag") text += textOfNode(child);
  }
  return text;
}

function contains(ancestor: Element, node: Element): boolean {
  for (let at: Element["parent"] = node; at; at = at.parent) if (at === ancestor) return true;
  return false;
}

function number($: CheerioAPI, element: Element): number {
  return Number(normalized($(element).text()));
}

/** The current page's number in a pager: marked aria-current or "current"/"active", or the one number not linked. */
function currentNumber($: CheerioAPI, pager: Element): number | undefined {
  const marked = $(pager)
    .find('[aria-current], .current, .active, .selected, [class*="current" i]')
    .toArray()
    .map((element) => normalized($(element).text()))
    .find((text) => /^\d{1,5}$/.test(text));
  if (marked) return Number(marked);
  const unlinked = $(pager)
    .find("strong, b, em, span, li")
    .toArray()
    .filter((element) => $(element).find("a").length === 0 && $(element).closest("a").length === 0)
    .map((element) => normalized($(element).text()))
    .find((text) => /^\d{1,5}$/.test(text));
  return unlinked === undefined ? undefined : Number(unlinked);
}

/**
 * A link to the same address with its page number or record offset stepped forward (?page=3 after ?page=2,
 * ?start=50 after ?start=0, /page/3/ after /page/2/): the smallest step forward the page links to.
 */
function steppedAddress(
  page: Page,
  anchors: Element[],
  usable: (href: string | undefined) => string | undefined,
): string | undefined {
  if (!page.url) return undefined;
  const here = page.url;
  const hereStep = stepOf(here);
  let best: { url: string; value: number } | undefined;
  for (const anchor of anchors) {
    const url = usable(anchor.attribs.href);
    if (!url) continue;
    const there = new URL(url);
    const step = stepOf(there);
    if (!step || there.host !== here.host) continue;
    // The same address but for the step: another path (a topic's ?p=47 on a forum's page) is another page kind.
    const from = hereStep?.name === step.name ? hereStep : undefined;
    if ((from?.rest ?? sameAddressWithout(here, step.name)) !== step.rest) continue;
    // Without the step in the address this is the first page: a page number must then be 2 (?p=123 on a blog's
    // home is a post, not page 123), an offset any step forward.
    const numbersPages = PAGE_NUMBERS.has(step.name);
    if (!from && numbersPages && step.value !== 2) continue;
    const current = from?.value ?? (numbersPages ? 1 : 0);
    if (step.value > current && (!best || step.value < best.value)) best = { url, value: step.value };
  }
  return best?.url;
}

interface Step {
  /** The parameter's name, or "path-page" for /page/N/. */
  name: string;
  value: number;
  /** The address without the step, to compare two addresses' other parts. */
  rest: string;
}

function stepOf(url: URL): Step | undefined {
  for (const name of STEP_PARAMETERS) {
    const value = url.searchParams.get(name);
    if (value !== null && /^\d{1,7}$/.test(value))
      return { name, value: Number(value), rest: sameAddressWithout(url, name) };
  }
  const inPath = /\/page[/-](\d{1,5})(\/|\.html?)?$/i.exec(url.pathname);
  if (inPath)
    return {
      name: "path-page",
      value: Number(inPath[1]),
      rest: `${url.origin}${url.pathname.slice(0, inPath.index)}${url.search}`,
    };
  return undefined;
}

function sameAddressWithout(url: URL, name: string): string {
  const copy = new URL(url.href);
  copy.hash = "";
  if (name === "path-page") return `${copy.origin}${copy.pathname.replace(/\/(index\.html?)?$/, "")}${copy.search}`;
  copy.searchParams.delete(name);
  copy.searchParams.sort();
  return copy.href;
}

function withoutHash(href: string): string {
  return href.replace(/#.*$/, "");
}
