import { Parser } from "htmlparser2";

/** Less visible text than this, with scripts on the page, reads as a shell that JavaScript fills in. */
const NEAR_EMPTY_TEXT_CHARS = 64;
/** Ids frameworks mount their app on. */
const MOUNT_POINT_IDS = new Set(["root", "app", "__next", "__nuxt", "___gatsby", "svelte", "q-app"]);
const NOSCRIPT = new Set(["noscript"]);
const INVISIBLE = new Set(["script", "style", "noscript", "template", "head", "title"]);
/**
 * Nesting deeper than browsers build (Blink's parser stops nesting at 512) is a hostile page: its inspection stops
 * there and the page is judged by what came before, since the parser's own work grows with depth. Checked between
 * chunks of the page.
 */
const MAX_DEPTH = 512;
const CHUNK_CHARS = 16_384;

export interface StaticPageShape {
  /**
   * True when the page needs a browser to show its content: an empty or
   * near-empty body on a page with scripts, an empty framework mount point,
   * or a <noscript> that asks for JavaScript.
   */
  needsBrowser: boolean;
  title: string;
}

/** Reads a statically fetched HTML page for its title and whether it needs a browser. */
export function inspectStaticPage(html: string): StaticPageShape {
  let title = "";
  let titleDone = false;
  let scripts = 0;
  let visibleText = 0;
  let noscriptAsksForJs = false;
  let emptyMountPoint = false;
  let tooDeep = false;
  // Each open element costs O(1) whatever the depth (100k nested elements are a page, not a hang): what holds
  // content is the bottom `marked` entries of the stack (marking an element marks all that hold it), and the
  // elements open by name are counted.
  const stack: { name: string; mountPoint: boolean }[] = [];
  let marked = 0;
  const open = new Map<string, number>();
  const inside = (names: Set<string>) => [...names].some((name) => (open.get(name) ?? 0) > 0);
  const markContent = () => {
    marked = stack.length;
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === "script" && isExecutable(attributes.type)) scripts++;
        markContent();
        if (stack.length >= MAX_DEPTH) tooDeep = true;
        stack.push({ name, mountPoint: MOUNT_POINT_IDS.has(attributes.id ?? "") || name === "app-root" });
        open.set(name, (open.get(name) ?? 0) + 1);
      },
      ontext(text) {
        // The parser may hand over one text in pieces (around entities, for one).
        if (stack.at(-1)?.name === "title" && !titleDone) title += text;
        const trimmed = text.trim();
        if (!trimmed) return;
        if (inside(NOSCRIPT)) {
          if (/javascript|\bjs\b/i.test(trimmed)) noscriptAsksForJs = true;
          return;
        }
        if (inside(INVISIBLE)) return;
        visibleText += trimmed.length;
        markContent();
      },
      onclosetag(name) {
        if (!open.get(name)) return;
        let index = stack.length - 1;
        while (stack[index]!.name !== name) index--;
        const closed = stack.splice(index);
        for (const entry of closed) open.set(entry.name, open.get(entry.name)! - 1);
        const entry = closed[0]!;
        if (entry.name === "title") titleDone = true;
        if (entry.mountPoint && index >= marked) emptyMountPoint = true;
        marked = Math.min(marked, index);
      },
    },
    { decodeEntities: true },
  );
  for (let at = 0; at < html.length && !tooDeep; at += CHUNK_CHARS) parser.write(html.slice(at, at + CHUNK_CHARS));
  parser.end();
  const needsBrowser =
    noscriptAsksForJs || emptyMountPoint || visibleText === 0 || (scripts > 0 && visibleText < NEAR_EMPTY_TEXT_CHARS);
  return { needsBrowser, title: title.trim().replace(/\s+/g, " ") };
}

/** Data blocks such as JSON-LD are scripts by tag only; they need no browser. */
function isExecutable(type: string | undefined): boolean {
  const mediaType = (type ?? "").trim().toLowerCase();
  return (
    mediaType === "" || mediaType === "module" || mediaType.includes("javascript") || mediaType.includes("ecmascript")
  );
}
