/**
 * Compressed bombs over HTTPS. The egress proxy only tunnels TLS, so it can count a response's bytes as sent but not as
 * decoded; the browser path must still refuse a page that inflates past the cap. A loopback HTTPS site with a
 * certificate made for the test, which the test's Chromium trusts by its key (Chromium's
 * --ignore-certificate-errors-spki-list, given through a wrapper script as CHROMIUM_PATH).
 */
import { execFileSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBrowser } from "./browser/browser-discovery.js";
import {
  closeServer,
  memoryGrowthDuring,
  type RenderingWithBrowser,
  renderFailure,
  renderWith,
  startRendering,
} from "./renderer.test-helpers.js";

const MAX_BYTES = 1024 * 1024;
const TEXT = "<p>Enough ordinary text for the page to count as complete without any JavaScript.</p>";
const BOMB_DECODED_BYTES = 100 * 1024 * 1024;
const BOMB = gzipSync(Buffer.alloc(BOMB_DECODED_BYTES, `<div>${TEXT}</div>`), { level: 9 });
/** A script that decodes to more than all of a page's resources may: 20 MiB of comment. */
const SCRIPT_BOMB = gzipSync(Buffer.alloc(20 * MAX_BYTES, "//"), { level: 9 });

const pages: Record<string, { type: string; body: Buffer; gzip?: true }> = {
  "/ok": { type: "text/html", body: Buffer.from(`<!doctype html><title>ok</title><body>${TEXT}</body>`) },
  "/bomb": { type: "text/html", body: BOMB, gzip: true },
  "/script-bomb": {
    type: "text/html",
    body: Buffer.from(`<!doctype html><title>scripted</title><script src="/bomb.js"></script><body>${TEXT}</body>`),
  },
  "/bomb.js": { type: "text/javascript", body: SCRIPT_BOMB, gzip: true },
};

let dir: string;
let site: https.Server;
let base: string;
let rendering: RenderingWithBrowser;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "winnow-https-"));
  const key = path.join(dir, "key.pem");
  const cert = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      ...["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"],
      ...["-addext", "subjectAltName=IP:127.0.0.1"],
    ],
    { stdio: "ignore" },
  );
  const spki = new X509Certificate(readFileSync(cert)).publicKey.export({ type: "spki", format: "der" });
  const chromium = findBrowser({ configured: undefined, pathVariable: process.env.PATH }).found?.executablePath;
  if (!chromium) throw new Error("these tests need a Chromium");
  const wrapper = path.join(dir, "chromium");
  const pin = createHash("sha256").update(spki).digest("base64");
  writeFileSync(wrapper, `#!/bin/sh\nexec '${chromium}' --ignore-certificate-errors-spki-list=${pin} "$@"\n`);
  chmodSync(wrapper, 0o700);

  site = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const page = pages[(req.url ?? "/").split("?")[0]!];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": page.type, ...(page.gzip && { "content-encoding": "gzip" }) }).end(page.body);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const { port } = site.address() as AddressInfo;
  base = `https://127.0.0.1:${port}`;
  rendering = await startRendering({
    WINNOW_EGRESS_ALLOW: `127.0.0.1:${port}`,
    RENDER_MAX_HTML_BYTES: String(MAX_BYTES),
    CHROMIUM_PATH: wrapper,
  });
});

afterAll(async () => {
  await rendering?.close();
  if (site) await closeServer(site);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("compressed bombs over HTTPS, browser path", () => {
  it("renders an ordinary HTTPS page (the test's certificate is trusted)", async () => {
    expect((await renderWith(rendering, `${base}/ok`, { mode: "browser" })).title).toBe("ok");
  });

  it("refuses a page that decodes past the cap, keeping it out of the browser's memory", async () => {
    const growth = await memoryGrowthDuring(rendering, async () => {
      const error = await renderFailure(rendering, `${base}/bomb`, { mode: "browser", timeoutMs: 60_000 });
      expect(error).toMatchObject({ type: "page-too-large" });
      expect(error.message).toMatch(/once decoded/);
    });
    // Let in whole, the bomb's 100 MiB of HTML takes well over a GiB more as a DOM; cut off at the cap, what remains
    // is a fresh tab's own memory.
    expect(growth).toBeLessThan(5 * BOMB_DECODED_BYTES);
  });

  it("refuses a page whose sub-resources decode past the page's budget", async () => {
    const error = await renderFailure(rendering, `${base}/script-bomb`, { mode: "browser", timeoutMs: 60_000 });
    expect(error).toMatchObject({ type: "page-too-large" });
    expect(error.message).toMatch(/resources are larger/);
    expect((await renderWith(rendering, `${base}/ok`, { mode: "browser" })).title).toBe("ok");
  });
});
