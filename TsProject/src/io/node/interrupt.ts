/**
 * Interrupts of the commands that write files (Node only): SIGINT (Ctrl-C), SIGTERM and SIGHUP.
 *
 * One shared mechanism for every writer:
 * - a writer registers an undo action for as long as it has something half-done on disk or in flight
 *   ({@link onInterrupt}: temporary files to delete, moved-aside outputs to put back, worker threads to
 *   stop) and removes it once its work is committed or rolled back;
 * - a command runs inside {@link withInterrupts} (built on {@link guardInterrupts}): on a signal the registered actions run (newest
 *   first), one line goes to stderr, and the process exits with 128 + the signal number (130 for
 *   SIGINT, 143 for SIGTERM, 129 for SIGHUP), as shells report a command killed by the signal.
 *
 * Node runs a signal's listeners between two turns of its event loop, never in the middle of
 * synchronous code: a synchronous write (`writeFileSync`, `renameSync`) always finishes before the
 * handler runs, so a handler sees either nothing of a synchronous commit or all of it. A long
 * synchronous computation defers the signal until it yields: commands call {@link interruptPoint} at
 * the boundaries of their steps (after loading, after computing, before writing), so that an
 * interrupt during a step takes effect at its end and before anything is written. Without a listener
 * (the default), the signal kills the process wherever it is, in the middle of a write too: that is
 * what this module prevents.
 */

/** Exit codes by signal: 128 + the signal number. */
export const INTERRUPT_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

export type InterruptSignal = keyof typeof INTERRUPT_EXIT_CODES;

const SIGNALS = Object.keys(INTERRUPT_EXIT_CODES) as InterruptSignal[];

/** Registered undo actions, in registration order (run newest first). */
const undoActions = new Set<() => unknown>();

/** Outputs committed (complete and in place) during the current guarded command. */
const committed: string[] = [];

/**
 * Register `undo`, to run if the process is interrupted before the returned function is called. Call
 * the returned function as soon as the work `undo` would revert is committed or already rolled back.
 * `undo` must be synchronous; an error it throws is swallowed (the others still run). An `undo` that
 * returns a string says what the interrupt message should say instead of "the previous outputs are
 * unchanged" (e.g. `there were no previous outputs`); such an action does not count as one undone.
 */
export function onInterrupt(undo: () => unknown): () => void {
  undoActions.add(undo);
  return () => {
    undoActions.delete(undo);
  };
}

/** What the undo actions of the last {@link runUndoActions} said (registration order). */
let undoNotes: string[] = [];

/** Say that these output files are now complete and in place (for the interrupt message). */
export function noteCommitted(paths: readonly string[]): void {
  committed.push(...paths);
}

/** Run every registered undo action, newest first, and forget them. Returns how many undid something (not those that only returned a note). */
export function runUndoActions(): number {
  const list = [...undoActions].reverse();
  undoActions.clear();
  const notes: string[] = [];
  let count = 0;
  for (const undo of list) {
    try {
      const note = undo();
      if (typeof note === 'string') notes.unshift(note);
      else count++;
    } catch {
      // best effort: the other actions still run
      count++;
    }
  }
  undoNotes = notes;
  return count;
}

/**
 * One turn of the event loop, so that a signal that arrived during synchronous work is handled here
 * (inside {@link withInterrupts} the process then exits and this never resolves).
 */
export function interruptPoint(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface InterruptOptions {
  /** Called instead of `process.exit` (tests). */
  exit?: (code: number) => void;
  /** Where the one-line message goes (default: stderr). */
  print?: (line: string) => void;
}

/**
 * Handle SIGINT, SIGTERM and SIGHUP from now until the returned `release` is called: on a signal the
 * undo actions run, one line says what was left (e.g. `kind retarget: interrupted (SIGINT); nothing
 * written, the previous outputs are unchanged`), and the process exits with
 * {@link INTERRUPT_EXIT_CODES}. A second signal while exiting is ignored. `release` removes the
 * listeners (the signals' previous handling comes back); call it when the command settles, also on an
 * error, after one more {@link interruptPoint} (a signal caught during the last synchronous write is
 * dispatched only on the next turn): {@link withInterrupts} does both. `command` names the command in the message.
 */
export function guardInterrupts(command: string, options: InterruptOptions = {}): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const print = options.print ?? ((line: string) => process.stderr.write(`${line}\n`));
  committed.length = 0;
  let handled = false;
  const handler = (signal: InterruptSignal) => {
    if (handled) return;
    handled = true;
    const undone = runUndoActions();
    const what =
      committed.length > 0
        ? `after writing ${committed.join(', ')}`
        : `nothing written${undone > 0 ? ' (temporary files removed)' : ''}, ${undoNotes.length > 0 ? undoNotes.join(' and ') : 'the previous outputs are unchanged'}`;
    // a progress bar may have left the cursor mid-line
    print(`${process.stderr.isTTY ? '\n' : ''}${command}: interrupted (${signal}); ${what}`);
    exit(INTERRUPT_EXIT_CODES[signal]);
  };
  for (const s of SIGNALS) process.on(s, handler);
  return () => {
    for (const s of SIGNALS) process.removeListener(s, handler);
    committed.length = 0;
  };
}

/**
 * `job` inside {@link guardInterrupts}, the way every writing command runs. When `job` settles (done
 * or failed), one more turn of the event loop ({@link interruptPoint}) runs before the guard is
 * released: a signal that arrived during the job's last synchronous stretch (typically the write of
 * its outputs, `writeFilesAtomically`) is handled then, with the guard's message and exit code
 * (`after writing ...`, 130/143). Releasing at once, in the same turn, dropped such a signal: Node
 * had caught it, but no listener was left when it was dispatched, and the command exited 0.
 */
export async function withInterrupts<T>(
  command: string,
  job: () => Promise<T>,
  options: InterruptOptions = {},
): Promise<T> {
  const release = guardInterrupts(command, options);
  try {
    return await job();
  } finally {
    await interruptPoint();
    release();
  }
}

/**
 * For a server command (`kind puppet`, `kind mocap` with no file): wait for SIGINT or SIGTERM (or
 * `durationS` seconds when given, the tests' way out), then run `close` with a second signal ignored, so a
 * second Ctrl+C during the close does not kill the process half-closed. Resolves with the signal that
 * ended the wait (null: the duration ran out).
 */
export async function serveUntilSignal(
  durationS: number | undefined,
  close: () => Promise<void>,
): Promise<'SIGINT' | 'SIGTERM' | null> {
  let signal: 'SIGINT' | 'SIGTERM' | null = null;
  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | null = null;
    const done = (by: 'SIGINT' | 'SIGTERM' | null) => {
      if (signal === null) signal = by;
      process.removeListener('SIGINT', onInt);
      process.removeListener('SIGTERM', onTerm);
      if (timer) clearTimeout(timer);
      resolve();
    };
    const onInt = () => done('SIGINT');
    const onTerm = () => done('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    if (durationS !== undefined) timer = setTimeout(() => done(null), durationS * 1000);
  });
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  process.on('SIGTERM', ignore);
  try {
    await close();
  } finally {
    process.removeListener('SIGINT', ignore);
    process.removeListener('SIGTERM', ignore);
  }
  return signal;
}
