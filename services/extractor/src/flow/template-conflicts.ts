/**
 * A learned template against the page's own statements. A locator learned
 * from other pages can read the wrong element of this one (a site's block
 * that moved, or pages made to teach it wrong). What the page states about
 * itself, in its structured data (JSON-LD, microdata, RDFa) or as a value's
 * visible label where labels of that kind of value proved more reliable
 * across the corpus's sites than templates (prefill-calibration.ts: texts,
 * not prices, where a label can name a list price), is read here by the builtin engine, and a template answer
 * that differs yields to the engines. The page then teaches like any page
 * the engines answer (learning.ts): the stated value disagrees with the
 * locator, which no longer answers.
 *
 * A field the template holds absent (learned where a model answered null)
 * yields wherever the builtin engine reads it on the page, from any source:
 * a null never stands over a value the page states.
 */
import type { ObjectNode } from "@winnow/platform";
import { extractBuiltin } from "../engines/builtin/index.js";
import type { Page } from "../page/page.js";
import { EvidenceTrail, presentIn, underFields } from "../schema/evidence.js";
import { isComplete, shape } from "../schema/shape.js";
import type { TemplateFieldAnswer } from "../templates/learner.js";
import { sameValue } from "../templates/values.js";
import { fieldKind, outranks } from "./prefill-calibration.js";

/** Where the page states a value about itself in its structured data (RDFa is read as microdata). */
const STRUCTURED: ReadonlySet<string> = new Set(["json-ld", "microdata"]);

/** The fields whose template answer (a value, or absent) differs from what the page states for them. */
export function conflictsWithPage(
  tree: ObjectNode,
  page: Page,
  answers: ReadonlyMap<string, TemplateFieldAnswer>,
): string[] {
  const fields = tree.fields.filter((field) => answers.has(field.name));
  if (fields.length === 0) return [];
  const answered: ObjectNode = { ...tree, fields };
  const trail = new EvidenceTrail();
  const { data } = shape(answered, extractBuiltin(answered, page, trail));
  const evidence = presentIn(trail.evidence, data);
  return fields
    .filter(({ name, node }) => {
      const stated = data[name];
      const sources = [...underFields(evidence, [name]).values()];
      if (answers.get(name)!.value === null) return isComplete(stated) && sources.length > 0;
      const byPage =
        sources.every((e) => STRUCTURED.has(e.source)) ||
        (sources.every((e) => e.source === "label") && outranks(evidence, name, fieldKind(name, node), "template"));
      return isComplete(stated) && sources.length > 0 && byPage && !sameValue(stated, answers.get(name)!.value);
    })
    .map(({ name }) => name);
}
