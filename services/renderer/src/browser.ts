import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from "playwright-core";
import type { Logger } from "@winnow/platform";
import { overloaded } from "./overloaded.js";

const SYSTEM_CHROMIUM = "/usr/bin/chromium";

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

const RELAUNCH_BACKOFF_MS = [250, 1000, 5000, 15_000];

/** The configured Chromium, else Playwright's own when installed, else the system package. Never downloads one. */
export function chromiumExecutable(configured: string | undefined): string {
  if (configured) return configured;
  let managed: string | undefined;
  try {
    managed = chromium.executablePath();
  } catch {
    // No Playwright-managed browser is registered for this platform.
  }
  return managed && existsSync(managed) ? managed : SYSTEM_CHROMIUM;
}

export interface BrowserHostOptions {
  executablePath: string;
  logger: Logger;
}

/**
 * Owns the one Chromium of this process: launches it, relaunches it when it
 * disconnects or crashes, and hands out fresh contexts.
 */
export class BrowserHost {
  #browser: Browser | undefined;
  #closing = false;
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
    try {
      return await browser.newContext(options);
    } catch (error) {
      throw browser.isConnected() ? error : starting();
    }
  }

  get connected(): boolean {
    return this.#browser?.isConnected() ?? false;
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#browser?.close();
  }

  #launch(): Promise<Browser> {
    return chromium.launch({
      executablePath: this.options.executablePath,
      headless: true,
      args: LAUNCH_ARGS,
      // Shutdown is ours: in-flight renders finish before the browser closes.
      handleSIGINT: false,
      handleSIGTERM: false,
    });
  }

  #adopt(browser: Browser): void {
    this.#browser = browser;
    browser.on("disconnected", () => void this.#relaunch());
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
