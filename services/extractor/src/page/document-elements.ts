/**
 * Every element of a parsed page in document order, walked once per page:
 * readers that look for a few tags or attributes (the label reader's tables,
 * rows and lines; microdata's scopes; hCards) filter this list instead of
 * each running a selector query over the whole document, which on a page of
 * 30,000 records cost as much as reading its list. Kept by document, weakly:
 * a page's list goes with it.
 */
import type { CheerioAPI } from "cheerio";
import { type ChildNode, type Element, hasChildren, isTag } from "domhandler";

const byDocument = new WeakMap<object, Element[]>();

/** The page's elements in document order, as a selector query over the whole page finds them. */
export function documentElements($: CheerioAPI): Element[] {
  const root = $.root()[0]!;
  let elements = byDocument.get(root);
  if (!elements) {
    elements = [];
    const stack: ChildNode[] = [];
    for (let i = root.children.length - 1; i >= 0; i -= 1) stack.push(root.children[i]!);
    for (let node = stack.pop(); node; node = stack.pop()) {
      if (isTag(node)) elements.push(node);
      if (hasChildren(node)) for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
    byDocument.set(root, elements);
  }
  return elements;
}

/** The page's elements of these tags, in document order (`$("li, p, div")`). */
export function elementsOfTags($: CheerioAPI, tags: ReadonlySet<string>): Element[] {
  return documentElements($).filter((element) => tags.has(element.tagName));
}
