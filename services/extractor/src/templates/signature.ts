/**
 * A page's template: its host and its layout, among the templates of one
 * tenant (the account that taught them, or the shared ones). Pages built from one template
 * share their skeleton (the tags, ids and stable classes of the outer levels
 * of the body) whatever their content. The skeleton is kept as the set of
 * its paths (hashed), and a page belongs to the known template of its host
 * whose skeleton it shares most (Jaccard similarity over the sets, at least
 * SAME_LAYOUT), or else starts a new one: pages of one layout whose
 * optional parts differ (a block of offers on one page only) still match,
 * while pages of another layout (a listing beside product pages) do not.
 */
import { createHash } from "node:crypto";
import type { CheerioAPI } from "cheerio";
import { type Element, isTag } from "domhandler";
import { bodyOf, NOT_TEXT } from "../page/elements.js";
import { rememberedByText } from "../remembered.js";
import { stableClasses, stableId } from "./names.js";

/** A host as one tenant's templates know it: each account learns its own templates of a site. */
export interface Site {
  /**
   * The account whose templates these are, SHARED_TENANT for templates every account shares (flow/template-scope.ts);
   * never contains a space.
   */
  tenant: string;
  /** The host the page was requested from (never one the page declares): a site's templates stay its own. */
  host: string;
}

/** The tenant of templates shared by every account (EXTRACT_TEMPLATES_SHARED, and templates learned before tenants). */
export const SHARED_TENANT = "";

export interface TemplateKey extends Site {
  /** Names the template: a hash of the skeleton of the page it was first learned from. */
  signature: string;
}

/** A site as one string ("tenant host"), for maps and caches. */
export function siteId(site: Site): string {
  return `${site.tenant} ${site.host}`;
}

/** A template's key as one string ("tenant host signature"), for maps and caches. */
export function templateId(key: TemplateKey): string {
  return `${siteId(key)} ${key.signature}`;
}

/** A page's layout, matched against the templates of its site (its host, for one tenant). */
export interface PageLayout extends Site {
  /** The skeleton's paths, each hashed to 8 hex digits, sorted and unique. */
  paths: string[];
}

export interface KnownTemplate {
  signature: string;
  paths: string[];
  /** Pages learned from. */
  pages: number;
}

/** The template a page belongs to, with how many pages it has learned from (none when new). */
export interface PageTemplate extends TemplateKey {
  pages: number;
}

/** Levels below <body> that make up the skeleton: the frame of a layout, above its content's own structure. */
const SKELETON_DEPTH = 4;
/** Bound on the paths read, so a huge page costs no more than a large one. */
const MAX_PATHS = 1_000;
/**
 * Similarity from which two pages share a template (pages of one site's layout measure 0.74 to 1, pages of different
 * sites at most 0.11, on the corpus's SWDE pages).
 */
const SAME_LAYOUT = 0.6;

export function pageLayout($: CheerioAPI, url: URL | undefined, tenant: string): PageLayout | undefined {
  const host = url?.hostname.toLowerCase();
  const body = bodyOf($);
  if (!host || !body) return undefined;
  const paths = new Set<string>();
  const walk = (element: Element, prefix: string, depth: number): void => {
    for (const child of element.children) {
      if (!isTag(child) || NOT_TEXT.has(child.tagName) || paths.size >= MAX_PATHS) continue;
      const path = `${prefix}/${step(child)}`;
      paths.add(path);
      if (depth < SKELETON_DEPTH) walk(child, path, depth + 1);
    }
  };
  walk(body, "body", 1);
  return paths.size === 0 ? undefined : { tenant, host, paths: [...new Set([...paths].map(hash8))].sort() };
}

/** The known template the page shares its layout with, most similar first; or a new one named after the page. */
export function templateOf(layout: PageLayout, known: KnownTemplate[]): PageTemplate {
  let best: KnownTemplate | undefined;
  let bestSimilarity = SAME_LAYOUT;
  for (const template of known) {
    const similarity = jaccard(layout.paths, template.paths);
    if (similarity >= bestSimilarity) [best, bestSimilarity] = [template, similarity];
  }
  const site = { tenant: layout.tenant, host: layout.host };
  return best
    ? { ...site, signature: best.signature, pages: best.pages }
    : { ...site, signature: hash16(layout.paths.join(" ")), pages: 0 };
}

function jaccard(a: string[], b: string[]): number {
  const set = new Set(a);
  const shared = b.filter((path) => set.has(path)).length;
  return shared / Math.max(1, set.size + b.length - shared);
}

/** One level of a path: the tag with its stable id and classes. */
function step(element: Element): string {
  const id = stableId(element);
  const classes = stableClasses(element);
  return `${element.tagName}${id ? `#${id}` : ""}${classes.map((c) => `.${c}`).join("")}`;
}

/** Remembered: a site's pages share most of their paths, and hashing them was a third of reading the layout. */
const hash8 = rememberedByText((text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 8));

function hash16(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
