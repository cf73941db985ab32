/**
 * Temporaries of `kind puppet render` (Node; issue 22, fresh-user review):
 * - a run killed outright (SIGKILL, a power cut) cannot remove its staged `<out>/frames.<pid>.tmp` folder or
 *   `puppet.json.<pid>.tmp` / `preview.gif.<pid>.tmp` (src/cli/files.ts): the next run into that folder
 *   removes those whose process is no longer running, and says so ({@link removeStaleTemporaries});
 * - an output folder this run created is removed again when the run is interrupted or fails before anything
 *   is written into it ({@link createOutputDirUndoable}), so Ctrl-C leaves no empty new folder.
 * `.bak` files (a previous output moved aside during a commit) are never touched: they may be the only copy.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onInterrupt } from '../io/node/interrupt';
import { ensureOutputDir } from './files';

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
 * Make the output folder (ensureOutputDir) and, for the folders this made, register their removal (when
 * still empty) with the interrupt handler. Call the returned `done(wrote)` when the run ends: with true once
 * the outputs are in place (the folders stay), with false on an error (they go, when empty).
 */
export function createOutputDirUndoable(outDir: string): (wrote: boolean) => void {
  const made: string[] = [];
  for (let d = path.resolve(outDir); !fs.existsSync(d); d = path.dirname(d)) {
    made.push(d);
    if (path.dirname(d) === d) break;
  }
  ensureOutputDir(outDir);
  const undo = () => {
    // deepest first; rmdir refuses a folder that is not empty, which then stays
    for (const d of made) {
      try {
        fs.rmdirSync(d);
      } catch {
        return;
      }
    }
  };
  const forget = onInterrupt(undo);
  return (wrote) => {
    forget();
    if (!wrote) undo();
  };
}
