/**
 * A task waiting for a thread runs on the first thread to be free and ready,
 * not on the thread the pool started for it: real Piscina threads, whose
 * start the test holds open (their module waits for a message), so the order
 * does not depend on how long a thread takes to start. Then it lets the
 * second thread start, so that with Piscina's own balancer the test fails at
 * once rather than by its time limit.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ReadyThreads } from "./ready-threads.js";

// A thread's module says it is loading and ends loading once the test says "start"; a task that asks to be held says so
// and runs until the test says "release".
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

it("runs a waiting task on the thread that frees up, not on the one started for it", async () => {
  const threads = new ReadyThreads();
  const pool = new Piscina({
    filename: worker,
    minThreads: 1,
    maxThreads: 2,
    concurrentTasksPerWorker: 1,
    loadBalancer: threads.balancer,
  });
  threads.follow(pool);
  const say = (word: string) => {
    const channel = new BroadcastChannel(word);
    channel.postMessage(word);
    channel.close();
  };
  const heard = (word: string) =>
    new Promise<number>((resolve) => {
      const channel = new BroadcastChannel(word);
      channel.onmessage = (event) => {
        channel.close();
        resolve((event as MessageEvent<number>).data);
      };
    });
  const loading = heard("loading");
  const held = heard("held");
  // The first thread loads; a task holds it.
  const signal = new AbortController().signal;
  const first = pool.run({ hold: true }, { signal });
  await loading;
  const secondLoading = heard("loading");
  say("start");
  const firstThread = await held;
  // The second task waits: the pool starts a second thread for it, which never gets to load.
  const second = pool.run({ hold: false }, { signal });
  await secondLoading;
  say("release");
  expect(await first).toBe(firstThread);
  // The second task went to a thread as the first one freed up (before the first task's answer): the second thread may
  // start now. With Piscina's own balancer the task went to it, and waited for it to start.
  say("start");
  expect(await second).toBe(firstThread);
  await pool.destroy();
});
