/**
 * Figures in markdown that are generated, not written: `<!-- figure:NAME -->0.891<!-- /figure -->` inline, and
 * `<!-- figures:NAME -->` … `<!-- /figures:NAME -->` around a generated block (a table). `npm run docs` rewrites them
 * and a test fails when the committed text differs from what the figures render.
 */

/** A figure's text by its name (inline figures are one line; blocks may span lines). */
export type Figures = Readonly<Record<string, () => string>>;

/** A generated figure whose committed text differs from what it renders now. */
export interface Drift {
  name: string;
  committed: string;
  rendered: string;
}

// An inline figure is on one line, so that a marker named in prose never reaches another figure's end.
const INLINE = /(<!-- figure:([\w.-]+) -->)([^\n]*?)(<!-- \/figure -->)/g;
const BLOCK = /(<!-- figures:([\w.-]+) -->\n)([\s\S]*?)(\n<!-- \/figures:\2 -->)/g;

/** The document with every marked figure rendered, and the figures that changed. Unknown names throw. */
export function renderFigures(markdown: string, figures: Figures): { text: string; drift: Drift[] } {
  const drift: Drift[] = [];
  const replace = (_m: string, open: string, name: string, committed: string, close: string) => {
    const render = figures[name];
    if (!render) throw new Error(`no figure is named ${name}`);
    const rendered = render();
    if (rendered !== committed) drift.push({ name, committed, rendered });
    return `${open}${rendered}${close}`;
  };
  const text = markdown.replace(BLOCK, replace).replace(INLINE, replace);
  return { text, drift };
}
