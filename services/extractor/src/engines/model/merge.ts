/**
 * Merges the answers for the parts of a long page, in code (no further model
 * call): array items are concatenated and deduplicated after normalisation,
 * a scalar comes from the first part that has one, and a different value in
 * a later part is reported as a "merge-conflict" warning.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import type { Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { valueKey } from "../../page/text-match.js";

/** `answers` are already shaped to the tree (shape.ts), in page order. */
export function mergeAnswers(
  tree: ObjectNode,
  answers: Array<Record<string, unknown>>,
): { data: Record<string, unknown>; warnings: Warning[] } {
  if (answers.length === 1) return { data: answers[0]!, warnings: [] };
  const warnings: Warning[] = [];
  const data = mergeObject(tree, answers, "", warnings);
  return { data, warnings };
}

function mergeObject(
  node: ObjectNode,
  values: Array<Record<string, unknown>>,
  path: string,
  warnings: Warning[],
): Record<string, unknown> {
  // fromEntries defines own properties: a field named "__proto__" stays data.
  return Object.fromEntries(
    node.fields.map((field) => [
      field.name,
      mergeNode(
        field.node,
        values.map((value) => (Object.hasOwn(value, field.name) ? value[field.name] : null)),
        `${path}/${field.name}`,
        warnings,
      ),
    ]),
  );
}

function mergeNode(node: SchemaNode, values: unknown[], path: string, warnings: Warning[]): unknown {
  const present = values.filter((value) => value !== null && value !== undefined);
  if (present.length === 0) return null;
  switch (node.kind) {
    case "object":
      return mergeObject(node, present as Array<Record<string, unknown>>, path, warnings);
    case "array":
    case "any-array": {
      const seen = new Set<string>();
      return (present as unknown[][]).flat().filter((item) => {
        const key = valueKey(item);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    }
    case "scalar":
    case "any-object": {
      const [first, ...rest] = present;
      const others = [
        ...new Set(rest.filter((value) => valueKey(value) !== valueKey(first)).map((value) => JSON.stringify(value))),
      ];
      if (others.length > 0) {
        warnings.push({
          code: "merge-conflict",
          message: `parts of the page disagree: kept ${JSON.stringify(first)} from the first part that has it, not ${others.join(", ")}`,
          path,
        });
      }
      return first;
    }
  }
}
