/**
 * The product block a shopper looks at: the part of the page around its
 * heading that also shows the price and the buy button. Read from the markup
 * alone, nearest the heading first: the price shown there (not struck
 * through, not per unit, not in a list of other products), and whether the
 * product can be bought (what the block says about stock, else a buy button
 * that can be pressed).
 */
import type { CheerioAPI } from "cheerio";
import type { Element, Text } from "domhandler";
import { elementsOfTags } from "../../page/document-elements.js";
import { collapsed, isHidden, isHiddenWithin, NOT_TEXT, ownText, squashed, upTo } from "../../page/elements.js";
import { IN_STOCK, OUT_OF_STOCK } from "../../page/stock-text.js";
import type { Origin } from "../../schema/evidence.js";
import { type Price, readPrice } from "../../schema/normalize.js";
import type { Scored } from "./match.js";

export interface BuyBox {
  /**
   * The price the block shows: every amount its written form may mean
   * ("229.990" is 229.99 or 229990), most likely first, and whether its
   * markup calls it a price.
   */
  price: { amounts: number[]; currency: string | undefined; named: boolean; origin?: Origin } | undefined;
  /** What the block says about stock, or a buy button that can be pressed. */
  inStock: Scored<boolean> | undefined;
}

/**
 * How far above the heading the block may reach: far enough for a heading and a price in sibling columns, not the whole
 * page.
 */
const MAX_LEVELS = 7;
/** A price is a short text; a longer one is a sentence that mentions a price. */
const MAX_PRICE_CHARS = 40;
const MAX_RAW_PRICE_CHARS = 2000;
const MAX_STOCK_CHARS = 60;

/** Markup words of a price that is not the one to pay: the old price beside a sale price, a list or unit price. */
const NOT_CURRENT =
  /^(old|was|before|strike|striked|strikethrough|crossed|regular|list|original|compare|rrp|msrp|uvp|saving|savings|discount|unit|per|line|through|delivery|shipping|postage|versand|envio|frete|livraison|spedizione)$/;
/** "From €70.50": the lowest price of the product's options, which is the price the shop states for it. */
const FROM = /^(from|ab|desde|a partir de|à partir de|dès|da|vanaf|od|от|fra|från)\s+/i;
/** Markup words of a list of other products: related items, carousels, bundles. */
const OTHER_PRODUCTS =
  /^(related|recommend\w*|similar|carousel|slider|swiper|upsell|crosssell|also|accessor\w*|bundle|viewed|suggest\w*|recently)$/;
const STRUCK = new Set(["del", "s", "strike"]);

/**
 * Buy controls as shops word them in the main shopping languages: verbs, so a bare "Cart" link in the header is not
 * one.
 */
const BUY =
  /add to (your |my )?(cart|basket|bag|trolley)|buy (it )?now|^buy$|in den (warenkorb|einkaufswagen)|ajouter au panier|aggiungi al carrello|añadir al carrito|agregar al carr|adicionar ao carrinho|^comprar|в корзину|купить|加入購物車|加入购物车|立即購買|我要購買|立即购买|장바구니|구매하기|カートに入れる|sepete ekle|do koszyka|in (de )?winkelwagen|lägg i (varukorg|kundvagn)|legg i handlekurv|læg i kurv/i;
export function readBuyBox($: CheerioAPI, headline: string | undefined): BuyBox {
  const heading = headingOf($, headline);
  const box: BuyBox = { price: undefined, inStock: undefined };
  let inner: Element | undefined;
  let block = heading?.parent;
  for (
    let level = 0;
    level < MAX_LEVELS && block?.type === "tag" && block.tagName !== "body";
    level += 1, block = block.parent
  ) {
    const element = block as Element;
    // The smaller block inside was read already and held nothing: only what this level adds is new.
    const added = addedBy($, element, inner);
    box.price ??= priceIn($, element, added);
    box.inStock ??= stockIn($, element, added);
    if (box.price && box.inStock) break;
    inner = element;
  }
  return box;
}

/** The elements of the block in page order, without the smaller block read before (and its content). */
function addedBy($: CheerioAPI, block: Element, inner: Element | undefined): Element[] {
  return $(block)
    .children()
    .toArray()
    .flatMap((child) => (child === inner ? [] : [child, ...$(child).find("*").toArray()]));
}

const H1 = new Set(["h1"]);

/** The page's visible <h1> that states the headline, else its only visible <h1>. */
function headingOf($: CheerioAPI, headline: string | undefined): Element | undefined {
  const visible = elementsOfTags($, H1).filter((h1) => !isHiddenWithin(h1));
  const wanted = squashed(headline ?? "");
  const stating = wanted ? visible.find((h1) => squashed($(h1).text()).includes(wanted)) : undefined;
  return stating ?? (visible.length === 1 ? visible[0] : undefined);
}

/**
 * The first current price in the block, in page order, preferring one whose
 * markup calls it a price (class, id, itemprop, data attributes): a number
 * with a currency elsewhere in the block may be a shipping cost or a saving.
 */
function priceIn($: CheerioAPI, block: Element, elements: Element[]): BuyBox["price"] {
  let unnamed: BuyBox["price"];
  const seen = new Set<Element>();
  for (const digits of elements) {
    if (NOT_TEXT.has(digits.tagName) || !/\d/.test(ownText(digits))) continue;
    const found = smallestPrice(digits, block);
    if (!found || seen.has(found.element)) continue;
    seen.add(found.element);
    const { element, text, price } = found;
    if (price.amount <= 0 || !isCurrent($, element, block)) continue;
    const origin: Origin = { source: "layout", text, element };
    const shown = {
      amounts: [price.amount, ...otherReadings(text)],
      currency: price.currency,
      named: namesPrice(element, block),
      origin,
    };
    if (shown.named) return shown;
    unnamed ??= shown;
  }
  return unnamed;
}

/**
 * The amount and its currency may sit in sibling elements ("<b>€ <span>20,-</span></b>"): the smallest element holding
 * both.
 */
function smallestPrice(digits: Element, block: Element): { element: Element; text: string; price: Price } | undefined {
  for (
    let node: Element | null = digits, level = 0;
    node?.type === "tag" && node !== block && level < 3;
    node = node.parent as Element | null, level += 1
  ) {
    const text = priceText(node);
    const price = readPrice(text);
    if (price) return { element: node, text, price };
  }
  return undefined;
}

/**
 * The element's text as a price is written, "From" left out; empty when it
 * is too long to be one. Read up to a bound that leaves room for the
 * indentation templates put around a price, not for a whole container.
 */
function priceText(element: Element): string {
  const text = collapsed(shownText(element, MAX_RAW_PRICE_CHARS));
  return text.length > MAX_PRICE_CHARS ? "" : text.replace(FROM, "");
}

/**
 * The element's text (up to about `limit` characters) with the decimals a
 * shop sets apart put back after their point: "173<sup>34</sup> Lei" is
 * 173.34, not 17334.
 */
function shownText(element: Element, limit: number): string {
  let text = "";
  for (const child of element.children) {
    if (text.length > limit) break;
    if (child.type === "text") text += (child as Text).data;
    else if (child.type === "tag") {
      const inner = shownText(child as Element, limit - text.length);
      const apart =
        (child as Element).tagName === "sup" ||
        markupWords(child as Element).some((word) => /^(decimals?|fraction|cents?)$/.test(word));
      text += apart && /^\d{2}$/.test(inner.trim()) && /\d$/.test(text) ? `.${inner.trim()}` : inner;
    }
  }
  return text;
}

/** The element or a wrapper inside the block is marked up as a price. */
function namesPrice(element: Element, block: Element): boolean {
  for (const node of upTo(element, block)) {
    if (
      Object.entries(node.attribs).some(
        ([name, value]) =>
          (name === "class" || name === "id" || name === "itemprop" || name.startsWith("data-")) &&
          /price|preis|prix|prezzo|precio|preço|цена/i.test(value),
      )
    )
      return true;
  }
  return false;
}

/** Not struck through, not an old or unit price, and the block's own (below). */
function isCurrent($: CheerioAPI, element: Element, block: Element): boolean {
  for (const node of upTo(element, block)) {
    if (node.type !== "tag" || STRUCK.has(node.tagName) || NOT_TEXT.has(node.tagName)) return false;
    if (markupWords(node).some((word) => NOT_CURRENT.test(word) || OTHER_PRODUCTS.test(word))) return false;
  }
  return isOwn($, element, block);
}

/**
 * Shown, and not one card of several inside the block: a row of a sellers'
 * table or a tile of a product list speaks for its seller or its product.
 */
function isOwn($: CheerioAPI, element: Element, block: Element): boolean {
  for (const node of upTo(element, block)) {
    if (node.type !== "tag" || isHidden(node) || hasTwin($, node, element)) return false;
  }
  return true;
}

/** The words of an element's class, id and style: "prd_price__oldAmount" → prd, price, old, amount. */
function markupWords(node: Element): string[] {
  const markup = `${node.attribs.class ?? ""} ${node.attribs.id ?? ""} ${node.attribs.style ?? ""}`;
  return markup
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/cross-sell/g, "crosssell")
    .split(/[^a-z]+/)
    .filter((word) => word.length > 0);
}

/**
 * A sibling of the same kind holding an element marked up like this one (the
 * same tag and class, in a parent of the same tag and class): one card in a
 * list of products or sellers. Layout columns side by side are no such list:
 * they do not repeat their content's markup.
 */
function hasTwin($: CheerioAPI, node: Element, inner: Element): boolean {
  const parent = inner.parent as Element | null;
  const sameKind = (a: Element | null, b: Element | null) =>
    a?.type === "tag" && b?.type === "tag" && a.tagName === b.tagName && a.attribs.class === b.attribs.class;
  const likeInner = (other: Element) => sameKind(other, inner) && sameKind(other.parent as Element | null, parent);
  return $(node)
    .siblings(node.tagName)
    .toArray()
    .some((sibling) => [sibling, ...$(sibling).find(inner.tagName).toArray()].some(likeInner));
}

/**
 * The other amount a number with one separator before three digits may mean:
 * "24.990" is 24.99 where the dot is a decimal mark and 24990 where it groups
 * thousands (as in Chile or Germany); structured data can tell which.
 */
function otherReadings(text: string): number[] {
  const match = /(?<![\d.,])(\d{1,3})([.,])(\d{3})(?![\d.,])/.exec(text);
  if (!match) return [];
  return [Number(`${match[1]}${match[3]}`), Number(`${match[1]}.${match[3]}`)];
}

/** What the block says about stock in a short text of its own, else a buy button that can be pressed. */
function stockIn($: CheerioAPI, block: Element, elements: Element[]): Scored<boolean> | undefined {
  let button: Scored<boolean> | undefined;
  for (const element of elements) {
    if (element.tagName === "script" || element.tagName === "style") continue;
    const own = collapsed(ownText(element));
    // The page's own button may say it ("Sold out" in place of "Add to cart"); a link saying it leads to another seller
    // or variant.
    const says =
      own.length > 0 && own.length <= MAX_STOCK_CHARS && element.tagName !== "a"
        ? OUT_OF_STOCK.test(own)
          ? false
          : IN_STOCK.test(own)
            ? true
            : undefined
        : undefined;
    if (says !== undefined && isOwn($, element, block))
      return { value: says, confidence: 0.75, origin: { source: "layout", text: own, element } };
    // A disabled buy button says nothing: shops disable it until a size or colour is chosen.
    if (
      !button &&
      isControl(element) &&
      !isDisabled(element) &&
      BUY.test(controlText($, element)) &&
      isOwn($, element, block)
    ) {
      button = { value: true, confidence: 0.7, origin: { source: "layout", text: controlText($, element), element } };
    }
  }
  return button;
}

function isControl(element: Element): boolean {
  const { tagName, attribs } = element;
  return (
    tagName === "button" ||
    (tagName === "input" && /^(submit|button)$/i.test(attribs.type ?? "")) ||
    attribs.role === "button" ||
    tagName === "a"
  );
}

function controlText($: CheerioAPI, element: Element): string {
  const text =
    collapsed($(element).text()) ||
    element.attribs.value ||
    element.attribs["aria-label"] ||
    element.attribs.title ||
    "";
  return text.length <= MAX_STOCK_CHARS ? text : "";
}

function isDisabled(element: Element): boolean {
  const { attribs } = element;
  return (
    attribs.disabled !== undefined ||
    attribs["aria-disabled"] === "true" ||
    /(^|[-_\s])disabled([-_\s]|$)/i.test(attribs.class ?? "")
  );
}
