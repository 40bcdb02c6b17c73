import { WinnowError } from "@winnow/platform";
import { charsetLabel } from "./html-encoding.js";

const HTML_MEDIA_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const PASSED_THROUGH = new Set(["text/plain", "application/json"]);

/** A fetched document as the renderer returns it. */
export interface PageContent {
  contentType: string;
  /** The markup, or the text itself for plain text and JSON. */
  html: string;
  /** True when html is a web page (HTML or XHTML) rather than passed-through text. */
  isHtml: boolean;
}

/** The media type without parameters, lower-cased; "" when absent. */
function mediaTypeOf(contentType: string): string {
  return contentType.split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * Accepts web pages (HTML, XHTML, and no Content-Type at all, which browsers
 * sniff as HTML) and passes plain text and JSON through; refuses the rest.
 * `decode` turns the body into text given the header's charset label.
 */
export function pageContent(contentType: string, decode: (charsetLabel: string | undefined) => string): PageContent {
  const mediaType = mediaTypeOf(contentType);
  const isHtml = mediaType === "" || HTML_MEDIA_TYPES.has(mediaType);
  if (!isHtml && !PASSED_THROUGH.has(mediaType) && !mediaType.endsWith("+json")) {
    throw new WinnowError("unsupported-content", `the target answered ${mediaType}, not a web page, text or JSON`);
  }
  return { contentType, html: decode(charsetLabel(contentType)), isHtml };
}
