import { RenderMode, type RenderRequest } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { describe, expect, it } from "vitest";
import { toRenderJob } from "./render-request.js";

const signal = new AbortController().signal;
const options = (overrides: Partial<NonNullable<RenderRequest["options"]>>) => ({
  mode: RenderMode.RENDER_MODE_UNSPECIFIED,
  timeoutMs: 0,
  waitFor: "",
  screenshot: false,
  outline: [],
  ...overrides,
});

describe("toRenderJob", () => {
  it("takes the smallest of timeout_ms, the service limit and the deadline", () => {
    const url = "https://example.com/";
    expect(toRenderJob({ url }, { deadline: undefined, signal }, 20_000).timeoutMs).toBe(20_000);
    expect(
      toRenderJob({ url, options: options({ timeoutMs: 5000 }) }, { deadline: undefined, signal }, 20_000).timeoutMs,
    ).toBe(5000);
    const deadline = new Date(Date.now() + 3000);
    expect(
      toRenderJob({ url, options: options({ timeoutMs: 5000 }) }, { deadline, signal }, 20_000).timeoutMs,
    ).toBeLessThanOrEqual(3000);
  });

  it("says when the caller's deadline, not a timeout, bounds the render (running out of it is then deadline-exceeded)", () => {
    const url = "https://example.com/";
    const deadline = new Date(Date.now() + 3000);
    expect(
      toRenderJob({ url, options: options({ timeoutMs: 5000 }) }, { deadline, signal }, 20_000).deadlineBound,
    ).toBe(true);
    expect(
      toRenderJob({ url, options: options({ timeoutMs: 1000 }) }, { deadline, signal }, 20_000).deadlineBound,
    ).toBe(false);
    expect(toRenderJob({ url }, { deadline: undefined, signal }, 20_000).deadlineBound).toBe(false);
  });

  it("answers target-timeout when the deadline has already passed", () => {
    expect(() =>
      toRenderJob({ url: "https://example.com/" }, { deadline: new Date(Date.now() - 1), signal }, 20_000),
    ).toThrow(expect.objectContaining({ type: "target-timeout" }));
  });

  it.each([
    [{ url: "" }, "/url"],
    [{ url: "not a url" }, "/url"],
    [{ url: "/relative/path" }, "/url"],
    [{ url: `https://example.com/${"a".repeat(9000)}` }, "/url"],
    [{ url: "https://example.com/", options: options({ mode: 42 as RenderMode }) }, "/options/mode"],
    [{ url: "https://example.com/", options: options({ waitFor: "a".repeat(2000) }) }, "/options/wait_for"],
    [
      { url: "https://example.com/", options: options({ screenshot: true, mode: RenderMode.RENDER_MODE_STATIC }) },
      "/options/screenshot",
    ],
    [
      { url: "https://example.com/", options: options({ outline: Array.from({ length: 501 }, () => "p") }) },
      "/options/outline",
    ],
  ])("refuses %j as invalid-request at %s", (request, path) => {
    expect(() => toRenderJob(request, { deadline: undefined, signal }, 20_000)).toThrow(
      expect.objectContaining({ type: "invalid-request", violations: [expect.objectContaining({ path })] }),
    );
  });

  it.each([
    [RenderMode.RENDER_MODE_UNSPECIFIED, "auto"],
    [RenderMode.RENDER_MODE_AUTO, "auto"],
    [RenderMode.RENDER_MODE_STATIC, "static"],
    [RenderMode.RENDER_MODE_BROWSER, "browser"],
  ])("maps render mode %i to %s", (mode, expected) => {
    expect(
      toRenderJob({ url: "https://example.com/", options: options({ mode }) }, { deadline: undefined, signal }, 1).mode,
    ).toBe(expected);
  });
});
