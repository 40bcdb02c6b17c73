/**
 * Where a page shows a list of texts, on its snapshot: around an element
 * that shows the first item, the container holding exactly the list's items
 * under one step, with the items it reads.
 */
import type { Field } from "@winnow/platform";
import type { Element } from "domhandler";
import { textOf } from "../page/elements.js";
import { labelKey } from "../page/page-index.js";
import { stepFinds } from "./element-locators.js";
import type { PageSnapshot } from "./page-snapshot.js";
import { MAX_TARGETS, type Target } from "./value-targets.js";
import { readAs, sameValue } from "./values.js";

/** Levels climbed from a list's first item to its container. */
const MAX_LEVELS = 4;

/** The containers holding exactly the list's items under one step, each from an element that shows the first. */
export function listTargets(snapshot: PageSnapshot, field: Field, value: string[]): Target[] {
  const found: Target[] = [];
  const wanted = readAs(field, value);
  for (const element of snapshot.shownBy.get(labelKey(value[0]!)) ?? []) {
    if (found.length >= MAX_TARGETS) break;
    const step = snapshot.steps.get(element)!.relative;
    let container = element.parent;
    for (let level = 0; level < MAX_LEVELS && container?.type === "tag"; level += 1, container = container.parent) {
      const shown = stepFinds(snapshot, container as Element, step)
        .map((item) => snapshot.texts.get(item) ?? textOf(item))
        .filter((text) => text !== "");
      if (shown.length > value.length) break;
      if (shown.length < value.length) continue;
      const read = readAs(field, shown);
      if (sameValue(read, wanted)) {
        found.push({ element: container as Element, reading: { items: step.css }, raw: shown });
        break;
      }
    }
  }
  return found;
}
