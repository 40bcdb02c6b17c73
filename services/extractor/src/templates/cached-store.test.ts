import { describe, expect, it, vi } from "vitest";
import { CachedTemplateStore } from "./cached-store.js";
import { ABSENCE } from "./locator.js";
import { MemoryTemplateStore } from "./store.js";

const KEY = { tenant: "acct-a", host: "shop.example", signature: "abc" };
const UPDATE = { field: "price:number", locator: ABSENCE, agree: 1, disagree: 0 };

function stores(ttlMs = 60_000) {
  const memory = new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 });
  const spies = {
    templates: vi.spyOn(memory, "templates"),
    locators: vi.spyOn(memory, "locators"),
    use: vi.spyOn(memory, "use"),
  };
  return { cached: new CachedTemplateStore(memory, ttlMs), memory, spies };
}

describe("CachedTemplateStore", () => {
  it("reads a host's templates and a template's locators once per interval, and counts pages in memory", async () => {
    const { cached, spies } = stores();
    await cached.record(KEY, ["a"], [UPDATE]);
    for (let i = 0; i < 5; i += 1) {
      expect(await cached.templates(KEY)).toHaveLength(1);
      expect(await cached.locators(KEY)).toHaveLength(1);
    }
    expect(spies.templates).toHaveBeenCalledTimes(1);
    expect(spies.locators).toHaveBeenCalledTimes(1);
    expect([await cached.use(KEY), await cached.use(KEY)]).toEqual([1, 2]);
    expect(spies.use).not.toHaveBeenCalled();
    // Another account's templates of the host are another read, and it has none.
    expect(await cached.templates({ ...KEY, tenant: "acct-b" })).toEqual([]);
    expect(await cached.locators({ ...KEY, tenant: "acct-b" })).toEqual([]);
  });

  it("reads again after this replica records, and after the interval", async () => {
    const { cached, spies } = stores(20);
    await cached.locators(KEY);
    await cached.record(KEY, ["a"], [UPDATE]);
    expect(await cached.locators(KEY)).toHaveLength(1);
    expect(spies.locators).toHaveBeenCalledTimes(2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await cached.locators(KEY);
    expect(spies.locators).toHaveBeenCalledTimes(3);
  });

  it("does not keep a failed read", async () => {
    const { cached, memory } = stores();
    vi.spyOn(memory, "templates").mockRejectedValueOnce(new Error("database down"));
    await expect(cached.templates(KEY)).rejects.toThrow("database down");
    expect(await cached.templates(KEY)).toEqual([]);
  });

  it("forgets a host in the cache too", async () => {
    const { cached } = stores();
    await cached.record(KEY, ["a"], [UPDATE]);
    expect(await cached.locators(KEY)).toHaveLength(1);
    expect(await cached.forget(KEY.host)).toBe(1);
    expect(await cached.locators(KEY)).toEqual([]);
  });
});
