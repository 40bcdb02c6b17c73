/**
 * Whether a list sits in the page's frame rather than its content: its
 * navigation, header, footer, a side box, a pager, a "related" rail, a
 * carousel or a filter panel, by the elements and roles that mark them and
 * by the words of the names of its nearest ancestors.
 */
import type { Element, ParentNode } from "domhandler";
import { isTag } from "domhandler";
import { rememberedByText } from "../remembered.js";
import { nameTokens } from "../schema/field-names.js";

/** Ancestors whose names are read for boilerplate words: a page frame "with_header" says nothing of a list deep inside it. */
const NAMED_ANCESTORS = 4;
const BOILERPLATE_TAGS = new Set(["nav", "header", "footer", "aside"]);
const BOILERPLATE_ROLES = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "menu",
  "menubar",
  "tablist",
]);
const BOILERPLATE_WORDS = new Set([
  "nav",
  "navbar",
  "navigation",
  "menu",
  "menubar",
  "footer",
  "header",
  "masthead",
  "breadcrumb",
  "breadcrumbs",
  "sidebar",
  "aside",
  "pagination",
  "pager",
  "paging",
  "related",
  "similar",
  "recommended",
  "recommendations",
  "carousel",
  "facet",
  "facets",
  "filter",
  "filters",
  "refinement",
  "refinements",
  "toolbar",
  "topbar",
  "tabs",
  "share",
  "social",
]);

/** The list is in the page's navigation, header, footer or a side box, by the tags, roles and names of it and its ancestors. */
export function inBoilerplate(container: Element): boolean {
  let level = 0;
  for (let node: ParentNode | null = container; node && isTag(node); node = node.parent, level += 1) {
    if (BOILERPLATE_TAGS.has(node.tagName) || BOILERPLATE_ROLES.has(node.attribs.role ?? "")) return true;
    if (level < NAMED_ANCESTORS && markupTokens(node).some((word) => BOILERPLATE_WORDS.has(word))) return true;
  }
  return false;
}

/** Markup words by the markup they are split from: segmentation asks them of most parents of a page, which repeat a few. */
const tokensOfMarkup = rememberedByText((markup): readonly string[] => nameTokens(markup));

/** The words of an element's class and id, split as field names are ("search-results" → search, results). */
export function markupTokens(element: Element): readonly string[] {
  return tokensOfMarkup(`${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`);
}
