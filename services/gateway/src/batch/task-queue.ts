/** One task handed to a handler, with where it stands in its attempts. */
export interface Task<T> {
  data: T;
  /** No retry follows if this attempt throws. */
  lastAttempt: boolean;
}

/**
 * What a handler answers: undefined when the task is done, or a time to run it again, which spends none of its
 * attempts (a task that cannot run yet, such as a page whose key has used its requests for the minute), so
 * that the worker can take another task meanwhile. `line` says that no task of its line can run before then
 * either (the minute's requests and the scrape slots are the key's, not the page's): where the queue can (pg-boss),
 * it takes none of the line's tasks until then, rather than taking each of them to learn it.
 */
export type TaskOutcome = { laterMs: number; line?: boolean } | undefined;

type TaskHandler<T> = (task: Task<T>, signal: AbortSignal) => Promise<TaskOutcome>;

/** What a queue is made for. */
export interface QueueSpec {
  name: string;
  /** Tries per task in all, the first one included. */
  attempts: number;
  /** Delay before the first retry, at least (jittered up to twice as long); it doubles with each retry after. */
  backoffMs: number;
  /** Tasks this process runs at once. */
  concurrency: number;
  /** A task running longer than this is taken for lost (its worker died) and tried again. */
  leaseMs: number;
}

/**
 * A durable queue of tasks shared by every gateway on the same store: a task
 * added is run once by some gateway; one whose handler throws is tried again
 * after a backoff, until its attempts are used up; one whose worker died is
 * tried again by another. Keys take turns: the workers take one task of each
 * key with tasks waiting per round, oldest first within a key, so a key with
 * a large backlog (or one whose tasks keep coming back later) delays another
 * key's tasks by about one task per key waiting, not by its whole backlog.
 */
export interface TaskQueue<T> {
  /** Tasks waiting to run, retries and tasks put off included, across every worker sharing the queue. */
  depth(): Promise<number>;
  /** Queues `items` in `key`'s line (tasks added without a key share one). */
  add(items: T[], key?: string): Promise<void>;
  /**
   * Starts running tasks with `handler`, the spec's concurrency at a time. `signal` aborts when the queue closes.
   * Every task the queue gives up (its attempts used up, by throws or by workers lost or cut short) is handed to
   * `givenUp`, at least once and by some gateway, so that none is left without an end.
   */
  work(handler: TaskHandler<T>, givenUp: (data: T) => Promise<void>): void;
}

/** Makes queues on one store. */
export interface QueueBackend {
  queue<T extends object>(spec: QueueSpec): Promise<TaskQueue<T>>;
  /** Takes no more tasks and lets running ones finish for `graceMs`; those still running then are aborted, to run again later. */
  close(graceMs: number): Promise<void>;
}
