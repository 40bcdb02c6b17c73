import type { Piscina } from "piscina";

type LoadBalancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"]>;

/**
 * Gives a task waiting for a thread to a free thread that is ready, never to one still starting while any is ready.
 * Piscina's own balancer (5.3.2), when a thread frees up, takes the first idle one among all its threads, those it
 * is starting listed first: a task waiting when the pool grew went to a thread still loading its modules (a second
 * and more on a busy machine) while the thread that had just freed up stayed idle (piscinajs/piscina#1056). So
 * another account's load, by making the pool grow, made a neighbour's extraction wait out a thread's start.
 */
export class ReadyThreads {
  private readonly ready = new Set<number>();

  /**
   * Piscina's own choice (a thread running no task) among the ready threads. None of them free, the task waits for
   * the first that is (the pool meanwhile starts the threads it may still start, up to its largest size); a thread
   * still starting is taken only when none is ready, as nothing will be sooner.
   */
  readonly balancer: LoadBalancer = (_task, workers) => {
    const free = workers.filter((worker) => worker.currentUsage === 0);
    const ready = free.find((worker) => this.ready.has(worker.id));
    if (ready) return ready;
    return this.ready.size === 0 ? (free[0] ?? null) : null;
  };

  /**
   * Follows the pool's threads, from when each is ready to its end; call it as soon as the pool is made, whose first
   * threads Piscina counts as ready from the start (their tasks wait for them to load, as nothing is ready sooner).
   */
  follow(pool: Piscina): void {
    for (const thread of pool.threads) this.ready.add(thread.threadId);
    pool.on("workerCreate", (worker: { id: number }) => this.ready.add(worker.id));
    pool.on("workerDestroy", (worker: { id: number }) => this.ready.delete(worker.id));
  }
}
