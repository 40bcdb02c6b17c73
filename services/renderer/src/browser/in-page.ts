/**
 * What the browser renderer runs inside the page (addInitScript, evaluate,
 * waitForFunction). Playwright sends each function's source to the page and
 * runs it there, so each uses only the page's globals and its own arguments:
 * never an import or another binding of this module (a constant the renderer
 * shares with it is passed in, or written out).
 */

/**
 * Where noteScrollListeners leaves its mark on a page's window (not enumerable, so the page's own code does not list
 * it).
 */
export const SCROLL_LISTENER_MARK = "__winnowReactsToScroll";

/**
 * Runs in every document before its scripts: marks the window once the page creates an
 * IntersectionObserver or listens for scroll or wheel events on the window or document,
 * the ways content is loaded on scroll. The page's functions keep working unchanged.
 */
export function noteScrollListeners(): void {
  const mark = () => Object.defineProperty(window, "__winnowReactsToScroll", { value: true, configurable: true });
  const Observer = window.IntersectionObserver;
  if (Observer) {
    window.IntersectionObserver = class extends Observer {
      constructor(...args: ConstructorParameters<typeof IntersectionObserver>) {
        super(...args);
        mark();
      }
    };
  }
  for (const target of [window, document]) {
    const add = target.addEventListener;
    target.addEventListener = function (this: EventTarget, ...args: Parameters<typeof add>) {
      if (args[0] === "scroll" || args[0] === "wheel") mark();
      return add.apply(this, args);
    };
  }
}

/** Where noteActivity keeps the page's recent activity on its window (not enumerable). */
export const ACTIVITY_MARK = "__winnowActivity";

/**
 * Runs in every document before its scripts: keeps which timers due within `soonMs` are pending (a page that fills
 * itself in 300 ms after load does it from a timer) and when the page was last active: its DOM gained or lost nodes
 * or text, or one of those timers ran (what it started, a request, may not have reached the renderer yet), for the
 * renderer to settle on (see pageActivity). Attribute changes are left out: animations and carousels change
 * attributes forever and add nothing to read. setTimeout and clearTimeout keep working unchanged.
 */
export function noteActivity(soonMs: number): void {
  const activity = { lastActive: performance.now(), timers: new Set<number>() };
  Object.defineProperty(window, "__winnowActivity", { value: activity });
  new MutationObserver(() => {
    activity.lastActive = performance.now();
  }).observe(document, { childList: true, characterData: true, subtree: true });
  const set = window.setTimeout;
  const clear = window.clearTimeout;
  window.setTimeout = ((handler: TimerHandler, delay?: number, ...args: unknown[]) => {
    if (typeof handler !== "function" || !(Number(delay ?? 0) <= soonMs)) return set(handler, delay, ...args);
    const id = set(
      (...callArgs: unknown[]) => {
        activity.timers.delete(id);
        activity.lastActive = performance.now();
        Reflect.apply(handler, window, callArgs); // as the browser calls it
      },
      delay,
      ...args,
    );
    activity.timers.add(id);
    return id;
  }) as typeof window.setTimeout;
  window.clearTimeout = ((id?: number) => {
    if (id !== undefined) activity.timers.delete(id);
    clear(id);
  }) as typeof window.clearTimeout;
}

/**
 * Runs in the page: how long since the page was last active, and whether it is still busy: not yet loaded (its load
 * handlers, which often start the timers, have not run) or a timer due soon pending (see noteActivity); a document
 * without the mark (not an HTML page) counts as quiet.
 */
export function pageActivity(mark: string): { quietForMs: number; busy: boolean } {
  const activity = (window as unknown as Record<string, { lastActive: number; timers: Set<number> } | undefined>)[mark];
  if (!activity) return { quietForMs: Number.POSITIVE_INFINITY, busy: false };
  return {
    quietForMs: performance.now() - activity.lastActive,
    busy: document.readyState !== "complete" || activity.timers.size > 0,
  };
}

/** Runs in the page: whether an element matches the selector (wait_for's condition). */
export function selectorPresent(selector: string): boolean {
  return document.querySelector(selector) !== null;
}

/** Runs in the page: whether the selector parses, checked on the blank page before navigating. */
export function selectorParses(selector: string): boolean {
  try {
    document.querySelector(selector);
    return true;
  } catch {
    return false;
  }
}

/** Runs in the page: scrolls one screen down; false when already at the bottom or the page did not move. */
export function scrollOneScreen(): boolean {
  const before = scrollY;
  if (before + innerHeight >= document.documentElement.scrollHeight) return false;
  scrollBy(0, innerHeight);
  return scrollY > before;
}

/**
 * Runs in the page: outlines the elements (a selector that does not parse is skipped) and returns the document's
 * height.
 */
export function outlineElements(selectors: string[]): number {
  for (const selector of selectors) {
    try {
      for (const element of document.querySelectorAll<HTMLElement>(selector)) {
        element.style.setProperty("outline", "3px solid #e8590c", "important");
        element.style.setProperty("outline-offset", "1px", "important");
      }
    } catch {
      // Not a selector this browser reads: nothing to outline.
    }
  }
  return Math.max(1, document.documentElement.scrollHeight);
}

/** What readDocument answers instead of the document when the page should be scrolled first. */
export const SCROLL_FIRST = "scroll first";

/** What readDocument answers, with `parsedOnly`, while the parser has not reached the document's end. */
export const STILL_PARSING = "still parsing";

/**
 * Runs in the page. With `parsedOnly`, STILL_PARSING while the document is
 * still being parsed (a script that never arrives holds the parser, so the DOM
 * so far lacks what the page sent after it). With `scrollFirst`, answers SCROLL_FIRST when scrolling may
 * load more: the page reacts to scrolling (it watches elements or the window's
 * scroll, see noteScrollListeners, or has lazy frames) and is taller than the
 * screen; on any other page scrolling changes nothing and costs a pause per screen.
 * Otherwise the title and the serialized DOM with open shadow roots (as
 * declarative shadow DOM) and the documents of same-origin iframes inlined
 * after their frames; the HTML is null when it would pass maxChars.
 */
export function readDocument({
  maxChars,
  scrollFirst,
  mark,
  parsedOnly = false,
}: {
  maxChars: number;
  scrollFirst: boolean;
  mark: string;
  parsedOnly?: boolean;
}): { html: string | null; title: string } | typeof SCROLL_FIRST | typeof STILL_PARSING {
  // The constants themselves do not exist in the page.
  if (parsedOnly && document.readyState === "loading") return "still parsing";
  if (scrollFirst) {
    const reactsToScroll =
      (window as unknown as Record<string, unknown>)[mark] === true ||
      document.querySelector('iframe[loading="lazy" i]') !== null;
    if (reactsToScroll && scrollY + innerHeight < document.documentElement.scrollHeight) return "scroll first";
  }
  const shadowRoots = (root: Document | ShadowRoot | Element): ShadowRoot[] =>
    [...root.querySelectorAll("*")].flatMap((element) =>
      element.shadowRoot ? [element.shadowRoot, ...shadowRoots(element.shadowRoot)] : [],
    );
  const inlineFrames = (doc: Document): void => {
    for (const frame of doc.querySelectorAll("iframe")) {
      let inner: Document | null = null;
      try {
        inner = frame.contentDocument; // null, or a throw, for cross-origin frames
      } catch {
        inner = null;
      }
      if (!inner?.body) continue;
      inlineFrames(inner);
      const copy = doc.createElement("div");
      copy.setAttribute("data-winnow-frame", frame.src || "about:srcdoc");
      copy.innerHTML = inner.body.getHTML({ shadowRoots: shadowRoots(inner) });
      frame.after(copy);
    }
  };
  inlineFrames(document);
  const root = document.documentElement;
  const inner = root.getHTML({ shadowRoots: shadowRoots(document) });
  const shell = (root.cloneNode(false) as Element).outerHTML;
  const doctype = document.doctype ? `<!DOCTYPE ${document.doctype.name}>` : "";
  const html = `${doctype}${shell.slice(0, shell.lastIndexOf("</"))}${inner}${shell.slice(shell.lastIndexOf("</"))}`;
  return { html: html.length > maxChars ? null : html, title: document.title };
}
