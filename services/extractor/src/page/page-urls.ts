/**
 * The page's own URLs: where its links go and where its images are, as the
 * markup and its structured data state them, resolved against the page's
 * base URL. A URL a model answers is on the page when it is one of them.
 */
import { isTag } from "domhandler";
import { absoluteUrl, type Page } from "./page.js";

/** Attributes that hold one URL: links, images and media, and their lazy-loading forms. */
const URL_ATTRIBUTES = ["href", "src", "data-src", "data-original", "data-lazy-src", "poster", "action"];
/** Attributes that hold a list of image candidates ("a.jpg 1x, b.jpg 2x"). */
const SRCSET_ATTRIBUTES = ["srcset", "data-srcset"];

export class PageUrls {
  private readonly urls = new Set<string>();

  /**
   * `declared`: whether URLs written in meta tags' content and structured data count too (they do for grounding a
   * model's reading; a value the page must show a reader counts only the page's links and sources).
   */
  constructor(
    private readonly page: Page,
    { declared = true }: { declared?: boolean } = {},
  ) {
    const add = (reference: string | undefined) => {
      const url = absoluteUrl(reference, page.baseUrl);
      if (url) this.urls.add(comparable(url));
    };
    // Texts that may or may not be a URL (meta tags' content, structured data's strings) count when written as one.
    const addWritten = (text: string | undefined) => {
      if (text && looksLikeUrl(text.trim())) add(text);
    };
    if (page.url) add(page.url.href);
    for (const element of page.$("*").toArray()) {
      if (!isTag(element)) continue;
      for (const name of URL_ATTRIBUTES) add(element.attribs[name]);
      if (declared) addWritten(element.attribs.content);
      for (const name of SRCSET_ATTRIBUTES)
        for (const candidate of element.attribs[name]?.split(",") ?? []) add(candidate.trim().split(/\s+/)[0]);
    }
    const visit = (value: unknown): void => {
      if (typeof value === "string") addWritten(value);
      else if (Array.isArray(value)) value.forEach(visit);
      else if (typeof value === "object" && value !== null) Object.values(value).forEach(visit);
    };
    if (declared) visit(page.structured.jsonLd);
  }

  /** Whether a URL (absolute, or relative to the page) is one of the page's, its fragment and a trailing slash aside. */
  has(value: string): boolean {
    const url = absoluteUrl(value, this.page.baseUrl);
    return url !== undefined && this.urls.has(comparable(url));
  }
}

/** A URL as two ways of writing the same address compare: without its fragment or a trailing slash. */
function comparable(href: string): string {
  const url = new URL(href);
  url.hash = "";
  return url.href.replace(/\/$/, "");
}

/** Whether a value is written as a URL: an absolute http(s) address, or one relative to the scheme or the site's root. */
export function looksLikeUrl(value: string): boolean {
  return /^(https?:)?\/\/[^\s/]+\S*$/i.test(value) || /^\/[^\s/]\S*$/.test(value);
}
