/** The per-site table score_multipage.py prints (the multi-page corpus's scorer), read back as figures. */

export interface SiteScore {
  site: string;
  found: number;
  expected: number;
  extra: number;
  duplicates: number;
  /** Listing pages with at least one record found, of the listing's pages. */
  pagesCovered: number;
  pages: number;
  precision: number;
  recall: number;
  f1: number;
  /** Undefined for a site without detail-only fields ("–"). */
  detailF1: number | undefined;
}

const ROW =
  /^(\S+)\s+(\d+)\/(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\/(\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+|\S+)\s*$/;

/** The site rows of the scorer's output (its per-field table and error lines are not rows of this shape). */
export function scorerTable(output: string): SiteScore[] {
  return output.split("\n").flatMap((line) => {
    const cells = ROW.exec(line);
    if (!cells) return [];
    const [, site, found, expected, extra, duplicates, covered, pages, p, r, f1, detail] = cells;
    return [
      {
        site: site!,
        found: Number(found),
        expected: Number(expected),
        extra: Number(extra),
        duplicates: Number(duplicates),
        pagesCovered: Number(covered),
        pages: Number(pages),
        precision: Number(p),
        recall: Number(r),
        f1: Number(f1),
        detailF1: /^\d/.test(detail!) ? Number(detail) : undefined,
      },
    ];
  });
}
