import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  closeServer,
  listen,
  type RenderingWithBrowser,
  renderWith,
  startRendering,
} from "../renderer.test-helpers.js";
import { proxyArg } from "./browser.js";
import { browserPids } from "./process-memory.js";

const SECRETS = {
  WINNOW_SERVICE_TOKEN: "service-token-the-browser-must-never-see-0123456789",
  WINNOW_PAGE_SIGNING_KEY: "page-signing-key-the-browser-must-never-see-0123456789",
};
const saved = { ...process.env };
let site: Awaited<ReturnType<typeof listen>>;
let rendering: RenderingWithBrowser;

beforeAll(async () => {
  // As in the service, whose configuration comes from its environment.
  Object.assign(process.env, SECRETS);
  site = await listen((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<title>page</title><p>hello</p>"),
  );
  rendering = await startRendering({ WINNOW_EGRESS_ALLOW: `127.0.0.1:${site.port}`, ...SECRETS });
});

afterAll(async () => {
  await rendering?.close();
  if (site) await closeServer(site);
  for (const name of Object.keys(SECRETS)) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** Each process's environment, by pid; processes that ended meanwhile are left out. */
function environments(pids: number[]): Map<number, string[]> {
  const found = new Map<number, string[]>();
  for (const pid of pids) {
    try {
      found.set(pid, readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean));
    } catch {
      // ended
    }
  }
  return found;
}

describe("the browser's environment", () => {
  it("holds neither the caller token nor the page signing key, in any of its processes", async () => {
    // A page open, so the browser's renderer processes are there too.
    expect((await renderWith(rendering, `http://127.0.0.1:${site.port}/`, { mode: "browser" })).title).toBe("page");
    const found = environments(browserPids(proxyArg(rendering.proxy.url)));
    expect(found.size).toBeGreaterThan(1);
    for (const [pid, variables] of found) {
      expect(variables.join("\n"), String(pid)).not.toMatch(/WINNOW_|must-never-see/);
    }
    // What Chromium needs passes (its child processes write their titles over theirs; the browser's own is intact).
    const named = [...found.values()].map((variables) => variables.map((variable) => variable.split("=")[0]));
    expect(named.some((names) => names.includes("PATH") && names.includes("HOME"))).toBe(true);
  });
});
