import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@winnow/platform";
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium } from "playwright-core";
import { browserEnv } from "./browser-env.js";
import { overloaded } from "./overloaded.js";
import { browserMemoryBytes } from "./process-memory.js";

/** Everything the browser sends goes through the egress proxy; nothing may leave beside it. */
function egressArgs(proxyUrl: string): string[] {
  return [
    proxyArg(proxyUrl),
    // Chromium bypasses proxies for loopback unless told not to; the guard must see those requests too.
    "--proxy-bypass-list=<-loopback>",
    // WebRTC may only use the proxy (TCP), never its own UDP sockets.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  ];
}

/** Also tells this renderer's browsers apart from any other process this one started. */
export const proxyArg = (proxyUrl: string) => `--proxy-server=${proxyUrl}`;

export const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  // No update checks, field trials or sync: the renderer may run without internet.
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/**
 * Playwright turns Chromium's popup blocker off; kept on, a popup no user
 * gesture asked for (window.open, a scripted target=_blank click) never
 * opens, so a page that asks for hundreds cannot hold the render.
 */
const DROPPED_DEFAULT_ARGS = ["--disable-popup-blocking"];

const RELAUNCH_BACKOFF_MS = [250, 1000, 5000, 15_000];

export interface BrowserHostOptions {
  executablePath: string;
  /** The egress proxy every request of the browser goes through. */
  proxyUrl: string;
  /** A fresh browser replaces the current one after this many contexts, shedding whatever the old one leaked. */
  recycleAfterPages: number;
  /**
   * ... or once the browser's processes hold more than this much memory, shared pages split among them (checked every
   * few pages).
   */
  recycleAtMemoryBytes: number;
  /** V8's heap limit in each renderer process: a page past it crashes its tab, not the pod. */
  maxHeapMb: number;
  logger: Logger;
}

/** How long a retired browser may keep serving its last renders before it is closed anyway. */
const RETIRE_GRACE_MS = 60_000;
/** Reading /proc costs a little; memory is checked on every this many pages. */
const MEMORY_CHECK_EVERY_PAGES = 10;

/**
 * Owns the one Chromium of this process: launches it, relaunches it when it
 * disconnects or crashes, and hands out fresh contexts.
 */
export class BrowserHost {
  #browser: Browser | undefined;
  #closing = false;
  #pagesServed = 0;
  #recycling = false;
  /** Contexts being made or open, per browser: a retired browser closes only when it has none. */
  readonly #contextsInUse = new Map<Browser, number>();
  readonly #readyListeners: ((ready: boolean) => void)[] = [];

  constructor(private readonly options: BrowserHostOptions) {}

  /** Told when the browser comes up (true) and when it goes away (false). */
  onReadyChange(listener: (ready: boolean) => void): void {
    this.#readyListeners.push(listener);
  }

  /** Launches the browser; rejects when it cannot start. */
  async start(): Promise<void> {
    this.#adopt(await this.#launch());
  }

  /** A fresh, isolated context; "overloaded" while the browser is (re)starting. */
  async newContext(options: BrowserContextOptions): Promise<BrowserContext> {
    const browser = this.#browser;
    const starting = () => overloaded("the browser is starting");
    if (!browser?.isConnected()) throw starting();
    const inUse = (change: number) =>
      this.#contextsInUse.set(browser, (this.#contextsInUse.get(browser) ?? 0) + change);
    inUse(+1);
    let context: BrowserContext;
    try {
      context = await browser.newContext(options);
    } catch (error) {
      inUse(-1);
      throw browser.isConnected() ? error : starting();
    }
    context.once("close", () => inUse(-1));
    if (this.#dueForRecycling(++this.#pagesServed)) void this.#recycle(browser);
    return context;
  }

  get connected(): boolean {
    return this.#browser?.isConnected() ?? false;
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#browser?.close();
  }

  #dueForRecycling(pagesServed: number): boolean {
    if (pagesServed >= this.options.recycleAfterPages) return true;
    return (
      pagesServed % MEMORY_CHECK_EVERY_PAGES === 0 &&
      browserMemoryBytes(proxyArg(this.options.proxyUrl)) > this.options.recycleAtMemoryBytes
    );
  }

  /** Swaps in a new browser while the old one finishes its renders; no render waits for the swap. */
  async #recycle(old: Browser): Promise<void> {
    if (this.#recycling || this.#closing) return;
    this.#recycling = true;
    try {
      const fresh = await this.#launch();
      if (this.#closing) {
        await fresh.close();
        return;
      }
      this.#pagesServed = 0;
      this.#adopt(fresh);
      this.options.logger.info("browser recycled");
      const deadline = Date.now() + RETIRE_GRACE_MS;
      while ((this.#contextsInUse.get(old) ?? 0) > 0 && Date.now() < deadline) await sleep(100);
      this.#contextsInUse.delete(old);
      await old.close();
    } catch (error) {
      this.options.logger.error({ err: error }, "browser recycling failed; keeping the current browser");
    } finally {
      this.#recycling = false;
    }
  }

  #launch(): Promise<Browser> {
    return chromium.launch({
      executablePath: this.options.executablePath,
      headless: true,
      args: [
        ...LAUNCH_ARGS,
        ...egressArgs(this.options.proxyUrl),
        `--js-flags=--max-old-space-size=${this.options.maxHeapMb}`,
      ],
      ignoreDefaultArgs: DROPPED_DEFAULT_ARGS,
      env: browserEnv(),
      // Shutdown is ours: in-flight renders finish before the browser closes.
      handleSIGINT: false,
      handleSIGTERM: false,
    });
  }

  #adopt(browser: Browser): void {
    this.#browser = browser;
    // A retired browser closing is expected; only the current one going away needs a relaunch.
    browser.on("disconnected", () => {
      if (browser === this.#browser) void this.#relaunch();
    });
    this.options.logger.info({ version: browser.version() }, "browser up");
    this.#notify(true);
  }

  async #relaunch(): Promise<void> {
    if (this.#closing) return;
    this.#notify(false);
    this.options.logger.error("browser disconnected; relaunching");
    for (let attempt = 0; !this.#closing; attempt++) {
      try {
        const browser = await this.#launch();
        if (this.#closing) {
          await browser.close();
          return;
        }
        this.#adopt(browser);
        return;
      } catch (error) {
        const delay = RELAUNCH_BACKOFF_MS[Math.min(attempt, RELAUNCH_BACKOFF_MS.length - 1)];
        this.options.logger.error({ err: error, delayMs: delay }, "browser relaunch failed");
        await sleep(delay);
      }
    }
  }

  #notify(ready: boolean): void {
    for (const listener of this.#readyListeners) listener(ready);
  }
}
