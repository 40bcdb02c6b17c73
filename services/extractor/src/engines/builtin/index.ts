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
import type { EvidenceTrail } from "../../schema/evidence.js";
import { nameHints } from "../../schema/field-names.js";
import type { Page } from "../../page/page.js";
import { nested, type Source } from "./candidates.js";
import { fillObject } from "./fill.js";
import { isSupporting, readGraph, typesOf, type Entity, type Graph } from "./graph.js";
import { readItems } from "./microdata.js";
import { readCards } from "./microformats.js";
import { readPageValues } from "./page-values.js";
import { find } from "./scoring.js";

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

/** Listing pages can declare hundreds of entities; the one a page is about comes early. */
const MAX_CANDIDATES = 50;

/**
 * The entity the schema is about: of the content entities (an @graph often
 * holds an Article and a Recipe side by side), the one that has values for
 * the most top-level fields; the first one on a tie. Only when there is no
 * content entity does a supporting one (an Organization) stand in.
 */
function primaryEntity(tree: ObjectNode, graph: Graph): Entity | undefined {
  const content = graph.entities.filter((e) => !isSupporting(e));
  let best: Entity | undefined;
  let bestScore = -1;
  for (const entity of (content.length > 0 ? content : graph.entities).slice(0, MAX_CANDIDATES)) {
    const source = nested(entity, graph);
    const score = tree.fields.filter((field) => find(nameHints(field.name), source) !== undefined).length;
    if (score > bestScore) [best, bestScore] = [entity, score];
  }
  return best;
}
