/**
 * What the engine knows about the page as a whole, beside its entities:
 * its heading, labels and byline, the names it gives its site, and how far
 * its self-descriptions agree. Only top-level fields read these; a nested
 * entity's fields do not.
 */
import type { CheerioAPI } from "cheerio";
import { decodeHTML } from "entities";
import { squashed } from "../../page/elements.js";
import type { Page, StructuredData } from "../../page/page.js";
import type { Origin } from "../../schema/evidence.js";
import { idInAddress } from "./address-id.js";
import { readBuyBox } from "./buy-box.js";
import { type Byline, readByline, readCredit } from "./byline.js";
import { type Entity, type Graph, ownValue } from "./graph.js";
import { pageHeadline, siteNamesOf } from "./headline.js";
import { type Labelled, readLabels } from "./labels.js";
import { readLoneParagraph } from "./lone-paragraph.js";
import { readMakerLine } from "./maker-line.js";
import type { Scored } from "./match.js";
import { type Offer, readOffer } from "./offer.js";
import { type RatingText, readRatingText } from "./rating-text.js";

export interface PageValues {
  data: StructuredData;
  /** The parsed page, for values read from its layout (repeated blocks). */
  document: CheerioAPI;
  /** Base for the page's relative links. */
  baseUrl: URL | undefined;
  headline: Scored<string> | undefined;
  labels: Labelled[];
  /** Read only when a field asks for it: it walks the document's text. */
  byline: () => Byline;
  /** A person the article's text credits ("Written by: Julie Mollins"); read only when an author needs it. */
  credit: () => Scored<string> | undefined;
  /** The product id the page's address gives it ("/dp/B0756B4GVG"); read only when a field asks. */
  addressId: () => { value: string; origin: Origin } | undefined;
  /** The product's price and availability, structured data weighed against the buy box; read only when a field asks. */
  offer: () => Offer;
  /** The maker a product's heading is credited to ("by Northpeak"); read only when a field asks. */
  makerLine: () => Scored<string> | undefined;
  /** The page's one paragraph of prose, where it has only one; read only when a field asks for it. */
  loneParagraph: () => Scored<string> | undefined;
  /** A rating and a count of reviews written for readers ("4.4 out of 5", "87 reviews"); read only when a field asks. */
  ratingText: () => RatingText;
  /**
   * The site's names, squashed (og:site_name, application-name, the host's name): "The Planetary Press" is
   * "theplanetarypress".
   */
  siteNames: string[];
  /** The meta and OpenGraph descriptions both exist and say different things. */
  descriptionsDisagree: boolean;
  /** The main entity's types: a field's words naming them ("recipe" in `recipe_title`) need no match of their own. */
  aboutWords: string[];
  /** The main entity when it is of a supporting type but the page is about it: an organization named by the heading. */
  subject: Entity | undefined;
}

export function readPageValues(
  page: Page,
  aboutWords: string[],
  primary: Entity | undefined,
  graph: Graph,
): PageValues {
  const { structured } = page;
  const sites = siteNames(page);
  const headline = pageHeadline(structured);
  // Read only when a field asks: each walks the document.
  let byline: Byline | undefined;
  let credit: { found: Scored<string> | undefined } | undefined;
  let addressId: { found: ReturnType<typeof idInAddress> } | undefined;
  let offer: Offer | undefined;
  let ratingText: RatingText | undefined;
  const named =
    headline !== undefined &&
    primary !== undefined &&
    squashed(String(ownValue(primary, "name") ?? "")) === squashed(headline.value);
  return {
    data: structured,
    document: page.$,
    baseUrl: page.baseUrl,
    headline,
    labels: readLabels(page.$),
    byline: () => (byline ??= readByline(page.$, headline?.value)),
    credit: () => {
      credit ??= { found: readCredit(page.$, headline?.value) };
      return credit.found;
    },
    addressId: () => {
      addressId ??= { found: idInAddress(page.$, structured.meta.get("og:url"), page.baseUrl) };
      return addressId.found;
    },
    offer: () => (offer ??= readOffer(primary, graph, structured, readBuyBox(page.$, headline?.value))),
    makerLine: () => readMakerLine(headline?.origin?.source === "heading" ? headline.origin.element : undefined),
    ratingText: () => (ratingText ??= readRatingText(page.$)),
    loneParagraph: () => readLoneParagraph(page.$),
    siteNames: sites,
    descriptionsDisagree: disagree(structured.meta.get("description"), structured.meta.get("og:description")),
    aboutWords,
    subject: named ? primary : undefined,
  };
}

/** The names the page gives its site and the host's name, squashed. */
function siteNames(page: Page): string[] {
  const host = page.baseUrl?.hostname.replace(/^www\./, "");
  const names = [...siteNamesOf(page.structured), host, host?.split(".").slice(0, -1).join(".")];
  return names
    .filter((name) => name !== undefined)
    .map(squashed)
    .filter((name) => name.length > 0);
}

function disagree(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && squashed(decodeHTML(a)) !== squashed(decodeHTML(b));
}
