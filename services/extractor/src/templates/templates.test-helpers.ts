/** Learning's two phases on one written page, for tests. */
import type { Field } from "@winnow/platform";
import { loadPage } from "../page/page.js";
import { PageIndex } from "../page/page-index.js";
import { deriveLocators } from "./derive.js";
import type { Locator } from "./locator.js";
import { type Answered, type PageSnapshot, pageSnapshot, type Stored } from "./page-snapshot.js";

/** The locators learning derives for one field's value on a page: its snapshot, then the locators from it. */
export function locatorsOn(index: PageIndex, field: Field, value: unknown): Locator[] {
  return deriveLocators(pageSnapshot(index, [{ field, value }], []), field, value);
}

/** The snapshot of a page written as HTML, for these values sought and locators stored. */
export function snapshotOf(
  html: string,
  sought: Answered[] = [],
  stored: Stored[] = [],
  url = "https://shop.example/p/1",
): PageSnapshot {
  const page = loadPage(html, url);
  return pageSnapshot(new PageIndex(page.$, page.baseUrl), sought, stored);
}
