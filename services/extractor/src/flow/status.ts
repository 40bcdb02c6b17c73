/**
 * Each value's status: how far the caller can trust it, from what the
 * extraction knows of it (its evidence, the warnings raised on it, whether a
 * model read the page). A field's status is the worst of its values'; a
 * null field is absent, unless the page was read only in part or the field
 * needed a model that is not there.
 */
import type { ObjectNode } from "@winnow/platform";
import type { Evidence, ExtractResponse, FieldStatus } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { asksConversion, isDerived } from "../engines/model/grounding.js";
import { childPointer, pointerKeys, underOneOf } from "../schema/evidence.js";
import { readTask, type TaskFields } from "./task-fields.js";

/** Worst first: a field holding values of several statuses has the first of them. */
const SEVERITY = ["needs-model", "conflict", "truncated", "unverified", "derived", "found"] as const;
type Status = (typeof SEVERITY)[number] | "absent" | "not-found";

/**
 * The stated confidence (the source's cross-site reliability, prefill-calibration.ts) from which a value the page
 * states is `found`. On the dev corpus (`npm run bench:quality`, status table) stated values from sources at 0.7 or
 * more were right 97.5% of the time; from sources below it, 9 in 10: those stay `unverified`.
 */
const FOUND_FROM = 0.7;

/** Warnings that name a value, by the status they give it. */
const STATUS_OF_WARNING: Readonly<Record<string, Status>> = {
  "merge-conflict": "conflict",
  ungrounded: "unverified",
  "list-incomplete": "truncated",
  "instruction-not-applied": "unverified",
  // A value kept as the page states it, though not in its JSON Schema format (field-rules.ts).
  "format-unmet": "unverified",
};

/** Warnings on the whole page that say part of it was not read: a null field may be in that part. */
const UNREAD = new Set(["content-truncated", "render-incomplete"]);

export interface StatusFacts {
  tree: ObjectNode;
  taskDescription: string;
  /** Whether a null of the field is proven absent from the page (absence.ts). */
  absent: (field: string) => boolean;
}

/** The response with each value's status: in its evidence, and as field_status (every field, and mixed fields' values). */
export function withStatus(response: ExtractResponse, facts: StatusFacts): ExtractResponse {
  const data = JSON.parse(response.dataJson) as Record<string, unknown>;
  const task = readTask(facts.taskDescription, facts.tree);
  const byWarning = new Map(
    response.warnings.flatMap(({ code, path }) => (STATUS_OF_WARNING[code] ? [[path, STATUS_OF_WARNING[code]]] : [])),
  );
  const unread = response.warnings.some(({ code }) => UNREAD.has(code));
  const evidence = response.evidence.map((e) => ({
    ...e,
    status: byWarning.get(e.pointer) ?? valueStatus(e, task),
  }));
  const fieldStatus = facts.tree.fields.flatMap(({ name }): FieldStatus[] => {
    const pointer = childPointer("", name);
    const under = underOneOf([name]);
    const warned = [...byWarning].filter(([path]) => under(path));
    if (response.warnings.some((w) => w.code === "needs-model" && w.path === pointer))
      return [{ pointer, status: "needs-model" }];
    // Null: the page was not read whole; or it is proven not to state the value; or no value was found in it.
    if (holdsNothing(data[name])) {
      if (unread || warned.some(([, s]) => s === "truncated")) return [{ pointer, status: "truncated" }];
      // A value read and dropped (not of the field's type, or not one its enum allows) shows the page states something.
      const dropped = response.warnings.some((w) => w.code === "dropped-value" && under(w.path));
      return [{ pointer, status: !dropped && facts.absent(name) ? "absent" : "not-found" }];
    }
    const values = new Map<string, Status>([
      ...evidence.filter((e) => under(e.pointer)).map((e): [string, Status] => [e.pointer, e.status as Status]),
      ...warned,
    ]);
    // A value no engine gave evidence for is confirmed by nothing.
    const status = worst([...values.values()]) ?? "unverified";
    const inside = [...values].filter(([path]) => path !== pointer);
    const mixed = new Set(inside.map(([, s]) => s)).size > 1;
    return [
      { pointer, status },
      ...(mixed ? inside.filter(([, s]) => s !== "found").map(([path, s]) => ({ pointer: path, status: s })) : []),
    ];
  });
  return { ...response, evidence, fieldStatus };
}

function valueStatus(e: Evidence, task: TaskFields): Status {
  // The pointer's names (its keys that are not indexes), read only where the status depends on them.
  const names = () => pointerKeys(e.pointer).filter((token) => !/^\d+$/.test(token));
  if (e.source === "model") {
    if (e.grounded) return "found";
    return names().some((name) => isDerived(name, task)) ? "derived" : "unverified";
  }
  // Read by an engine from the page: found where the page states it as answered (its evidence checked it) and its
  // source earns the trust across sites.
  if (!e.grounded || e.confidence < FOUND_FROM) return "unverified";
  return names().some(asksConversion) ? "derived" : "found";
}

/** Null, an empty list, or an object of such: no value of the page's. */
function holdsNothing(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.values(value).every(holdsNothing);
  return false;
}

function worst(statuses: Status[]): Status | undefined {
  return SEVERITY.find((status) => statuses.includes(status));
}
