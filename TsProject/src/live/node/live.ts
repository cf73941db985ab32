/**
 * The live pipeline in Node (`kind live`): NatNet in (Motive, or our replay server for rehearsal and
 * tests), one {@link RetargetHub} per avatar driven on every frame, the remote control (WebSocket, port
 * 64212, path `/retargeting`) and the web viewer (HTTP + `/pose` WebSocket) out.
 *
 * Frame path (one NatNet frame-of-data packet): decode into the client's reused frame -> the Motive
 * skeleton's local pose (`frameSkeletonToPose`) -> every hub's `updateLive` (the live source stage:
 * raw pose kept, One-Euro filtered per the hub's `settings.sourceFilter`, with the interval from the
 * NatNet timestamps; then the hub on the filtered pose) -> the viewer's pose message.
 * Everything runs on the Node event loop, so remote-control messages are handled between frames and a
 * change applies from the next frame on. The first frame calibrates every hub (automatic T-pose);
 * `calibrateIPose` / `autoCalibrateAll` from a remote take the latest frame.
 *
 * Latency is measured per frame from the packet's arrival (the client's `process.hrtime` at the
 * datagram) to the end of the last hub update, and, when replaying in this process, also from the
 * replay server's transmit stamp (NatNet >= 3.0 `transmit` ticks; the replay server stamps
 * `process.hrtime` at 10 MHz, the same clock).
 */
import * as path from 'node:path';
import type { Skeleton } from '../../core';
import { defaultAssetsDir, loadAvatar, loadSource } from '../../io/node';
import {
  MocapHubDriver,
  type MocapStreamFrame,
  mocapSourceFigure,
  placeholderMocapSkeleton,
} from '../../mocap';
import { RetargetHub } from '../../rig';
import {
  frameSkeletonToPose,
  type ModelDefinitions,
  type NatNetFrame,
  type SkeletonDescription,
  skeletonFromDescription,
} from '../natnet';
import { type LiveCharacters, type LiveFrame, RemoteControl } from '../remote';
import { BROWSER_SOURCE_PATH, BrowserSource, driveMocapFrame } from './browserSource';
import { hrtimeMs, NatNetClient } from './natnetClient';
import { NatNetReplayServer } from './natnetServer';
import { type RemoteServerHandle, startRemoteServer } from './remoteServer';
import { startViewerServer, type ViewerFrame, type ViewerServer, viewerSkeleton } from './viewerServer';

export class LiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LiveError';
  }
}

export interface LiveOptions {
  /**
   * Where poses come from: `natnet` (Motive; needs `natnet`), `replay` (a clip through our NatNet replay
   * server on loopback) or `browser` (the webcam mocap page streaming solved poses to the remote-control
   * port, path `/source`: src/live/node/browserSource.ts). Default: `natnet` when `natnet` is given, else `replay`.
   */
  source?: 'natnet' | 'replay' | 'browser';
  /** Browser source: the mocap page's port on this machine, allowed as a page origin (default 8066, `kind mocap`'s). */
  mocapPagePort?: number;
  /** Replay a BVH (path) through our NatNet replay server; 'default' = the embedded walk. Default when no `natnet`. */
  replay?: string;
  /** Connect to Motive (or any NatNet server) instead of replaying. */
  natnet?: {
    host: string;
    commandPort?: number;
    /** Receive frames from the multicast group (default false: unicast). */
    multicast?: boolean;
    /** Multicast group and data port (default: the ones the server advertises in NAT_SERVERINFO). */
    multicastAddress?: string;
    dataPort?: number;
  };
  /** Avatar files (.glb, .gltf, .vrm); at least one. */
  avatars: string[];
  /** Remote-control port (default 64212; 0 = ephemeral). */
  remotePort?: number;
  /** Remote-control bind address (default 127.0.0.1; '0.0.0.0' opens it to the network). */
  remoteHost?: string;
  /** Shared token the remote clients must give (`?token=`). */
  token?: string;
  /**
   * Browser origins (`scheme://host[:port]`, `*`: any) allowed to use the remote control and the viewer
   * besides the viewer's own pages; others get 403 (src/io/node/origin.ts).
   */
  allowedOrigins?: readonly string[];
  /** Log lines of the servers (refused origins); default console.error. */
  log?: (line: string) => void;
  /** Viewer HTTP port (default 8064; 0 = ephemeral). */
  viewerPort?: number;
  /** Viewer bind address (default 127.0.0.1). */
  viewerHost?: string;
  /** Replay speed factor (default 1 = the clip's frame rate). */
  rate?: number;
  /** Replay NatNet bitstream version (default '4.1'). */
  version?: '3.0' | '3.1' | '4.0' | '4.1' | '4.2';
  /** Which streamed skeleton to follow, by name (default: the first). */
  skeleton?: string;
  /** Most pose messages per second to the viewer (default 60). */
  viewerFps?: number;
  /** Give up waiting for the NatNet server after this long (default 5000 ms). */
  connectTimeoutMs?: number;
}

export interface LiveStats {
  /** Frames retargeted. */
  frames: number;
  /** Frames lost on the wire (gaps in frame numbers). */
  dropped: number;
  /** Malformed, truncated or oversized packets dropped. */
  malformed: number;
  /** Frames per second over the last second. */
  fps: number;
  /** Packet arrival -> every avatar posed, ms (over the last 4096 frames). */
  latencyMs: { median: number; p99: number };
  /**
   * Replay: server transmit -> every avatar posed; browser: the page's send stamp (epoch ms) -> every avatar
   * posed (both on one machine's clock; NaN when connected to Motive).
   */
  endToEndMs: { median: number; p99: number };
  /** Largest gap between two retargeted frames, ms (since start). */
  maxGapMs: number;
}

export interface LiveHandle {
  viewerUrl: string;
  remoteUrl: string;
  characters: string[];
  hub(name: string): RetargetHub;
  /** The source skeleton: built from the NatNet skeleton description, or the browser page's mocap skeleton. */
  readonly sourceSkeleton: Skeleton;
  /** Which source drives the hubs. */
  source: 'natnet' | 'replay' | 'browser';
  /** Browser source: the WebSocket URL the page streams to (`ws://host:port/source`), else ''. */
  browserSourceUrl: string;
  /** Browser source: the page URL to open (the mocap page streaming here), else ''. */
  browserPageUrl: string;
  stats(): LiveStats;
  /** One line saying why no frame may arrive (the NatNet client's {@link NatNetClient.whyNoFrames}). */
  whyNoFrames(): string;
  close(): Promise<void>;
}

/** Character names from file names: `Xbot`, and `Xbot-2` for a second Xbot. */
export function characterNames(files: string[]): string[] {
  const seen = new Map<string, number>();
  return files.map((f) => {
    const base = path.basename(f).replace(/\.(glb|gltf|vrm)$/i, '') || 'avatar';
    const k = (seen.get(base) ?? 0) + 1;
    seen.set(base, k);
    return k === 1 ? base : `${base}-${k}`;
  });
}

/** A listen error in one line: 'address already in use', 'permission denied', or the message. */
function listenMessage(e: unknown): string {
  const code = (e as { code?: string })?.code;
  if (code === 'EADDRINUSE')
    return 'address already in use (another kind live, or pick another port; 0 = any free one)';
  if (code === 'EACCES') return 'permission denied (ports below 1024 need privileges)';
  if (code === 'EADDRNOTAVAIL') return 'that address is not on this machine';
  return (e as Error)?.message ?? String(e);
}

/** Median and 99th percentile of the first `n` values of `buf` (copies; not per frame). */
function percentiles(buf: Float64Array, n: number): { median: number; p99: number } {
  if (n === 0) return { median: Number.NaN, p99: Number.NaN };
  const a = Array.from(buf.subarray(0, n)).sort((x, y) => x - y);
  const at = (q: number) => a[Math.min(a.length - 1, Math.floor(q * a.length))];
  return { median: at(0.5), p99: at(0.99) };
}

const RING = 4096;

/** The NatNet side of a run: the client (and our replay server when replaying) and the followed skeleton. */
interface NatNetSide {
  client: NatNetClient;
  replay: NatNetReplayServer | null;
  name: string;
  skeleton: Skeleton;
  mapping: ReturnType<typeof skeletonFromDescription>['mapping'];
}

/** Connect to Motive or start our replay server and connect to it; pushes what it opens onto `closers`. */
async function startNatNet(options: LiveOptions, closers: (() => Promise<void>)[]): Promise<NatNetSide> {
  let replay: NatNetReplayServer | null = null;
  let host: string;
  let commandPort: number;
  if (options.natnet) {
    host = options.natnet.host;
    commandPort = options.natnet.commandPort ?? 1510;
  } else {
    const file =
      !options.replay || options.replay === 'default'
        ? path.join(defaultAssetsDir(), 'default-walk.bvh')
        : options.replay;
    const src = await loadSource(file);
    replay = new NatNetReplayServer();
    const r = replay;
    closers.push(() => r.close());
    const started = await replay.start({
      clip: src.clip,
      commandPort: 0,
      host: '127.0.0.1',
      rate: options.rate ?? 1,
      version: options.version ?? '4.1',
    });
    host = '127.0.0.1';
    commandPort = started.port;
  }
  const client = new NatNetClient();
  closers.push(() => client.close());
  let defs: ModelDefinitions;
  try {
    await client.connect({
      serverAddress: host,
      commandPort,
      multicast: options.natnet?.multicast ?? false,
      multicastAddress: options.natnet?.multicastAddress,
      dataPort: options.natnet?.dataPort,
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    });
    defs = await client.requestModelDefinitions(options.connectTimeoutMs ?? 5000);
  } catch (e) {
    throw new LiveError(`NatNet server ${host}:${commandPort}: ${(e as Error).message}`);
  }
  const skeletons: SkeletonDescription[] = defs.skeletons;
  const desc = options.skeleton ? skeletons.find((s) => s.name === options.skeleton) : skeletons[0];
  if (!desc) {
    throw new LiveError(
      options.skeleton
        ? `--skeleton: no skeleton '${options.skeleton}' in the stream (it has: ${skeletons.map((s) => s.name).join(', ') || 'none'})`
        : `NatNet server ${host}:${commandPort}: the stream describes no skeleton (only rigid bodies or markers)`,
    );
  }
  const { skeleton, mapping } = skeletonFromDescription(desc);
  return { client, replay, name: desc.name, skeleton, mapping };
}

/** The hub options of `kind live` (both sources). */
const HUB_OPTIONS = { ik: 'auto', hipsMode: 'room', fingers: 'rotation' } as const;

/** The browser source's driver of `hub` (on the page's mocap skeleton `source`). Set-up time. */
function mocapDriver(source: Skeleton, hub: RetargetHub): MocapHubDriver {
  return new MocapHubDriver(mocapSourceFigure(source), hub);
}

/**
 * A hub on a new browser skeleton keeping `old`'s settings (not its calibration), calibrated on the mocap
 * rest T-pose (as the page's avatar and `kind mocap <landmarks> <avatar>` are). Set-up time.
 */
function mocapHub(source: Skeleton, target: Skeleton, old?: RetargetHub): RetargetHub {
  let settings: Record<string, unknown> | undefined;
  if (old) {
    const { rotationOffsets: _offsets, ...plain } = old.exportSettings();
    settings = { ...plain, initialHipsHeight: null };
  }
  const hub = new RetargetHub(source, target, { ...HUB_OPTIONS, ...(settings ? { settings } : {}) });
  hub.calibrate({ rotations: source.restRotations, translations: source.restTranslations });
  return hub;
}

/**
 * Start the live pipeline. Resolves once the source skeleton is known (browser: a placeholder until the
 * page's first skeleton message) and the servers listen.
 * @throws LiveError for bad options, an unreadable avatar or clip (the loaders' messages, naming the
 * file), no skeleton in the NatNet stream, or a server that does not answer.
 */
export async function startLive(options: LiveOptions): Promise<LiveHandle> {
  if (!options || !Array.isArray(options.avatars) || options.avatars.length === 0)
    throw new LiveError('--avatar: give at least one avatar file (.glb, .gltf or .vrm)');
  if (options.natnet && options.replay)
    throw new LiveError('--natnet and --replay: give one source, a NatNet server or a clip to replay');
  const sourceKind = options.source ?? (options.natnet ? 'natnet' : 'replay');
  if (!['natnet', 'replay', 'browser'].includes(sourceKind))
    throw new LiveError(`--source: '${sourceKind}', need natnet, replay or browser`);
  if (sourceKind === 'natnet' && !options.natnet)
    throw new LiveError("--source natnet: give Motive's address with --natnet <host>");
  if (sourceKind === 'browser' && (options.natnet || options.replay))
    throw new LiveError('--source browser: the page is the source; leave out --natnet and --replay');
  if (sourceKind === 'replay' && options.natnet)
    throw new LiveError('--source replay with --natnet: give one source');
  const rate = options.rate ?? 1;
  if (!(rate > 0 && rate <= 100))
    throw new LiveError(`--rate: ${rate} is out of range (above 0, at most 100)`);
  const viewerFps = options.viewerFps ?? 60;
  if (!(viewerFps > 0 && viewerFps <= 1000)) throw new LiveError(`viewerFps: ${viewerFps} is out of range`);
  const mocapPagePort = options.mocapPagePort ?? 8066;
  if (!(Number.isInteger(mocapPagePort) && mocapPagePort > 0 && mocapPagePort < 65536))
    throw new LiveError(`mocapPagePort: ${mocapPagePort}, need 1..65535`);

  const avatars: Awaited<ReturnType<typeof loadAvatar>>[] = [];
  for (const f of options.avatars) avatars.push(await loadAvatar(f));
  const names = characterNames(options.avatars);

  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    closers.length = 0;
  };
  try {
    // 1. the source: NatNet (our replay server, or a real one), or the browser page (skeleton later)
    const nat = sourceKind === 'browser' ? null : await startNatNet(options, closers);
    let skeleton = nat ? nat.skeleton : placeholderMocapSkeleton();
    const sourceName = nat ? nat.name : 'browser mocap';

    // 2. one hub per avatar (browser: rebuilt on every skeleton message)
    const hubs = avatars.map((a) =>
      nat ? new RetargetHub(skeleton, a.skeleton, HUB_OPTIONS) : mocapHub(skeleton, a.skeleton),
    );
    const byName = new Map(names.map((n, i) => [n, hubs[i]]));
    // browser: one mocap driver per hub (confidence limb weights, foot contact pins), rebuilt with the hubs
    const drivers = nat ? [] : hubs.map((h) => mocapDriver(skeleton, h));
    const current: LiveFrame = {
      rotations: Float64Array.from(skeleton.restRotations),
      translations: Float64Array.from(skeleton.restTranslations),
    };
    let haveFrame = false;
    const characters: LiveCharacters = {
      names: () => names,
      hub: (n) => byName.get(n),
      currentFrame: (n) => (byName.has(n) && haveFrame ? current : undefined),
    };

    // 3. remote control (and the browser source on its port) and viewer
    const control = new RemoteControl(characters);
    const remotePort = options.remotePort ?? 64212;
    const log = options.log ?? ((line: string) => console.error(line));
    let onMocapFrame: (f: MocapStreamFrame, receivedAtMs: number) => void = () => undefined;
    const browser =
      sourceKind === 'browser'
        ? new BrowserSource({
            onSkeleton: (s) => rebuild(s.skeleton),
            onFrame: (f, at) => onMocapFrame(f, at),
            log: (line) => {
              if (/refused/.test(line)) log(line);
            },
          })
        : null;
    let remote: RemoteServerHandle;
    try {
      remote = await startRemoteServer({
        control,
        port: remotePort,
        host: options.remoteHost ?? '127.0.0.1',
        token: options.token,
        allowedOrigins: options.allowedOrigins,
        pagePorts: browser ? [mocapPagePort] : [],
        extraPaths: browser ? { [BROWSER_SOURCE_PATH]: (ws, from) => browser.attach(ws, from) } : undefined,
        log: (line) => {
          // a refused web page is worth one line; connections and closes are not printed
          if (/: 403 \(/.test(line)) log(line);
        },
      });
    } catch (e) {
      throw new LiveError(`--remote-port ${remotePort}: ${listenMessage(e)}`);
    }
    closers.push(() => remote.close());
    const browserSourceUrl = browser ? remote.url.replace(/\/[^/]*$/, BROWSER_SOURCE_PATH) : '';
    const browserPageUrl = browser
      ? `http://127.0.0.1:${mocapPagePort}/?live=${browserSourceUrl.replace('//0.0.0.0:', '//127.0.0.1:')}${options.token ? '&token=...' : ''}`
      : '';
    const files: Record<string, string> = {};
    const viewerAvatars = avatars.map((a, i) => {
      const ext = path.extname(options.avatars[i]).toLowerCase();
      const url = ext === '.gltf' ? undefined : `/avatars/${i}${ext}`;
      if (url) files[url] = path.resolve(options.avatars[i]);
      return viewerSkeleton(names[i], a.skeleton, url);
    });
    const viewerPort = options.viewerPort ?? 8064;
    let viewer: ViewerServer;
    try {
      viewer = await startViewerServer({
        scene: {
          source: viewerSkeleton(sourceName, skeleton),
          avatars: viewerAvatars,
          remote: { url: remote.url, token: options.token },
        },
        files,
        port: viewerPort,
        host: options.viewerHost ?? '127.0.0.1',
        allowedOrigins: options.allowedOrigins,
        log,
      });
    } catch (e) {
      throw new LiveError(`--viewer-port ${viewerPort}: ${listenMessage(e)}`);
    }
    closers.push(() => viewer.close());
    remote.allowPagePort(viewer.port); // the viewer's panel is a remote-control client

    // 4. the frame loop (NatNet callback or browser message); allocation-free per frame
    const latency = new Float64Array(RING);
    const e2e = new Float64Array(RING);
    let latN = 0;
    let e2eN = 0;
    let frames = 0;
    let fps = 0;
    let fpsCount = 0;
    let fpsStart = hrtimeMs();
    let lastFrameAt = -1;
    let maxGap = 0;
    let lastTimestamp = Number.NaN;
    let lastPublish = -1e9;
    const publishEvery = 1000 / viewerFps;
    const ticksPerMs = 1e4; // the replay server's 10 MHz stamps
    const vf: ViewerFrame = {
      frameNumber: 0,
      timestamp: 0,
      latencyMs: 0,
      dropped: 0,
      fps: 0,
      // the source figure shows what the (first) hub reads: the filtered pose; the raw stream beside it
      // for viewers that ask (`/pose?raw=1`)
      source:
        hubs.length > 0
          ? {
              rotations: hubs[0].sourceStage.localRotations,
              translations: hubs[0].sourceStage.localTranslations,
            }
          : current,
      rawSource: current,
      avatars: hubs.map((h) => ({
        rotations: h.localRotations,
        translations: h.localTranslations,
        scales: h.outputScales,
      })),
    };
    /** Browser: new hubs on the page's skeleton (settings kept), the frame arrays and the viewer's views. */
    function rebuild(sk: Skeleton): void {
      // every hub and driver built first, then swapped in: a throw leaves the running set (and the settings
      // the remote control changed on it) as it was
      const newHubs = hubs.map((h, i) => mocapHub(sk, avatars[i].skeleton, h));
      const newDrivers = newHubs.map((h) => mocapDriver(sk, h));
      skeleton = sk;
      for (let i = 0; i < hubs.length; i++) {
        hubs[i] = newHubs[i];
        drivers[i] = newDrivers[i];
        byName.set(names[i], hubs[i]);
        vf.avatars[i] = {
          rotations: hubs[i].localRotations,
          translations: hubs[i].localTranslations,
          scales: hubs[i].outputScales,
        };
      }
      current.rotations = Float64Array.from(sk.restRotations);
      current.translations = Float64Array.from(sk.restTranslations);
      vf.rawSource = current;
      vf.source =
        hubs.length > 0
          ? {
              rotations: hubs[0].sourceStage.localRotations,
              translations: hubs[0].sourceStage.localTranslations,
            }
          : current;
      haveFrame = false;
    }
    /** The stream's interval (s) for the source filter: Infinity restarts it; and the bounded hub interval. */
    const intervals = { stream: 0, hub: 0 };
    const setIntervals = (ts: number) => {
      intervals.stream = !Number.isFinite(ts)
        ? 1 / 120
        : Number.isFinite(lastTimestamp) && ts - lastTimestamp > 0
          ? ts - lastTimestamp
          : Number.POSITIVE_INFINITY;
      intervals.hub = intervals.stream < 0.5 ? intervals.stream : 1 / 120;
      lastTimestamp = ts;
    };
    /** After every hub: the figures and the viewer. `e2eMs` NaN when unknown. */
    const afterFrame = (
      receivedAtMs: number,
      frameNumber: number,
      ts: number,
      e2eMs: number,
      lost: number,
    ) => {
      const done = hrtimeMs();
      latency[latN % RING] = done - receivedAtMs;
      latN++;
      if (Number.isFinite(e2eMs)) {
        e2e[e2eN % RING] = e2eMs + (done - receivedAtMs);
        e2eN++;
      }
      frames++;
      if (lastFrameAt >= 0 && done - lastFrameAt > maxGap) maxGap = done - lastFrameAt;
      lastFrameAt = done;
      fpsCount++;
      if (done - fpsStart >= 1000) {
        fps = (1000 * fpsCount) / (done - fpsStart);
        fpsCount = 0;
        fpsStart = done;
      }
      if (done - lastPublish >= publishEvery && viewer.clientCount() > 0) {
        lastPublish = done;
        vf.frameNumber = frameNumber;
        vf.timestamp = Number.isFinite(ts) ? ts : 0;
        vf.latencyMs = done - receivedAtMs;
        vf.dropped = lost;
        vf.fps = fps;
        viewer.publish(vf);
      }
    };
    if (nat) {
      const { client, mapping, replay } = nat;
      client.onFrame((frame: NatNetFrame, receivedAtMs: number) => {
        const si = frame.findSkeleton(mapping.skeletonId);
        if (si < 0) return;
        frameSkeletonToPose(frame, si, mapping, current.rotations, current.translations);
        haveFrame = true;
        const ts = frame.timestamp;
        setIntervals(ts);
        for (let i = 0; i < hubs.length; i++) {
          const h = hubs[i];
          if (!h.isCalibrated) h.calibrate(current);
          h.updateLive(current.rotations, current.translations, intervals.stream, intervals.hub);
        }
        // the replay server stamps hrtime at 10 MHz: transmit -> arrival on the same clock
        const e2eMs =
          replay && frame.stampTransmit > 0 ? receivedAtMs - frame.stampTransmit / ticksPerMs : Number.NaN;
        afterFrame(receivedAtMs, frame.frameNumber, ts, e2eMs, client.lostFrames);
      });
    } else if (browser) {
      onMocapFrame = (f, receivedAtMs) => {
        current.rotations.set(f.rotations);
        current.translations.set(f.translations);
        haveFrame = true;
        const ts = f.timeMs / 1000;
        // each driver takes its intervals from the page's frame times itself
        for (let i = 0; i < drivers.length; i++) driveMocapFrame(drivers[i], f);
        // the page's send stamp (epoch ms) -> arrival, on this machine's clock (now minus the time since arrival)
        const e2eMs = performance.timeOrigin + performance.now() - (hrtimeMs() - receivedAtMs) - f.sentAtMs;
        afterFrame(receivedAtMs, f.frameNumber, ts, e2eMs, browser.counters.lost);
      };
    }

    const startedAt = hrtimeMs();
    const stats = (): LiveStats => ({
      frames,
      dropped: nat ? nat.client.stats.lost : (browser?.counters.lost ?? 0),
      malformed: nat
        ? nat.client.stats.malformed + nat.client.stats.oversized
        : (browser?.counters.malformed ?? 0),
      // no frame for a second: 0; less than a second of frames so far: the average since the start
      fps:
        lastFrameAt < 0 || hrtimeMs() - lastFrameAt > 1000
          ? 0
          : fps > 0
            ? fps
            : (1000 * frames) / Math.max(1, hrtimeMs() - startedAt),
      latencyMs: percentiles(latency, Math.min(latN, RING)),
      endToEndMs: percentiles(e2e, Math.min(e2eN, RING)),
      maxGapMs: maxGap,
    });
    return {
      viewerUrl: viewer.url,
      remoteUrl: remote.url,
      characters: [...names],
      hub: (n: string) => {
        const h = byName.get(n);
        if (!h) throw new LiveError(`no character '${n}' (have: ${names.join(', ')})`);
        return h;
      },
      get sourceSkeleton() {
        return skeleton;
      },
      source: sourceKind,
      browserSourceUrl,
      browserPageUrl,
      stats,
      whyNoFrames: () => (nat ? nat.client.whyNoFrames() : (browser?.whyNoFrames(browserPageUrl) ?? '')),
      close: closeAll,
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}
