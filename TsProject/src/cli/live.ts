/**
 * `kind live`: the live pipeline from the command line (Node only). See src/live/node/live.ts.
 */
import * as os from 'node:os';
import type { InterruptSignal } from '../io/node/interrupt';
import { LiveError, type LiveHandle, type LiveOptions, type LiveStats, startLive } from '../live/node/live';

/** Seconds without any frame after which `kind live` says why in one line. */
export const NO_FRAME_NOTICE_S = 3;

export interface LiveCommandOptions extends LiveOptions {
  /** Stop after this many seconds and print the final figures (default: run until Ctrl-C). */
  duration?: number;
  quiet?: boolean;
  /** Where status lines go (default console.log). */
  print?: (line: string) => void;
}

/** What {@link runLive} returns: the final figures, and the signal that stopped the run (null: `duration` ran out). */
export interface LiveRunResult extends LiveStats {
  signal: Extract<InterruptSignal, 'SIGINT' | 'SIGTERM'> | null;
}

/** This machine's first non-internal IPv4 address, for the URL a remote device uses. */
function lanAddress(): string {
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '<this machine>';
}

function ms(v: number): string {
  return Number.isFinite(v) ? v.toFixed(2) : '-';
}

/** One status line: frames, rate, latency, drops. `from`: what sent the frames (replay server or browser page). */
export function formatLiveStats(s: LiveStats, from: 'server' | 'page' = 'server'): string {
  const e2e = Number.isFinite(s.endToEndMs.median)
    ? `; ${from} send -> pose median ${ms(s.endToEndMs.median)} ms, p99 ${ms(s.endToEndMs.p99)} ms`
    : '';
  return `${s.frames} frames, ${s.fps.toFixed(1)} fps; ${from === 'page' ? 'message' : 'packet'} -> pose median ${ms(s.latencyMs.median)} ms, p99 ${ms(s.latencyMs.p99)} ms${e2e}; ${s.dropped} lost, ${s.malformed} malformed`;
}

/**
 * Run the live pipeline until `duration` seconds pass or SIGINT/SIGTERM; prints where the viewer and
 * the remote control listen, a status line every 5 seconds, and the final figures. When no frame has
 * come {@link NO_FRAME_NOTICE_S} seconds in, prints one line saying why (e.g. the server streams
 * multicast and `--multicast` is missing). Resolves once every socket is closed; `signal` names the
 * signal that stopped the run (`kind live` then exits 130 for SIGINT, 143 for SIGTERM, as the writing
 * commands do: src/io/node/interrupt.ts INTERRUPT_EXIT_CODES).
 * @throws LiveError when `duration` ran out without a single frame (`kind live` exits 1), with that
 * reason. Stopped by a signal without a frame, the reason is printed and the run resolves.
 */
export async function runLive(o: LiveCommandOptions): Promise<LiveRunResult> {
  const print = o.quiet ? () => undefined : (o.print ?? ((l: string) => console.log(l)));
  const live: LiveHandle = await startLive(o);
  const from = live.source === 'browser' ? 'page' : 'server';
  print(
    `live: ${live.source === 'browser' ? `browser mocap page on ${live.browserSourceUrl}` : o.natnet ? `NatNet ${o.natnet.host}` : `replaying ${o.replay ?? 'the embedded default walk'} over NatNet (loopback)`} -> ${live.characters.join(', ')}`,
  );
  print(`  viewer:         ${live.viewerUrl}`);
  const open = o.remoteHost === '0.0.0.0';
  const shown = open ? live.remoteUrl.replace('//0.0.0.0:', `//${lanAddress()}:`) : live.remoteUrl;
  print(
    `  remote control: ${shown}${open ? ' (open to the network)' : ''}${o.token ? ' (token required: ?token=...)' : ''}`,
  );
  if (live.source === 'browser')
    print(`  mocap page:     ${live.browserPageUrl} (run kind mocap to serve it)`);
  const timer = setInterval(() => print(`  ${formatLiveStats(live.stats(), from)}`), 5000);
  timer.unref();
  const startedAt = Date.now();
  const notice = setTimeout(() => {
    if (live.stats().frames === 0)
      print(live.source === 'browser' ? `  ${live.whyNoFrames()}` : `  no frame yet: ${live.whyNoFrames()}`);
  }, NO_FRAME_NOTICE_S * 1000);
  notice.unref();
  let signal: LiveRunResult['signal'] = null;
  let stop: (by: LiveRunResult['signal']) => void = () => undefined;
  // listening until the sockets are closed: a second signal while closing is ignored (not a kill
  // half-way through the close)
  const onInt = () => stop('SIGINT');
  const onTerm = () => stop('SIGTERM');
  try {
    await new Promise<void>((resolve) => {
      stop = (by) => {
        if (signal === null) signal = by;
        resolve();
      };
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      if (o.duration !== undefined) setTimeout(() => stop(null), o.duration * 1000).unref();
    });
  } finally {
    clearInterval(timer);
    clearTimeout(notice);
  }
  const s = live.stats();
  const why = s.frames === 0 ? live.whyNoFrames() : '';
  await live.close();
  process.removeListener('SIGINT', onInt);
  process.removeListener('SIGTERM', onTerm);
  print(`stopped${signal ? ` (${signal})` : ''}: ${formatLiveStats(s, from)}`);
  const what = live.source === 'browser' ? 'pose from the browser page' : 'NatNet frame';
  // the reason may open with the same words ("no pose from the browser page yet: open ..."): said once
  const reason = why.startsWith(`no ${what} yet: `) ? why.slice(`no ${what} yet: `.length) : why;
  const none = `no ${what} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s: ${reason}`;
  if (s.frames === 0) {
    if (!signal) throw new LiveError(none);
    print(`  ${none}`);
  }
  return { ...s, signal };
}
