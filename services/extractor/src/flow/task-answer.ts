/**
 * The builtin engine's answer to what a task description asks (task-fields.ts), when no model reads the page: a
 * field the task asks to produce answers null with needs-model, rather than whatever the page shows under that name;
 * a unit or format the task asks for is applied where the builtin engine's readers can (normalize.ts), and where they
 * cannot the page's value stands, marked unverified by a warning that says the instruction was not applied.
 */
import { type ObjectNode, parseSchema } from "@winnow/platform";
import type { ExtractResponse, Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { extractBuiltin } from "../engines/builtin/index.js";
import type { Page } from "../page/page.js";
import { childPointer, isUnder } from "../schema/evidence.js";
import { nameHints } from "../schema/field-names.js";
import { currencyCode, isoDate } from "../schema/normalize.js";
import { shape } from "../schema/shape.js";
import { inNamedUnit } from "../schema/units.js";
import { type Instruction, readTask } from "./task-fields.js";

export function withoutModel(
  response: ExtractResponse,
  tree: ObjectNode,
  taskDescription: string,
  page: Page,
): ExtractResponse {
  const task = readTask(taskDescription, tree);
  const needed = tree.fields.map(({ name }) => name).filter((name) => task.produced.has(name));
  if (needed.length === 0 && task.instructed.size === 0) return response;
  const data = JSON.parse(response.dataJson) as Record<string, unknown>;
  for (const name of needed) data[name] = null;
  const warnings: Warning[] = needed.map((name) => ({
    code: "needs-model",
    message: `the task description asks for ${JSON.stringify(name)}, which only a model produces; the builtin engine answered (a model is configured with LLM_BASE_URL)`,
    path: childPointer("", name),
  }));
  for (const [name, instructions] of task.instructed) {
    if (data[name] === null || data[name] === undefined) continue;
    const path = childPointer("", name);
    const text = response.evidence.find((e) => e.pointer === path)?.text;
    // The currency of a value is the one its text states, else the page's (a JSON-LD price states it beside the amount).
    const currency = () => (text === undefined ? undefined : currencyCode(text)) ?? pageCurrency(page);
    for (const instruction of instructions) {
      const applied = apply(instruction, data[name], name, { text, currency });
      if ("value" in applied) data[name] = applied.value;
      else
        warnings.push({
          code: "instruction-not-applied",
          message: `the task description says "${instruction.text}", which the builtin engine could not apply here (${applied.reason}); the value is as the page states it (a model applies it: LLM_BASE_URL)`,
          path,
        });
    }
  }
  return {
    ...response,
    dataJson: JSON.stringify(data),
    warnings: [...response.warnings, ...warnings],
    evidence: response.evidence.filter((e) => !isUnder(e.pointer, needed)),
  };
}

/**
 * The value as the instruction asks, read by the same readers that apply a field name's unit or format; or why not.
 * A field whose own name states a unit or format keeps it: the name is the more specific of the two.
 */
function apply(
  { hints }: Instruction,
  value: unknown,
  name: string,
  read: { text: string | undefined; currency: () => string | undefined },
): { value: unknown } | { reason: string } {
  const own = nameHints(name);
  if (hints.format === "iso8601" && own.format !== "iso8601") {
    if (typeof value !== "string") return { reason: "the value is not a written date" };
    const iso = /^\d{4}-\d{2}-\d{2}/.test(value) ? value : isoDate(value);
    return iso ? { value: iso } : { reason: `${JSON.stringify(value)} does not read as one date` };
  }
  if (hints.currency && !own.currency) {
    const stated = read.currency();
    if (stated === hints.currency) return { value };
    return { reason: stated ? `the page states ${stated} and currencies are not converted` : "no currency is stated" };
  }
  const unit = hints.durationUnit ?? hints.measureUnit;
  if (unit && !own.durationUnit && !own.measureUnit) {
    const converted = inNamedUnit(read.text ?? String(value), { ...hints, subject: [] });
    if (typeof value === "number" && converted !== undefined) return { value: converted };
    return { reason: `no quantity in ${unit} is read from the value` };
  }
  if (hints.scale && !own.scale) return { reason: "the page's own scale is not known" };
  return { value };
}

const CURRENCY = parseSchema({ currency: "string" });

/** The currency the page states for its price, as the builtin engine reads a `currency` field. */
function pageCurrency(page: Page): string | undefined {
  const { currency } = shape(CURRENCY, extractBuiltin(CURRENCY, page)).data;
  return typeof currency === "string" ? currencyCode(currency) : undefined;
}
