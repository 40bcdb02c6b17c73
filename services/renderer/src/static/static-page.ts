import { Parser } from "htmlparser2";

/** Less visible text than this, with scripts on the page, reads as a shell that JavaScript fills in. */
const NEAR_EMPTY_TEXT_CHARS = 64;
/** Ids frameworks mount their app on. */
const MOUNT_POINT_IDS = new Set(["root", "app", "__next", "__nuxt", "___gatsby", "svelte", "q-app"]);
const NOSCRIPT = new Set(["noscript"]);
const INVISIBLE = new Set(["script", "style", "noscript", "template", "head", "title"]);

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
  const stack: { name: string; mountPoint: boolean; hasContent: boolean }[] = [];
  const inside = (names: Set<string>) => stack.some((entry) => names.has(entry.name));
  const markContent = () => {
    for (const entry of stack) entry.hasContent = true;
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === "script" && isExecutable(attributes.type)) scripts++;
        markContent();
        stack.push({
          name,
          mountPoint: MOUNT_POINT_IDS.has(attributes.id ?? "") || name === "app-root",
          hasContent: false,
        });
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
        let index = stack.length - 1;
        while (index >= 0 && stack[index]!.name !== name) index--;
        if (index < 0) return;
        const [entry] = stack.splice(index);
        if (entry?.name === "title") titleDone = true;
        if (entry?.mountPoint && !entry.hasContent) emptyMountPoint = true;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
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
