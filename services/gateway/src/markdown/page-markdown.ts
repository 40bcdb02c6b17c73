import { NodeHtmlMarkdown } from "node-html-markdown";
import { type HTMLElement, parse } from "node-html-parser";

/** Never content: code, styling, embedded documents and form controls. */
const NEVER_CONTENT =
  "script, style, noscript, svg, template, iframe, object, embed, canvas, form, button, input, select, textarea";
/** Site navigation, wherever it is. */
const NAVIGATION = 'nav, [role="navigation"]';
/** Page furniture; kept inside an article or main, where it often holds the byline or the date. */
const FURNITURE = 'header, footer, aside, [role="banner"], [role="contentinfo"], [role="complementary"]';

const converter = new NodeHtmlMarkdown({ maxConsecutiveNewlines: 2 });

/**
 * The page's main content as markdown: the main landmark (or the page's one
 * article, else the body) without navigation, banners, footers, sidebars,
 * forms and scripts, its links and images made absolute against the page's
 * URL so that the markdown stands on its own.
 */
export function pageMarkdown(html: string, pageUrl: string): string {
  const root = parse(html, { comment: false });
  const main = mainContent(root);
  for (const element of main.querySelectorAll(`${NEVER_CONTENT}, ${NAVIGATION}`)) element.remove();
  for (const element of main.querySelectorAll(FURNITURE)) {
    if (!element.parentNode?.closest("article, main, [role=main]")) element.remove();
  }
  absolutize(main, "a", "href", pageUrl);
  absolutize(main, "img", "src", pageUrl);
  return converter.translate(main.innerHTML).trim();
}

/** The main landmark; else the page's article when it has just one (several are a listing: all count); else the body. */
function mainContent(root: HTMLElement): HTMLElement {
  const main = root.querySelector('main, [role="main"]');
  if (main) return main;
  const articles = root.querySelectorAll("article");
  if (articles.length === 1) return articles[0]!;
  return root.querySelector("body") ?? root;
}

/** Resolves each attribute against the page; a link that is no address (javascript:, a bad URL) keeps only its text. */
function absolutize(within: HTMLElement, tag: string, attribute: string, pageUrl: string): void {
  for (const element of within.querySelectorAll(`${tag}[${attribute}]`)) {
    const url = resolved(element.getAttribute(attribute) ?? "", pageUrl);
    if (url && (url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:")) {
      element.setAttribute(attribute, url.href);
    } else {
      element.removeAttribute(attribute);
    }
  }
}

function resolved(reference: string, base: string): URL | undefined {
  try {
    return new URL(reference, base);
  } catch {
    return undefined;
  }
}
