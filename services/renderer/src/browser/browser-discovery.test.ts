import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBrowser, installHint, NO_BROWSER } from "./browser-discovery.js";

let root: string;
/** Makes a file (executable unless told otherwise) and returns its path. */
async function file(relative: string, executable = true): Promise<string> {
  const at = path.join(root, relative);
  await mkdir(path.dirname(at), { recursive: true });
  await writeFile(at, "#!/bin/sh\n");
  await chmod(at, executable ? 0o755 : 0o644);
  return at;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "browser-discovery-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("finding a browser", () => {
  it("takes CHROMIUM_PATH first", async () => {
    const configured = await file("configured/chrome");
    const onPath = await file("bin1/chromium");
    const search = findBrowser({
      configured,
      pathVariable: path.dirname(onPath),
      playwrightExecutable: () => undefined,
    });
    expect(search).toEqual({
      found: { source: "CHROMIUM_PATH", executablePath: configured },
      configuredMissing: undefined,
    });
  });

  it("goes on past a CHROMIUM_PATH that names nothing, to Playwright's own browser before PATH", async () => {
    const playwright = await file("ms-playwright/chromium-1/chrome");
    const onPath = await file("bin2/chromium");
    const missing = path.join(root, "nowhere/chromium");
    const search = findBrowser({
      configured: missing,
      pathVariable: path.dirname(onPath),
      playwrightExecutable: () => playwright,
    });
    expect(search).toEqual({ found: { source: "playwright", executablePath: playwright }, configuredMissing: missing });
  });

  it("searches PATH for chromium, chromium-browser and google-chrome, skipping files it cannot run", async () => {
    const notRunnable = await file("bin3/chromium", false);
    const chrome = await file("bin4/google-chrome");
    const chromiumBrowser = await file("bin5/chromium-browser");
    const pathVariable = [path.dirname(notRunnable), path.dirname(chrome), path.dirname(chromiumBrowser)].join(
      path.delimiter,
    );
    const search = findBrowser({
      configured: undefined,
      pathVariable,
      playwrightExecutable: () => path.join(root, "not-installed/chrome"),
    });
    expect(search.found).toEqual({ source: "PATH", executablePath: chromiumBrowser });
  });

  it("finds nothing where there is nothing, and the refusal says how to install one", async () => {
    const empty = path.join(root, "empty");
    await mkdir(empty);
    expect(
      findBrowser({ configured: undefined, pathVariable: empty, playwrightExecutable: () => undefined }).found,
    ).toBeUndefined();
    expect(installHint("linux")).toContain("apt-get install chromium");
    expect(installHint("darwin")).toContain("brew install --cask chromium");
    const refusal = await NO_BROWSER.render({
      url: new URL("https://example.com/"),
      mode: "browser",
      waitFor: "",
      timeoutMs: 1000,
      signal: new AbortController().signal,
    }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ type: "browser-unavailable", retryable: false });
    expect((refusal as Error).message).toContain("npx playwright install chromium");
  });
});
