/**
 * The shared worker pool (src/io/node/workerPool.ts) of `kind qa --batch` and `kind cleanup --batch`,
 * on a small worker script written for the test: replies come back in job order whatever order they
 * finish in, a worker that dies fails only its own job and is replaced, and an interrupt terminates the
 * running workers and starts no more.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { guardInterrupts } from '../src/io/node/interrupt';
import { runWorkerPool } from '../src/io/node/workerPool';

interface Job {
  x: number;
  /** Delay before answering, ms (a later job finishing first). */
  ms: number;
  /** 'throw': an uncaught error in the worker; 'exit': the worker exits with code 3; 'hang': never answers. */
  fail?: 'throw' | 'exit' | 'hang';
}
type Reply = { id: number; y: number; thread: number } | { id: number; error: string };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-pool-'));
const WORKER = path.join(dir, 'worker.cjs');
fs.writeFileSync(
  WORKER,
  `const { parentPort, threadId, workerData } = require('node:worker_threads');
if (workerData && workerData.mark === 'pool-test')
  parentPort.on('message', ({ id, job }) => {
    if (job.fail === 'throw') setTimeout(() => { throw new Error('boom in job ' + id + '\\nsecond line'); }, job.ms);
    else if (job.fail === 'exit') setTimeout(() => process.exit(3), job.ms);
    else if (job.fail === 'hang') setInterval(() => {}, 1000);
    else setTimeout(() => parentPort.postMessage({ id, y: job.x * 2, thread: threadId }), job.ms);
  });
`,
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const failed = (_job: Job, id: number, why: string): Reply => ({ id, error: `job ${id}: stopped (${why})` });

describe('runWorkerPool (src/io/node/workerPool.ts)', () => {
  it('returns the replies in job order while they arrive in another order; 3 threads for 8 jobs', async () => {
    const jobs: Job[] = Array.from({ length: 8 }, (_, i) => ({ x: i + 1, ms: (8 - i) * 60 }));
    const arrived: number[] = [];
    const counts: number[] = [];
    const out = await runWorkerPool<Job, Reply>(jobs, {
      workerFile: WORKER,
      size: 3,
      workerData: { mark: 'pool-test' },
      failed,
      onDone: (r, done) => {
        arrived.push(r.id);
        counts.push(done);
      },
    });
    expect(out.map((r) => r.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(out.map((r) => ('y' in r ? r.y : NaN))).toEqual([2, 4, 6, 8, 10, 12, 14, 16]);
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...arrived].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // job 2 (360 ms) is done before job 0 (480 ms), started together: arrival order differs from job order
    expect(arrived.indexOf(2)).toBeLessThan(arrived.indexOf(0));
    expect(new Set(out.map((r) => ('thread' in r ? r.thread : 0))).size).toBe(3);
  });

  it('a worker that throws or exits fails only its own job, with the first line of the reason, and is replaced', async () => {
    const jobs: Job[] = [
      { x: 1, ms: 5 },
      { x: 2, ms: 5, fail: 'throw' },
      { x: 3, ms: 5 },
      { x: 4, ms: 5, fail: 'exit' },
      { x: 5, ms: 5 },
      { x: 6, ms: 5 },
    ];
    const out = await runWorkerPool<Job, Reply>(jobs, {
      workerFile: WORKER,
      size: 2,
      workerData: { mark: 'pool-test' },
      failed,
    });
    expect(out).toEqual([
      expect.objectContaining({ id: 0, y: 2 }),
      { id: 1, error: 'job 1: stopped (boom in job 1)' },
      expect.objectContaining({ id: 2, y: 6 }),
      { id: 3, error: 'job 3: stopped (exit code 3)' },
      expect.objectContaining({ id: 4, y: 10 }),
      expect.objectContaining({ id: 5, y: 12 }),
    ]);
  });

  it('no jobs: resolves to [] without starting a worker', async () => {
    const out = await runWorkerPool<Job, Reply>([], {
      workerFile: path.join(dir, 'missing.cjs'),
      size: 4,
      failed,
    });
    expect(out).toEqual([]);
  });

  it('an interrupt terminates the running workers (their jobs fail with exit code 1) and starts no more', async () => {
    const jobs: Job[] = Array.from({ length: 5 }, (_, i) => ({ x: i, ms: 0, fail: 'hang' as const }));
    const codes: number[] = [];
    const release = guardInterrupts('kind test', { exit: (c) => codes.push(c), print: () => {} });
    const replies: Reply[] = [];
    let settled = false;
    void runWorkerPool<Job, Reply>(jobs, {
      workerFile: WORKER,
      size: 2,
      workerData: { mark: 'pool-test' },
      failed,
      onDone: (r) => replies.push(r),
    }).then(() => {
      settled = true;
    });
    // let both workers start and take a job each
    await new Promise((r) => setTimeout(r, 300));
    expect(replies).toEqual([]);
    process.emit('SIGINT', 'SIGINT');
    release();
    expect(codes).toEqual([130]);
    while (replies.length < 2) await new Promise((r) => setTimeout(r, 20));
    // a little longer: a replacement worker would have taken job 2 by now and never answers, but
    // nothing else may be reported, and the pool (3 jobs never run) does not resolve
    await new Promise((r) => setTimeout(r, 300));
    expect(replies.map((r) => r.id).sort()).toEqual([0, 1]);
    expect(replies.map((r) => ('error' in r ? r.error : ''))).toEqual([
      expect.stringMatching(/^job [01]: stopped \(exit code 1\)$/),
      expect.stringMatching(/^job [01]: stopped \(exit code 1\)$/),
    ]);
    expect(settled).toBe(false);
  });
});
