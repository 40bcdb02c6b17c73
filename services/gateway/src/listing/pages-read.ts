/** What a whole listing read, as the answer states it in the Winnow-Pages header. */
import type { ExtractResponse } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { serializeDictionary } from "structured-headers";

export const PAGES_HEADER = "Winnow-Pages";

/** Pages read: listing pages, records' own pages, pages that failed (either kind), and pages a model read. */
export interface PagesRead {
  listing: number;
  details: number;
  failed: number;
  model: number;
}

/** 1 when a model read the page for its answer (it used tokens), else 0 (a template, the builtin engine, the cache). */
export function readByModel(result: ExtractResponse): number {
  return (result.usage?.totalTokens ?? 0) > 0 ? 1 : 0;
}

/** The Winnow-Pages header (an RFC 8941 dictionary): `listing=12, details=136, failed=1, model=3`. */
export function pagesHeader(pages: PagesRead): string {
  return serializeDictionary({ ...pages });
}
