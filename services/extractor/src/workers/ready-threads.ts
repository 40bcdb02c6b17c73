import type { Piscina } from "piscina";

type LoadBalancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"]>;

/**
 * Gives a task waiting for a thread to a free thread that is ready before one still starting. Piscina's own balancer
 * (5.3.2), when a thread frees up, takes the first idle one among all its threads, those it is starting listed
 * first: a task waiting when the pool grew went to a thread still loading its modules (a second and more on a busy
 * machine) while the thread that had just freed up stayed idle (piscinajs/piscina#1056). So another account's load,
 * by making the pool grow, made a neighbour's extraction wait out a thread's start.
 */
export class ReadyThreads {
  private readonly ready = new Set<number>();

  /**
   * Piscina's own choice (a thread running no task), ready threads first. A starting one is still taken when none
   * is ready and free, as Piscina would: answering none, the pool would start another thread for the task at once,
   * and again, up to its largest size.
   */
  readonly balancer: LoadBalancer = (_task, workers) => {
    const free = workers.filter((worker) => worker.currentUsage === 0);
    return free.find((worker) => this.ready.has(worker.id)) ?? free[0] ?? null;
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
