/**
 * The identifier a page's own address gives its product: shops name product
 * pages by their catalogue number ("/dp/B0756B4GVG", "/Prod/101693/",
 * "?pid=262388"). Read from the canonical address the page declares, else
 * the address it was loaded from; only a whole path segment or an id-named
 * query parameter counts, never a number inside a slug of words.
 */
import type { CheerioAPI } from "cheerio";
import { absoluteUrl } from "../../page/page.js";
import type { Origin } from "../../schema/evidence.js";

/** Query parameters that name a product's id. */
const ID_PARAMETERS = ["sku", "pid", "productid", "product_id", "itemid", "item_id", "id"];
/**
 * An identifier: letters and digits only, with at least one digit, five characters or more (not "p", "2021" or
 * "en-gb").
 */
const IDENTIFIER = /^(?=.*\d)[A-Za-z0-9]{5,40}$/;

export function idInAddress(
  $: CheerioAPI,
  ogUrl: string | undefined,
  pageUrl: URL | undefined,
): { value: string; origin: Origin } | undefined {
  const canonical = $('link[rel="canonical" i]').get(0);
  const written = canonical?.attribs.href ?? ogUrl;
  const declared = absoluteUrl(written, pageUrl);
  const address = declared ? new URL(declared) : pageUrl;
  if (!address) return undefined;
  // The address the page declares is in its head; the one it was loaded from is in no element.
  const origin: Origin = declared
    ? { source: "meta", text: written, element: canonical?.attribs.href ? canonical : undefined }
    : { source: "meta", text: address.href };
  for (const name of ID_PARAMETERS) {
    const value = [...address.searchParams].find(([key]) => key.toLowerCase() === name)?.[1];
    if (value && IDENTIFIER.test(value)) return { value, origin };
  }
  const last = address.pathname
    .split("/")
    .filter((segment) => segment.length > 0)
    .at(-1)
    ?.replace(/\.[a-z]{2,5}$/i, "");
  return last && IDENTIFIER.test(last) ? { value: last, origin } : undefined;
}
