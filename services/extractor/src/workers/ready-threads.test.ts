/**
 * Tasks waiting for a thread run on the ready threads as they free up, not
 * on the threads the pool started for them: real Piscina threads, whose start
 * the tests hold (their module waits for a message), so the order does not
 * depend on how long a thread takes to start. Then they let the other threads
 * start, so that a task given to one fails the test at once rather than at
 * its time limit.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ReadyThreads } from "./ready-threads.js";

// A thread's module says it is loading and ends loading once the test says "start"; a task that asks to be held says so
// and runs until the test says "release". A task answers its thread.
const WORKER = `
import { threadId } from "node:worker_threads";
const said = (word) => new Promise((resolve) => {
  const channel = new BroadcastChannel(word);
  channel.onmessage = () => { channel.close(); resolve(); };
});
const started = said("start");
new BroadcastChannel("loading").postMessage(threadId);
await started;
export default async ({ hold }) => {
  if (hold) {
    const released = said("release");
    new BroadcastChannel("held").postMessage(threadId);
    await released;
  }
  return threadId;
};
`;

let dir: string;
let worker: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "winnow-ready-threads-"));
  worker = path.join(dir, "worker.mjs");
  await writeFile(worker, WORKER);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const say = (word: string) => {
  const channel = new BroadcastChannel(word);
  channel.postMessage(word);
  channel.close();
};
/** The first `count` messages said on `word`. */
const heard = (word: string, count = 1) =>
  new Promise<number[]>((resolve) => {
    const messages: number[] = [];
    const channel = new BroadcastChannel(word);
    channel.onmessage = (event) => {
      messages.push((event as MessageEvent<number>).data);
      if (messages.length < count) return;
      channel.close();
      resolve(messages);
    };
  });

/**
 * A pool of up to three threads using the balancer, whose first thread has loaded and holds a task (`first`);
 * `othersLoading` hears the next two threads start loading.
 */
async function firstThreadHeld() {
  const threads = new ReadyThreads();
  const pool = new Piscina({
    filename: worker,
    minThreads: 1,
    maxThreads: 3,
    concurrentTasksPerWorker: 1,
    loadBalancer: threads.balancer,
  });
  threads.follow(pool);
  // An extraction's signal, as the extraction pool gives each task.
  const signal = new AbortController().signal;
  const firstLoading = heard("loading");
  const firstHeld = heard("held");
  const first = pool.run({ hold: true }, { signal });
  await firstLoading;
  const othersLoading = heard("loading", 2);
  say("start");
  const [firstThread] = await firstHeld;
  return { pool, signal, first, firstThread, othersLoading };
}

it("runs a waiting task on the thread that frees up, not on a thread started for it", async () => {
  const { pool, signal, first, firstThread, othersLoading } = await firstThreadHeld();
  // Two more tasks wait: the pool starts a thread for each, which do not get to load.
  const waiting = [pool.run({ hold: true }, { signal }), pool.run({ hold: true }, { signal })];
  await othersLoading;
  const othersHeld = heard("held", 2);
  say("release");
  expect(await first).toBe(firstThread);
  // One waiting task went to the first thread as it freed up (before the held task's answer); the other threads may
  // start now, and take the other one. With Piscina's own balancer both went to those threads as they were starting.
  say("start");
  expect(await othersHeld).toContain(firstThread);
  say("release");
  expect(await Promise.all(waiting)).toContain(firstThread);
  await pool.destroy();
});

it("leaves a second waiting task for a ready thread to free up rather than a thread still starting", async () => {
  const { pool, signal, first, firstThread, othersLoading } = await firstThreadHeld();
  // Two tasks wait, and the pool starts a thread for each; the first thread frees up once: it takes one of them, and
  // the other waits for it to free up again, which it does before the other threads are let start.
  const waiting = [pool.run({ hold: false }, { signal }), pool.run({ hold: false }, { signal })];
  await othersLoading;
  say("release");
  await first;
  expect(await waiting[0]).toBe(firstThread);
  say("start");
  // Given to a thread still starting as the first thread freed up the first time, it would have run there.
  expect(await waiting[1]).toBe(firstThread);
  await pool.destroy();
});
