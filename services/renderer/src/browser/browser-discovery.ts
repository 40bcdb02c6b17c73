import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { WinnowError } from "@winnow/platform";
import { chromium } from "playwright-core";
import type { BrowserPath } from "../page-renderer.js";

/** Names a Chromium goes by on PATH, most specific first. */
const PATH_NAMES = ["chromium", "chromium-browser", "google-chrome"];

interface FoundBrowser {
  executablePath: string;
  /** Where it was found, for the start-up log. */
  source: "CHROMIUM_PATH" | "playwright" | "PATH";
}

export interface BrowserSearch {
  found: FoundBrowser | undefined;
  /** Set when CHROMIUM_PATH names no executable: said at start-up, then the search goes on. */
  configuredMissing?: string;
}

export interface BrowserSearchPlaces {
  /** CHROMIUM_PATH. */
  configured: string | undefined;
  /** The PATH variable to search. */
  pathVariable: string | undefined;
  /** Where Playwright keeps its own Chromium (after `npx playwright install chromium`), registered or not. */
  playwrightExecutable?: () => string | undefined;
}

/**
 * Finds a Chromium without ever downloading one: CHROMIUM_PATH, then
 * Playwright's installed browser, then the usual names on PATH.
 */
export function findBrowser({
  configured,
  pathVariable,
  playwrightExecutable = playwrightChromium,
}: BrowserSearchPlaces): BrowserSearch {
  const configuredMissing = configured && !isExecutable(configured) ? configured : undefined;
  const candidates: [FoundBrowser["source"], string | undefined][] = [
    ["CHROMIUM_PATH", configured],
    ["playwright", playwrightExecutable()],
    ...PATH_NAMES.flatMap((name) =>
      (pathVariable ?? "")
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => ["PATH", path.join(dir, name)] as [FoundBrowser["source"], string]),
    ),
  ];
  const hit = candidates.find(([, file]) => file !== undefined && isExecutable(file));
  return { found: hit && { source: hit[0], executablePath: hit[1]! }, configuredMissing };
}

function playwrightChromium(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined; // Playwright has no Chromium build for this platform.
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** What to run to get a browser here, for the start-up warning and the browser-unavailable problem. */
export function installHint(platform: NodeJS.Platform = process.platform): string {
  const system =
    platform === "linux"
      ? "`sudo apt-get install chromium` (Debian/Ubuntu), `sudo dnf install chromium` (Fedora)"
      : platform === "darwin"
        ? "`brew install --cask chromium`"
        : "install Google Chrome or Chromium";
  return `install a Chromium: ${system}, or \`npx playwright install chromium\`; or set CHROMIUM_PATH to one, then restart the renderer`;
}

/** The browser path of a renderer without a browser: whatever needs one is refused, saying how to get one. */
export const NO_BROWSER: BrowserPath = {
  render: () =>
    Promise.reject(
      new WinnowError("browser-unavailable", `this page needs a browser and this renderer has none; ${installHint()}`),
    ),
};
