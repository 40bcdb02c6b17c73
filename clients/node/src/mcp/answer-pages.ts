/** What one answer says: the data and, by JSON pointer, each value's status (and evidence when asked), the warnings. */
export interface Answer {
  data: unknown;
  status: Record<string, string>;
  warnings: { code: string; path?: string; message?: string }[];
  evidence?: Record<string, unknown>;
}

/** A list cut into pages: where it is, how long it is, and the cursor of its second page (null when it fits one). */
export interface ListPaging {
  pointer: string;
  total: number;
  returned: number;
  next_cursor: string | null;
}

/** A later page of a list: its items, from `offset`, with what the answer says of them. */
export interface ListPage extends Omit<Answer, "data"> {
  pointer: string;
  offset: number;
  total: number;
  items: unknown[];
  next_cursor: string | null;
}

export interface PageBounds {
  /** Most items of a list in one page. */
  items: number;
  /** Most bytes of a list's items (as JSON) in one page; a single item larger than this is a page of its own. */
  bytes: number;
}

export interface StoreBounds {
  /** How long a cursor can be read after its answer. */
  ttlMs: number;
  /** Answers kept per scope (an account): its oldest is forgotten past this. */
  answersPerScope: number;
  /** Bytes of later pages kept in all: the oldest answers are forgotten past this. */
  totalBytes: number;
}

/** A list's page: which of its items, and what the answer says of those items. */
interface StoredPage extends Omit<ListPage, "next_cursor"> {}

interface StoredAnswer {
  id: string;
  scope: string;
  expiresAt: number;
  bytes: number;
  /** Per paged list, its pages (the first is answered at once, kept for its shape only). */
  lists: StoredPage[][];
}

/** Where the later parts of a long markdown are, among the answer's lists (no JSON pointer into data starts so). */
export const MARKDOWN_POINTER = "#markdown";

/** An unknown or expired cursor: the caller asks the answer again (a tool error, not a crash). */
export class CursorError extends Error {
  override name = "CursorError";
}

/**
 * Keeps the later pages of long lists for a while, so that an answer is never truncated silently and never floods the
 * reader: the first page goes out at once with a cursor per list, each cursor reads its list's next page. Held in the
 * memory of the process that answered (an MCP server per user over stdio, or the gateway), bounded per scope, in
 * total and in time: a re-scrape could answer differently, so pages are the answer's own, not read again.
 */
export class AnswerPages {
  readonly #answers = new Map<string, StoredAnswer>();
  #bytes = 0;

  constructor(
    readonly pages: PageBounds,
    readonly store: StoreBounds,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The answer with each list beyond a page cut to its first page, and how each such list goes on; the page's
   * markdown, when asked, likewise: beyond a page's bytes it is cut at a line's end, and its later parts are a list of
   * their lines at MARKDOWN_POINTER.
   */
  split(scope: string, answer: Answer, markdown?: string): { answer: Answer; lists: ListPaging[]; markdown?: string } {
    const lines = markdown?.split("\n") ?? [];
    const text = cutPages(lines, { items: Number.POSITIVE_INFINITY, bytes: this.pages.bytes });
    const paged = [
      ...longLists(answer.data, "", this.pages).map((list) => ({ ...list, cut: cutPages(list.items, this.pages) })),
      ...(text.length > 1 ? [{ pointer: MARKDOWN_POINTER, items: lines, cut: text }] : []),
    ];
    const firstText = markdown === undefined ? {} : { markdown: lines.slice(0, text[0]?.[1] ?? 0).join("\n") };
    if (paged.length === 0) return { answer, lists: [], ...firstText };
    let data = structuredClone(answer.data);
    const lists: StoredPage[][] = paged.map(({ pointer, items, cut }) =>
      cut.map(([offset, end]) => ({
        pointer,
        offset,
        total: items.length,
        items: items.slice(offset, end),
        ...aboutItems(answer, pointer, offset, end),
      })),
    );
    // What the answer says of items beyond a list's first page goes with their page, not with the first answer.
    const later = (path: string | undefined) =>
      path !== undefined &&
      lists.some((pages) => pages.slice(1).some((page) => within(path, page.pointer, page.offset, page.total)));
    const kept = (byPointer: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(byPointer).filter(([pointer]) => !later(pointer)));
    for (const pages of lists)
      if (pages[0]!.pointer !== MARKDOWN_POINTER) data = setAt(data, pages[0]!.pointer, pages[0]!.items);
    const first: Answer = {
      data,
      status: kept(answer.status) as Record<string, string>,
      warnings: answer.warnings.filter((warning) => !later(warning.path)),
      ...(answer.evidence ? { evidence: kept(answer.evidence) } : {}),
    };

    const stored = this.#keep(scope, lists);
    return {
      answer: first,
      ...firstText,
      lists: lists.map((pages, listNo) => ({
        pointer: pages[0]!.pointer,
        total: pages[0]!.total,
        returned: pages[0]!.items.length,
        next_cursor: pages.length > 1 ? cursorOf(stored, listNo, 1) : null,
      })),
    };
  }

  /** The page a cursor names, and the cursor of the page after it. */
  read(scope: string, cursor: string): ListPage {
    const [id, listNo, pageNo] = cursor.split(".");
    const stored = id === undefined ? undefined : this.#answers.get(id);
    if (!stored || stored.scope !== scope || stored.expiresAt <= this.now())
      throw new CursorError(
        `The cursor ${JSON.stringify(cursor)} is unknown or expired (pages are kept ${this.store.ttlMs / 1000} s, ` +
          `${this.store.answersPerScope} answers per account, on the server that answered): ask the answer again.`,
      );
    const pages = stored.lists[Number(listNo)];
    const page = pages?.[Number(pageNo)];
    if (!pages || !page || Number(pageNo) < 1)
      throw new CursorError(`The cursor ${JSON.stringify(cursor)} is not valid.`);
    return {
      ...page,
      next_cursor: Number(pageNo) + 1 < pages.length ? cursorOf(stored, Number(listNo), Number(pageNo) + 1) : null,
    };
  }

  #keep(scope: string, lists: StoredPage[][]): StoredAnswer {
    const now = this.now();
    for (const [id, stored] of this.#answers) if (stored.expiresAt <= now) this.#forget(id);
    const bytes = lists.reduce((sum, pages) => sum + pages.slice(1).reduce((s, page) => s + jsonBytes(page), 0), 0);
    const stored: StoredAnswer = { id: randomId(), scope, expiresAt: now + this.store.ttlMs, bytes, lists };
    const ofScope = [...this.#answers.values()].filter((answer) => answer.scope === scope);
    for (const old of ofScope.slice(0, Math.max(0, ofScope.length - this.store.answersPerScope + 1)))
      this.#forget(old.id);
    // Map order is insertion order: the oldest answers go first.
    for (const id of this.#answers.keys()) {
      if (this.#bytes + bytes <= this.store.totalBytes) break;
      this.#forget(id);
    }
    this.#answers.set(stored.id, stored);
    this.#bytes += bytes;
    return stored;
  }

  #forget(id: string): void {
    const stored = this.#answers.get(id);
    if (!stored) return;
    this.#answers.delete(id);
    this.#bytes -= stored.bytes;
  }
}

function cursorOf(stored: StoredAnswer, listNo: number, pageNo: number): string {
  return `${stored.id}.${listNo}.${pageNo}`;
}

/** The lists of a value that do not fit one page, outermost first (a list inside a long list's item stays in it). */
function longLists(value: unknown, pointer: string, bounds: PageBounds): { pointer: string; items: unknown[] }[] {
  if (Array.isArray(value)) return cutPages(value, bounds).length > 1 ? [{ pointer, items: value }] : [];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) => longLists(inner, `${pointer}/${escapePointer(key)}`, bounds));
}

/** [start, end) of each page: at most `items` items and `bytes` bytes, at least one item. */
function cutPages(items: unknown[], bounds: PageBounds): [number, number][] {
  const pages: [number, number][] = [];
  let start = 0;
  let bytes = 0;
  items.forEach((item, index) => {
    const size = jsonBytes(item) + 1;
    if (index > start && (index - start >= bounds.items || bytes + size > bounds.bytes)) {
      pages.push([start, index]);
      start = index;
      bytes = 0;
    }
    bytes += size;
  });
  if (items.length > 0) pages.push([start, items.length]);
  return pages;
}

/** What the answer says of items [offset, end) of the list at `pointer`. */
function aboutItems(answer: Answer, pointer: string, offset: number, end: number): Omit<Answer, "data"> {
  const inPage = (path: string | undefined) => path !== undefined && within(path, pointer, offset, end);
  const pick = (byPointer: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(byPointer).filter(([path]) => inPage(path)));
  return {
    status: pick(answer.status) as Record<string, string>,
    warnings: answer.warnings.filter((warning) => inPage(warning.path)),
    ...(answer.evidence ? { evidence: pick(answer.evidence) } : {}),
  };
}

/** Whether `path` is at or under an item [offset, end) of the list at `pointer`. */
function within(path: string, pointer: string, offset: number, end: number): boolean {
  if (!path.startsWith(`${pointer}/`)) return false;
  const index = /^(\d+)(?:\/|$)/.exec(path.slice(pointer.length + 1))?.[1];
  return index !== undefined && Number(index) >= offset && Number(index) < end;
}

/** `root` with the value at `pointer` replaced (the root itself when the pointer is ""). */
function setAt(root: unknown, pointer: string, value: unknown): unknown {
  const keys = pointer.split("/").slice(1).map(unescapePointer);
  const last = keys.pop();
  if (last === undefined) return value;
  let node = root as Record<string, unknown>;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  node[last] = value;
  return root;
}

const escapePointer = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
const unescapePointer = (key: string) => key.replaceAll("~1", "/").replaceAll("~0", "~");
const encoder = new TextEncoder();
const jsonBytes = (value: unknown) => encoder.encode(JSON.stringify(value) ?? "").length;
/** 96 random bits, in hex: a cursor cannot be guessed. */
const randomId = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, "0")).join("");
