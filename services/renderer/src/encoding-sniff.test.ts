import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeServer, listen, renderWith, startRendering } from "./renderer.test-helpers.js";
import type { Rendering } from "./rendering.js";

const NAME = "Christian Ruß";
const page = (body: string) =>
  `<!doctype html><html><head><title>${body}</title></head><body><h1>${body}</h1></body></html>`;

let site: http.Server & { port: number };
let base: string;
let rendering: Rendering;

beforeAll(async () => {
  site = await listen((req, res) => {
    if (req.url?.startsWith("/unlabelled-utf8")) {
      // text/html with no charset and no <meta charset>: the bytes alone say UTF-8.
      res.writeHead(200, { "content-type": "text/html" }).end(Buffer.from(page(NAME), "utf8"));
    } else if (req.url === "/unlabelled-latin1") {
      // The same with windows-1252 bytes, which are not valid UTF-8: the standard's default stays.
      res.writeHead(200, { "content-type": "text/html" }).end(Buffer.from(page(NAME), "latin1"));
    } else res.writeHead(404).end();
  });
  base = `http://127.0.0.1:${site.port}`;
  rendering = await startRendering({ WINNOW_EGRESS_ALLOW: `127.0.0.1:${site.port}` });
});

afterAll(async () => {
  await rendering?.close();
  if (site) await closeServer(site);
});

describe("a page whose encoding is not labelled", () => {
  for (const mode of ["static", "browser"] as const) {
    it(`is read as UTF-8 when its bytes are UTF-8 (${mode} path)`, async () => {
      // A query too: the reload must find the very URL (no "?" read as a wildcard).
      const rendered = await renderWith(rendering, `${base}/unlabelled-utf8?name=ru%C3%9F`, { mode });
      expect(rendered.html).toContain(`<h1>${NAME}</h1>`);
      expect(rendered.title).toBe(NAME);
    });

    it(`is read as windows-1252 when its bytes are not UTF-8 (${mode} path)`, async () => {
      const rendered = await renderWith(rendering, `${base}/unlabelled-latin1`, { mode });
      expect(rendered.html).toContain(`<h1>${NAME}</h1>`);
    });
  }
});
