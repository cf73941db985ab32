/**
 * The worker-thread entry of `kind cleanup --batch` (bundled to dist/cleanupWorker.cjs by
 * tools/build.mjs). Protocol (worker_threads, structured clone): the pool posts
 * `{ id, job: CleanupJob }`; the worker answers `{ id, outcome }` with the three outputs as text, or
 * `{ id, error }` with a one-line message naming the file; it never crashes on bad input.
 */
import * as path from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { CleanupFile } from '../cleanup-report';
import type { WorkerRequest } from '../io/node/workerPool';
import { type CleanupJob, cleanTake } from './cleanupRun';

/** Message from the pool (src/io/node/workerPool.ts) to a worker. */
export type CleanupWorkerRequest = WorkerRequest<CleanupJob>;

export type CleanupWorkerReply =
  | { id: number; outcome: { file: CleanupFile; bvh: string; json: string; html: string } }
  | { id: number; error: string };

/** The marker the pool puts in `workerData`, so that importing this module elsewhere starts nothing. */
export const CLEANUP_WORKER_MARK = 'kind-cleanup-worker';

/** Clean one job; never throws (an error becomes `{ error }`). */
export async function runCleanupJob(id: number, job: CleanupJob): Promise<CleanupWorkerReply> {
  try {
    const { file, bvh, json, html } = await cleanTake(job);
    return { id, outcome: { file, bvh, json, html } };
  } catch (e) {
    const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    return { id, error: msg.includes(path.basename(job.input)) ? msg : `${job.input}: ${msg}` };
  }
}

if (!isMainThread && parentPort && (workerData as { mark?: string } | null)?.mark === CLEANUP_WORKER_MARK) {
  const port = parentPort;
  port.on('message', (msg: CleanupWorkerRequest) => {
    runCleanupJob(msg.id, msg.job).then((reply) => port.postMessage(reply));
  });
}
