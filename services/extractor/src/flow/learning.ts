/**
 * The learning stage, off the caller's path: the values known with
 * confidence on this page teach its template. They are the model's answers
 * that grounding found on the page (null for a field it read the whole page
 * for and did not find), and the builtin engine's answers that the page
 * states in its structured data. A page with none teaches nothing and is
 * not counted. A link is learned as the absolute URL it is.
 */
import { createHash } from "node:crypto";
import type { ObjectNode } from "@winnow/platform";
import { absoluteUrl, type Page } from "../page/page.js";
import { PageUrls } from "../page/page-urls.js";
import { isRecord } from "../page/text-match.js";
import type { TemplateLearner } from "../templates/learner.js";
import { StatedValues } from "../templates/stated.js";
import type { EngineAnswer } from "./job.js";
import type { TemplateAnswer } from "./template-answer.js";

export async function learnFromPage(
  templates: TemplateLearner,
  template: TemplateAnswer,
  tree: ObjectNode,
  page: Page,
  rest: EngineAnswer,
  asked: string[],
): Promise<void> {
  const data = JSON.parse(rest.response.dataJson) as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const { model } = rest;
  if (model) {
    for (const name of asked) {
      // A null says the field is absent only when the model read the whole page.
      if (
        rest.prefilledFields.includes(name) ||
        model.ungrounded.has(name) ||
        (data[name] === null && !model.wholePageRead)
      )
        continue;
      values[name] = data[name] ?? null;
    }
  }
  const byBuiltin = model ? rest.prefilledFields : asked.filter((name) => Object.hasOwn(data, name));
  if (byBuiltin.length > 0) {
    const stated = new StatedValues(page);
    for (const name of byBuiltin) if (stated.states(data[name])) values[name] = data[name];
  }
  if (Object.keys(values).length === 0) return;
  const linked = withLinksResolved(values, page);
  // A page is known by its address; without one, by its text (a caller sending the same HTML again).
  const id = page.url?.href ?? createHash("sha256").update(page.$.text()).digest("hex");
  await templates.learn(template.key, template.layout, tree, template.index, linked, id);
}

/**
 * The values with each link the page has, written relative to the site's root (as a model may write a record's
 * link, "/forum/viewtopic.php?t=675"), as the absolute URL its locators read ("viewtopic.php?t=675" resolved): both
 * are one address, and a template learns and is checked in one form.
 */
function withLinksResolved(values: Record<string, unknown>, page: Page): Record<string, unknown> {
  let links: PageUrls | undefined;
  const resolved = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolved);
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, resolved(v)]));
    if (typeof value !== "string" || !/^\/[^\s/]\S*$/.test(value)) return value;
    links ??= new PageUrls(page, { declared: false });
    return links.has(value) ? (absoluteUrl(value, page.baseUrl) ?? value) : value;
  };
  return resolved(values) as Record<string, unknown>;
}
