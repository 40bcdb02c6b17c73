import { describe, expect, it } from "vitest";
import { acrossSites, leaveOneSiteOut, wilsonLowerBound } from "./reliability.js";

/** `right` of `n` answers on a site. */
function site(name: string, n: number, right: number) {
  return Array.from({ length: n }, (_, i) => ({ site: name, right: i < right }));
}

describe("the Wilson lower bound", () => {
  it("matches the closed form at known points (one-sided 95%, z = 1.645)", () => {
    // n = 10 sites all right: n / (n + z^2).
    expect(wilsonLowerBound(1, 10)).toBeCloseTo(10 / (10 + 1.645 ** 2), 6);
    // p = 0.5 over 100 (centred at 0.5): 0.5 - z * sqrt(0.25 / 100 + z^2 / 40000) / (1 + z^2 / 100), about 0.41884.
    expect(wilsonLowerBound(0.5, 100)).toBeCloseTo(0.41884, 4);
    expect(wilsonLowerBound(0, 5)).toBe(0);
    expect(wilsonLowerBound(1, 0)).toBe(0);
  });

  it("rises with the number of observations at the same precision", () => {
    expect(wilsonLowerBound(1, 3)).toBeLessThan(wilsonLowerBound(1, 30));
    expect(wilsonLowerBound(1, 30)).toBeLessThan(wilsonLowerBound(1, 300));
  });
});

describe("reliability across sites", () => {
  it("counts a site once, however many of its pages answered", () => {
    // One site right on 100 pages and four sites wrong on their one page: pooled 100/104, but 1 of 5 sites.
    const answers = [...site("a", 100, 100), ...["b", "c", "d", "e"].flatMap((name) => site(name, 1, 0))];
    const figures = acrossSites(answers);
    expect(figures.sites).toBe(5);
    expect(figures.precision).toBeCloseTo(0.2, 6);
    expect(figures.reliability).toBeCloseTo(wilsonLowerBound(0.2, 5), 6);
  });

  it("states each site's reliability from the other sites' answers only", () => {
    // 30 sites where the source is always right, and one where it is always wrong.
    const good = Array.from({ length: 30 }, (_, i) => site(`good${i}`, 3, 3)).flat();
    const answers = [...good, ...site("bad", 3, 0)];
    const held = leaveOneSiteOut(answers);
    // Without the bad site the source looks perfect on 30 sites; with it, 30 of 31.
    expect(held.get("bad")).toBeCloseTo(wilsonLowerBound(1, 30), 6);
    expect(held.get("good0")).toBeCloseTo(wilsonLowerBound(29 / 30, 30), 6);
    expect(held.get("bad")!).toBeGreaterThan(held.get("good0")!);
    expect(held.size).toBe(31);
  });
});
