/**
 * The browser mocap source of `kind live --source browser` (issue 23 item 5; src/mocap/STREAM.md): the webcam
 * page (src/web/mocap) solves the pose itself and streams it over a WebSocket to the remote-control server's
 * port under the path {@link BROWSER_SOURCE_PATH}, with the remote control's origin and token rules
 * (src/live/node/remoteServer.ts `extraPaths`). A text message is a mocap skeleton (src/mocap/stream.ts
 * `parseMocapSkeletonMessage`): it (re)builds the hubs; a binary message is one solved pose
 * (`readMocapPose`): every hub is driven with it by {@link driveMocapFrame}. A malformed message is
 * counted, refused with a one-line reason (sent back to the page as `{"type":"refused","reason":...}` and
 * logged, at most once a second per connection) and the stream goes on.
 */
import type { RawData, WebSocket } from 'ws';
import {
  MOCAP_BONE_COUNT,
  MOCAP_BONES,
  type MocapHubDriver,
  MocapStreamError,
  MocapStreamFrame,
  type MocapStreamSkeleton,
  parseMocapSkeletonMessage,
  readMocapPose,
} from '../../mocap';
import { hrtimeMs } from './natnetClient';

/** The WebSocket path of the browser source (on the remote-control port). */
export const BROWSER_SOURCE_PATH = '/source';

/**
 * The per-frame hub drive of the browser source: one solved pose onto one avatar through its
 * {@link MocapHubDriver} (src/mocap/hubDriver.ts: the hub's One-Euro source stage, limb IK weights lowered
 * for low-confidence limbs and ramped, the causal foot contact pinning a standing foot, then the hub's
 * update), with the interval from the page's frame times. Allocates nothing.
 */
export function driveMocapFrame(driver: MocapHubDriver, frame: MocapStreamFrame): void {
  driver.stepStream(frame);
}

export interface BrowserSourceCounters {
  /** Pose messages decoded and handed on. */
  frames: number;
  /** Messages refused (malformed skeleton or pose, a pose before any skeleton or of an older one). */
  malformed: number;
  /** Frames lost on the way (gaps in the page's frame numbers, within one skeleton). */
  lost: number;
  /** Skeleton messages accepted. */
  skeletons: number;
  /** Page connections accepted since start. */
  connections: number;
  /** The last refusal's reason, or ''. */
  lastRefusal: string;
}

export interface BrowserSourceOptions {
  /** A skeleton message was accepted: rebuild the hubs on `s.skeleton` (set-up time). */
  onSkeleton(s: MocapStreamSkeleton): void;
  /** A pose decoded into `frame` (reused: read it now); `receivedAtMs` = hrtimeMs() at the message. */
  onFrame(frame: MocapStreamFrame, receivedAtMs: number): void;
  /** Log lines (connections, refusals); default nothing. */
  log?: (line: string) => void;
}

/**
 * Why a streamed skeleton's bones are not the mocap's 21 in {@link MOCAP_BONES} order (what
 * {@link MocapHubDriver} drives: the page's `mocapSkeleton`), naming the first bone that differs; null when
 * they are. Other valid HumanBodyBones skeletons pass `parseMocapSkeletonMessage` but no driver can take them.
 */
export function mocapBonesMismatch(names: readonly string[]): string | null {
  let at = MOCAP_BONES.findIndex((n, i) => names[i] !== n);
  if (at < 0 && names.length > MOCAP_BONE_COUNT) at = MOCAP_BONE_COUNT;
  if (at < 0) return null;
  const got = at < names.length ? names[at] : 'missing';
  const want = at < MOCAP_BONE_COUNT ? MOCAP_BONES[at] : 'no more bones';
  return `mocap skeleton.bones[${at}]: ${got}, expected ${want} (the receiver drives the mocap's ${MOCAP_BONE_COUNT} bones in order: ${MOCAP_BONES.join(', ')})`;
}

/** The receiving end: hand it every socket of {@link BROWSER_SOURCE_PATH} with {@link BrowserSource.attach}. */
export class BrowserSource {
  readonly counters: BrowserSourceCounters = {
    frames: 0,
    malformed: 0,
    lost: 0,
    skeletons: 0,
    connections: 0,
    lastRefusal: '',
  };
  private current: MocapStreamSkeleton | null = null;
  private frame: MocapStreamFrame | null = null;
  private lastFrameNumber = -1;
  private open = 0;
  private nextId = 1;

  constructor(private readonly o: BrowserSourceOptions) {}

  /** Pages connected now. */
  get connected(): number {
    return this.open;
  }

  /** The current skeleton (null before the first skeleton message). */
  get skeleton(): MocapStreamSkeleton | null {
    return this.current;
  }

  /** Take a connected page's socket. */
  attach(ws: WebSocket, from: string): void {
    const id = `page${this.nextId++}`;
    this.open++;
    this.counters.connections++;
    this.o.log?.(`browser source: ${id} connected from ${from}`);
    let lastReply = -1e9;
    const refuse = (reason: string) => {
      this.counters.malformed++;
      this.counters.lastRefusal = reason;
      const now = hrtimeMs();
      if (now - lastReply >= 1000) {
        lastReply = now;
        this.o.log?.(`browser source: ${id}: refused: ${reason}`);
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'refused', reason }));
      }
    };
    ws.on('error', () => undefined);
    ws.on('close', () => {
      this.open--;
      this.o.log?.(`browser source: ${id} closed`);
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const receivedAt = hrtimeMs();
      try {
        const bytes = Array.isArray(data)
          ? new Uint8Array(Buffer.concat(data))
          : data instanceof ArrayBuffer
            ? new Uint8Array(data)
            : (data as Uint8Array);
        if (!isBinary) this.skeletonMessage(Buffer.from(bytes).toString('utf8'), refuse, ws);
        else this.poseMessage(bytes, receivedAt, refuse);
      } catch (e) {
        // a hub that throws on a frame is a bug, not the page's: say it, keep running
        refuse(`internal: ${(e as Error)?.message ?? String(e)}`);
      }
    });
  }

  private skeletonMessage(text: string, refuse: (r: string) => void, ws: WebSocket): void {
    let s: MocapStreamSkeleton;
    try {
      s = parseMocapSkeletonMessage(text);
    } catch (e) {
      if (e instanceof MocapStreamError) {
        refuse(e.message);
        return;
      }
      throw e;
    }
    // a valid HumanBodyBones skeleton that is not the mocap's 21 in order: the page's fault, not ours
    const mismatch = mocapBonesMismatch(s.skeleton.names);
    if (mismatch !== null) {
      refuse(mismatch);
      return;
    }
    try {
      this.o.onSkeleton(s);
    } catch (e) {
      // a skeleton the receiving hubs cannot be set up on (e.g. degenerate offsets: no body frame): the
      // page's data, refused; the receiver builds everything before it swaps, so nothing changed
      if (e instanceof Error) {
        refuse(`mocap skeleton: the hubs cannot run on it: ${e.message}`);
        return;
      }
      throw e;
    }
    this.current = s;
    this.frame = new MocapStreamFrame(s.skeleton);
    this.lastFrameNumber = -1;
    this.counters.skeletons++;
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'skeleton-ok', id: s.id }));
  }

  private poseMessage(bytes: Uint8Array, receivedAt: number, refuse: (r: string) => void): void {
    const s = this.current;
    const f = this.frame;
    if (!s || !f) {
      refuse('pose message before any mocap-skeleton message');
      return;
    }
    const why = readMocapPose(bytes, s.id, f);
    if (why !== null) {
      refuse(why);
      return;
    }
    if (this.lastFrameNumber >= 0 && f.frameNumber > this.lastFrameNumber + 1)
      this.counters.lost += f.frameNumber - this.lastFrameNumber - 1;
    this.lastFrameNumber = f.frameNumber;
    this.counters.frames++;
    this.o.onFrame(f, receivedAt);
  }

  /** One line saying why no pose has arrived. */
  whyNoFrames(pageUrl: string): string {
    const c = this.counters;
    if (c.connections === 0)
      return `no pose from the browser page yet: open ${pageUrl} (kind mocap serves the page) and start the camera`;
    if (c.skeletons === 0)
      return c.malformed > 0
        ? `the page connected but its messages were refused: ${c.lastRefusal}`
        : 'the page connected but has not calibrated yet (it sends the skeleton once calibrated: stand in view)';
    return c.malformed > 0
      ? `the page's poses were refused: ${c.lastRefusal}`
      : 'the page calibrated but sends no pose (is the camera running?)';
  }
}
