/**
 * Temporaries of `kind puppet render` (Node; issue 22, fresh-user review):
 * - a run killed outright (SIGKILL, a power cut) cannot remove its staged `<out>/frames.<pid>.tmp` folder or
 *   `puppet.json.<pid>.tmp` / `preview.gif.<pid>.tmp` (src/cli/files.ts): the next run into that folder
 *   removes those whose process is no longer running, and says so ({@link removeStaleTemporaries});
 * - an output folder this run created is removed again when the run is interrupted or fails before anything
 *   is written into it (`createOutputDirUndoable` in files.ts), so Ctrl-C leaves no empty new folder.
 * - a `.bak` (a previous output moved aside during a commit) of a process that is gone is removed only when the
 *   outputs beside it are a complete set (frames/ holding exactly the frames puppet.json lists, and for
 *   preview.gif.<pid>.bak a preview.gif): it is then a superseded output the run could not delete. Otherwise it
 *   may be the only copy and is left, named in a note ({@link sweepStaleBackups}).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onInterrupt } from '../io/node/interrupt';

/** The render's outputs whose `<name>.<pid>.tmp` an interrupted commit can leave. */
const STAGED = /^(frames|puppet\.json|preview\.gif)\.(\d+)\.tmp$/;

/** True when a process with this id is running (signal 0 probes without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove `frames.<pid>.tmp` (and `puppet.json.<pid>.tmp`, `preview.gif.<pid>.tmp`) in `outDir` left by runs
 * whose process is gone. @returns one line naming what was removed (null when nothing was); a temporary that
 * cannot be removed is named in that line instead of failing the run.
 */
export function removeStaleTemporaries(outDir: string): string | null {
  let names: string[];
  try {
    names = fs.readdirSync(outDir);
  } catch {
    return null; // no folder yet: nothing left behind
  }
  const removed: string[] = [];
  const failed: string[] = [];
  for (const n of names.sort()) {
    const m = STAGED.exec(n);
    if (!m) continue;
    const pid = Number(m[2]);
    if (pid === process.pid || processAlive(pid)) continue;
    try {
      fs.rmSync(path.join(outDir, n), { recursive: true, force: true });
      removed.push(`${n} (process ${pid})`);
    } catch (e) {
      failed.push(`${n} (${(e as Error).message})`);
    }
  }
  if (removed.length === 0 && failed.length === 0) return null;
  return [
    removed.length > 0
      ? `removed ${removed.join(', ')} from ${outDir}: left by an earlier run that was killed before it could clean up`
      : '',
    failed.length > 0 ? `could not remove ${failed.join(', ')} left by an earlier run` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** A frame an earlier render wrote into `<out>/frames` (frameName: 4 digits, more past 9999 frames). */
const FRAME = /^\d{4,}\.png$/;

const BACKUP = /^(frames|puppet\.json|preview\.gif)\.(\d+)\.bak$/;

/** True when `<outDir>` holds a complete output set: puppet.json readable, frames/ exactly its frames. */
function completeOutputs(outDir: string): boolean {
  try {
    const file = JSON.parse(fs.readFileSync(path.join(outDir, 'puppet.json'), 'utf8')) as {
      frames?: unknown;
    };
    if (!Array.isArray(file.frames)) return false;
    const names = fs.readdirSync(path.join(outDir, 'frames'));
    return names.length === file.frames.length && names.every((n) => FRAME.test(n));
  } catch {
    return false;
  }
}

/**
 * The `frames.<pid>.bak` (`puppet.json.<pid>.bak`, `preview.gif.<pid>.bak`) in `outDir` of processes that are
 * gone: removed when the outputs beside them are complete (the backup is a superseded previous output),
 * else left. @returns one line for the removed and one for the left (none when there are none).
 */
export function sweepStaleBackups(outDir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(outDir);
  } catch {
    return [];
  }
  const stale = names.sort().filter((n) => {
    const m = BACKUP.exec(n);
    return m !== null && Number(m[2]) !== process.pid && !processAlive(Number(m[2]));
  });
  if (stale.length === 0) return [];
  const complete = completeOutputs(outDir);
  const removed: string[] = [];
  const left: string[] = [];
  for (const n of stale) {
    const output = (BACKUP.exec(n) as RegExpExecArray)[1];
    if (complete && fs.existsSync(path.join(outDir, output))) {
      try {
        fs.rmSync(path.join(outDir, n), { recursive: true, force: true });
        removed.push(n);
        continue;
      } catch {
        // left, and named below
      }
    }
    left.push(n);
  }
  return [
    ...(removed.length > 0
      ? [
          `removed ${removed.join(', ')} from ${outDir}: a previous output an earlier run moved aside and could not delete (the outputs beside it are complete)`,
        ]
      : []),
    ...(left.length > 0
      ? [
          `left ${left.map((n) => path.join(outDir, n)).join(', ')}: moved aside by an earlier run that did not finish, and the outputs beside it are not a complete set, so it may be the only copy; delete it yourself once you have checked`,
        ]
      : []),
  ];
}

/**
 * Refuse, before any work, an existing `<out>/frames` holding anything that is not a frame of an earlier
 * render (`NNNN.png`): the commit replaces the whole folder, so that file would be lost.
 * @throws Error naming the first such file
 */
export function refuseForeignFrames(framesDir: string): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(framesDir, { withFileTypes: true });
  } catch {
    return; // no folder (or not a folder: the commit reports that)
  }
  const foreign = entries
    .filter((e) => !(e.isFile() && FRAME.test(e.name)))
    .map((e) => e.name)
    .sort();
  if (foreign.length > 0)
    throw new Error(
      `${path.join(framesDir, foreign[0])}: not a frame of an earlier render${foreign.length > 1 ? ` (nor ${foreign.length - 1} other entr${foreign.length > 2 ? 'ies' : 'y'} there)` : ''}; a render replaces the whole frames folder, so move it or choose another -o`,
    );
}

/**
 * While a render runs into `outDir` holding none of its outputs, an interrupt says "there were no previous
 * outputs" instead of "the previous outputs are unchanged". @returns the function that forgets it
 */
export function noteNoPreviousOutputs(outDir: string): () => void {
  if (['frames', 'puppet.json', 'preview.gif'].some((n) => fs.existsSync(path.join(outDir, n))))
    return () => {};
  return onInterrupt(() => 'there were no previous outputs');
}
