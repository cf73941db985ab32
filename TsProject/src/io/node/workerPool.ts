/**
 * A pool of worker threads for the batch commands (`kind qa --batch`, `kind cleanup --batch`). Node
 * only (`worker_threads`).
 *
 * Protocol (structured clone): the pool posts `{ id, job }` to a worker, where `id` is the job's index
 * in `jobs`; the worker answers one message per job, an object whose `id` is that index. A worker
 * handles one job at a time and gets the next one when it answers.
 */
import { Worker } from 'node:worker_threads';
import { onInterrupt } from './interrupt';

/** Message from the pool to a worker. */
export interface WorkerRequest<Job> {
  id: number;
  job: Job;
}

export interface WorkerPoolOptions<Job, Reply extends { id: number }> {
  /** The worker script (a bundle such as dist/qaWorker.cjs). */
  workerFile: string;
  /** Threads to start: at most one per job; at least 1. */
  size: number;
  /** Passed to every worker as `workerData` (e.g. a marker so that the module starts its loop only in the pool). */
  workerData?: unknown;
  /**
   * The reply standing for job `id` when its worker died before answering (an uncaught error, out of
   * memory, exit): `why` is the error's first line or `exit code N`.
   */
  failed: (job: Job, id: number, why: string) => Reply;
  /** Called as each reply arrives (in arrival order); `done` counts the replies so far (1..jobs.length). */
  onDone?: (reply: Reply, done: number) => void;
}

/**
 * Run `jobs` on a pool of worker threads and resolve with one reply per job, in job order (reply `i`
 * is job `i`'s, whatever order they finished in). A worker that dies fails only its current job (the
 * reply from `failed`) and is replaced while jobs remain; the promise never rejects. While the pool
 * runs, an interrupt (src/io/node/interrupt.ts) terminates its workers and starts no others (the
 * process is exiting). Idle workers are terminated once no job is left.
 */
export function runWorkerPool<Job, Reply extends { id: number }>(
  jobs: readonly Job[],
  o: WorkerPoolOptions<Job, Reply>,
): Promise<Reply[]> {
  const results: (Reply | undefined)[] = new Array(jobs.length);
  let next = 0;
  let done = 0;
  let stopped = false;
  const workers = new Set<Worker>();
  const forget = onInterrupt(() => {
    stopped = true;
    for (const w of workers) void w.terminate();
  });
  return new Promise<Reply[]>((resolve) => {
    if (jobs.length === 0) {
      resolve([]);
      return;
    }
    const finish = (r: Reply) => {
      if (results[r.id]) return;
      results[r.id] = r;
      done++;
      o.onDone?.(r, done);
      if (done === jobs.length) resolve(results as Reply[]);
    };
    const start = () => {
      const w = new Worker(o.workerFile, { workerData: o.workerData });
      workers.add(w);
      w.once('exit', () => workers.delete(w));
      let current = -1;
      let retired = false;
      const feed = () => {
        if (next >= jobs.length) {
          retired = true;
          void w.terminate();
          return;
        }
        current = next++;
        w.postMessage({ id: current, job: jobs[current] } satisfies WorkerRequest<Job>);
      };
      const died = (why: string) => {
        if (retired) return;
        retired = true;
        if (current >= 0 && !results[current]) finish(o.failed(jobs[current], current, why));
        void w.terminate();
        if (next < jobs.length && !stopped) start();
      };
      w.on('message', (m: Reply) => {
        finish(m);
        feed();
      });
      w.on('error', (e) => died(e.message.split('\n')[0]));
      w.on('exit', (code) => died(`exit code ${code}`));
      feed();
    };
    for (let i = 0; i < Math.max(1, Math.min(o.size, jobs.length)); i++) start();
  }).finally(forget);
}
