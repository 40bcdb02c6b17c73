/**
 * The deterministic engine: no model. Sources are what the page says about
 * itself (JSON-LD, microdata, RDFa, OpenGraph/Twitter/meta tags), what it
 * labels for readers (table rows, definition lists, "Label: value" lines)
 * and its headings; each field's candidates from them (builtin/candidates.ts)
 * are scored and the confident one chosen (builtin/scoring.ts), then read
 * into the field's type (builtin/fill.ts). Field names are matched by
 * meaning (builtin/concepts.ts, builtin/match.ts); values below
 * MIN_CONFIDENCE are left null, so that a wrong value is rarer than a
 * missing one and the model can take the rest in hybrid mode. The result
 * still goes through shape.ts, which has the last word on types.
 */
import type { ObjectNode } from "@winnow/platform";
import type { Page } from "../../page/page.js";
import type { EvidenceTrail } from "../../schema/evidence.js";
import type { Source } from "./candidates.js";
import { fillObject } from "./fill.js";
import { isSupporting, readGraph, typesOf } from "./graph.js";
import { readItems } from "./microdata.js";
import { readCards } from "./microformats.js";
import { readPageValues } from "./page-values.js";
import { primaryEntity } from "./scoring.js";

/** The lists the page's layout shows, as this engine reads them: what the model path holds a list answer against. */
export { type ShownList, shownLists } from "./records/index.js";
/** `trail`, when given, collects each value's evidence (where it was read) by JSON pointer. */
export function extractBuiltin(tree: ObjectNode, page: Page, trail?: EvidenceTrail): Record<string, unknown> {
  const declared = [...page.structured.jsonLd, ...readItems(page.$), ...readCards(page.$)];
  const graph = readGraph(declared);
  const primary = primaryEntity(tree, graph);
  // The WebPage entity describes the same page, and often carries its dates and description.
  const webPage = graph.entities.find((e) => e !== primary && typesOf(e).includes("webpage"));
  const source: Source = {
    entities: [primary, webPage].filter((e) => e !== undefined),
    page: readPageValues(page, primary && !isSupporting(primary) ? typesOf(primary) : [], primary, graph),
    graph,
  };
  return fillObject(tree, source, trail);
}
