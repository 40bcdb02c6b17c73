/**
 * The builtin engine's pre-fill in hybrid extraction: which of its answers stand without the model, and which it
 * suggests.
 */
import type { ObjectNode } from "@winnow/platform";
import type { Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { extractBuiltin } from "../engines/builtin/index.js";
import type { Suggestion } from "../engines/model/prompt.js";
import type { Page } from "../page/page.js";
import { PageStatements } from "../page/stated.js";
import { type EvidenceMap, EvidenceTrail, presentIn, underFields, withStatedValues } from "../schema/evidence.js";
import { isComplete, shape } from "../schema/shape.js";
import { calibrated, fieldKinds, isProven } from "./prefill-calibration.js";

export interface Prefill {
  /** The builtin engine's answer, in the schema's shape. */
  data: Record<string, unknown>;
  /** Where its values were read, by JSON pointer, with stated confidences (prefill-calibration.ts). */
  evidence: EvidenceMap;
  /**
   * Top-level fields whose answers stand without the model (complete, and in "proven" mode from a source proven across
   * the corpus's sites: prefill-calibration.ts), in schema order.
   */
  trusted: string[];
  /** Top-level fields asked of the model, in schema order (empty when none). */
  remaining: string[];
}

/** Runs the builtin engine and sorts its answers into those that stand and those the model checks. */
export function prefill(tree: ObjectNode, page: Page, mode: "proven" | "confident"): Prefill {
  const trail = new EvidenceTrail();
  const { data } = shape(tree, extractBuiltin(tree, page, trail));
  const evidence = withStatedValues(presentIn(trail.evidence, data), data, new PageStatements(page));
  const kinds = fieldKinds(tree);
  const trusted = tree.fields
    .filter(
      ({ name }) => isComplete(data[name]) && (mode === "confident" || isProven(evidence, name, kinds.get(name)!)),
    )
    .map(({ name }) => name);
  return {
    data,
    evidence: calibrated(evidence, kinds),
    trusted,
    remaining: tree.fields.map(({ name }) => name).filter((name) => !trusted.includes(name)),
  };
}

/**
 * The builtin engine's answers that do not stand on their own, with where it read them: the model confirms or corrects
 * them.
 */
export function suggestionsOf(pre: Prefill): Suggestion[] {
  return pre.remaining.flatMap((field) => {
    const value = pre.data[field];
    const evidence = [...underFields(pre.evidence, [field]).values()][0];
    return isComplete(value) && evidence ? [{ field, value, source: evidence.source, text: evidence.text }] : [];
  });
}

/** A warning that says which fields the builtin engine answered, so callers see what the model did not. */
export function prefillWarning(pre: Prefill): Warning {
  const total = pre.trusted.length + pre.remaining.length;
  const rest = pre.remaining.length === 0 ? "no model call was needed" : "the model was asked for the rest";
  return {
    code: "prefilled",
    message: `${pre.trusted.length} of ${total} fields answered by the builtin engine (${pre.trusted.join(", ")}); ${rest}`,
    path: "",
  };
}
