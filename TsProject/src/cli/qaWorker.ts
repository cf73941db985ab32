/**
 * `kind qa` evaluation of one golden/retargeted pair, and the worker-thread entry that runs it for
 * `kind qa --batch` (bundled to dist/qaWorker.cjs by tools/build.mjs).
 *
 * Worker protocol (worker_threads, structured clone): the pool posts `{ id, job: QaJob }`; the worker
 * answers `{ id, entry: QaClipEntry }`, where a pair that cannot be read or evaluated is an entry with
 * result 'Failed' and a one-line `error` naming the file, never a crashed worker.
 */
import * as path from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { loadSource } from '../io/node';
import type { WorkerRequest } from '../io/node/workerPool';
import { evaluateClip, type RigProfile, reportToJson, severityOf } from '../qa';
import { type QaClipEntry, readClipJson } from '../qa-report';
import { checkClipValues } from './retarget';

/** One pair to evaluate. Paths as given on the command line (or found in the batch folders). */
export interface QaJob {
  name: string;
  golden: string;
  retargeted: string;
  /** Animation to use when the golden / retargeted file is glTF/VRM (default: the first). */
  goldenClip?: string;
  retargetedClip?: string;
  /** Sampling rate for glTF clips with uneven keys. */
  fps?: number;
  /** The retargeted rig's profile (already parsed: a plain JSON-able object). */
  profile?: RigProfile;
  lambda?: number;
  sampling?: 'seconds' | 'normalized';
}

/** Message from the pool (src/io/node/workerPool.ts) to a worker. */
export type QaWorkerRequest = WorkerRequest<QaJob>;

/** Message from a worker to the pool. */
export interface QaWorkerReply {
  id: number;
  entry: QaClipEntry;
}

/** The marker the pool puts in `workerData`, so that importing this module elsewhere starts nothing. */
export const QA_WORKER_MARK = 'kind-qa-worker';

async function loadClip(file: string, clipName: string | undefined, fps: number | undefined) {
  const isBvh = path.extname(file).toLowerCase() === '.bvh';
  // --clip names an animation inside a glTF/VRM file; a BVH holds one clip
  const src = await loadSource(file, { clipName: isBvh ? undefined : clipName, fps });
  checkClipValues(file, src.clip);
  return src;
}

/** The first line of an error's message (errors of the readers name the file and line). */
function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}

/**
 * Load both clips and evaluate them (src/qa `evaluateClip`). Never throws: a file that cannot be read,
 * or an evaluation that fails, gives an entry with result 'Failed' and `error` naming the file.
 */
export async function evaluatePair(job: QaJob): Promise<QaClipEntry> {
  const base = { name: job.name, golden: job.golden, retargeted: job.retargeted };
  let stage = job.golden;
  let side = 'golden';
  try {
    const golden = await loadClip(job.golden, job.goldenClip, job.fps);
    stage = job.retargeted;
    side = 'retargeted';
    const observed = await loadClip(job.retargeted, job.retargetedClip, job.fps);
    stage = `${job.name}: evaluation`;
    side = '';
    const report = evaluateClip(golden.clip, observed.clip, {
      profile: job.profile,
      name: job.name,
      lambda: job.lambda,
      sampling: job.sampling,
    });
    const json = readClipJson(reportToJson(report), `report of ${job.name}`);
    const loadNotes = [
      ...golden.warnings.map((w) => `golden: ${w}`),
      ...observed.warnings.map((w) => `retargeted: ${w}`),
    ].filter((w) => !/Missing optional extension/.test(w));
    json.warnings = [...json.warnings, ...loadNotes];
    return { ...base, result: json.result, severity: severityOf(report), report: json };
  } catch (e) {
    const msg = oneLine(e);
    // reader errors already start with the file name; otherwise say which file
    const where = msg.includes(path.basename(stage)) ? msg : `${stage}: ${msg}`;
    const error = side ? `${side} ${where}` : where;
    return { ...base, result: 'Failed', severity: 0, error };
  }
}

if (!isMainThread && parentPort && (workerData as { mark?: string } | null)?.mark === QA_WORKER_MARK) {
  const port = parentPort;
  port.on('message', (msg: QaWorkerRequest) => {
    evaluatePair(msg.job).then((entry) => port.postMessage({ id: msg.id, entry } satisfies QaWorkerReply));
  });
}
