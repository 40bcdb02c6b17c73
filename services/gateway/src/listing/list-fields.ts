/** The parts of a schema a whole listing reads: its lists of records, and the field that links a record to its page. */
import type { Field, ObjectNode } from "@winnow/platform";

/** A top-level list of records: a field whose items are objects. */
export interface ListField {
  name: string;
  item: ObjectNode;
}

/** The field names that hold a record's own page, in the order they are preferred. */
export const RECORD_LINK_NAMES = ["url", "link", "href", "permalink", "detail_url", "page_url"];

export function listFields(tree: ObjectNode): ListField[] {
  return tree.fields.flatMap((field: Field) =>
    field.node.kind === "array" && field.node.items.kind === "object"
      ? [{ name: field.name, item: field.node.items }]
      : [],
  );
}

/** The string field that holds each record's own page, if the record has one. */
export function recordLinkField(list: ListField): string | undefined {
  const strings = new Set(
    list.item.fields
      .filter((f) => f.node.kind === "scalar" && f.node.type === "string")
      .map((f) => f.name.toLowerCase()),
  );
  const name = RECORD_LINK_NAMES.find((candidate) => strings.has(candidate));
  return name && list.item.fields.find((f) => f.name.toLowerCase() === name)?.name;
}
