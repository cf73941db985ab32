/**
 * "Stream to": the mocap page as a live source (issue 23 item 5, src/mocap/STREAM.md). Sends the solver's
 * skeleton (text, once per calibration) and every solved pose (binary, 485 bytes for the 21 bones,
 * src/mocap/stream.ts) over a WebSocket to `kind live --source browser` (`ws://127.0.0.1:64212/source`) or
 * to Unity's KindBrowserMocapSource. Set by the page's URL field / Connect button, or `?live=ws://...` (and
 * `?token=`, sent as `?token=` on the socket URL, as the remote control takes it). Frames solved while the
 * socket is not open, or while its send buffer holds over 64 KiB (a slow receiver), are not sent (counted).
 * The send stamp is the page's epoch clock (`performance.timeOrigin + performance.now()`).
 */
import type { Skeleton } from '../../core/skeleton';
import { MocapPoseWriter, mocapSkeletonMessage } from '../../mocap';

/** What the page shows and tests read. */
export interface MocapStreamStatus {
  /** 'off' | 'connecting' | 'open' | 'closed' | 'error'. */
  state: 'off' | 'connecting' | 'open' | 'closed' | 'error';
  /** The socket URL (token hidden). */
  url: string;
  /** Pose messages sent. */
  sent: number;
  /** Solved frames not sent (socket not open, or send buffer over the limit). */
  skipped: number;
  /** Skeleton messages sent. */
  skeletons: number;
  /** The last refusal the receiver sent back, or ''. */
  lastRefusal: string;
  /** Bytes of one pose message (0 before a skeleton). */
  poseBytes: number;
}

const MAX_BUFFERED = 1 << 16;

/** The page's stream: `connect`, `skeleton` on every calibration, `pose` on every solved frame. */
export class MocapStream {
  readonly status: MocapStreamStatus = {
    state: 'off',
    url: '',
    sent: 0,
    skipped: 0,
    skeletons: 0,
    lastRefusal: '',
    poseBytes: 0,
  };
  private ws: WebSocket | null = null;
  private skeletonText = '';
  private skeletonId = 0;
  private writer: MocapPoseWriter | null = null;
  private frameNumber = 0;

  constructor(private readonly onChange: (s: MocapStreamStatus) => void = () => undefined) {}

  /**
   * Open a socket to `url` (`ws://` or `wss://`), with `token` added as `?token=` when given; closes any
   * open one. Sends the current skeleton once open.
   * @throws Error for a URL that is not ws:// or wss://.
   */
  connect(url: string, token?: string): void {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new Error(`stream to: '${url}' is not a URL (e.g. ws://127.0.0.1:64212/source)`);
    }
    if (u.protocol !== 'ws:' && u.protocol !== 'wss:')
      throw new Error(`stream to: '${url}' is not a ws:// or wss:// URL`);
    this.disconnect();
    this.status.url = u.toString();
    if (token) u.searchParams.set('token', token);
    const ws = new WebSocket(u.toString());
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.set('connecting');
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.set('open');
      if (this.skeletonText) this.sendSkeleton();
    };
    ws.onmessage = (e) => {
      if (typeof e.data !== 'string') return;
      try {
        const m = JSON.parse(e.data) as { type?: string; reason?: string };
        if (m.type === 'refused') {
          this.status.lastRefusal = String(m.reason);
          this.onChange(this.status);
        }
      } catch {
        // not ours to judge
      }
    };
    ws.onerror = () => {
      if (this.ws === ws) this.set('error');
    };
    ws.onclose = () => {
      if (this.ws === ws) this.set(this.status.state === 'error' ? 'error' : 'closed');
    };
  }

  /** Close the socket (state 'off'). */
  disconnect(): void {
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    this.set('off');
  }

  /** A new calibration: the skeleton message (id counts up) is sent now if open, and on every (re)connect. */
  skeleton(sk: Skeleton): void {
    this.skeletonId++;
    this.skeletonText = mocapSkeletonMessage(sk, this.skeletonId);
    this.writer = new MocapPoseWriter(sk.names.length);
    this.status.poseBytes = this.writer.bytes.length;
    this.frameNumber = 0;
    if (this.ws?.readyState === WebSocket.OPEN) this.sendSkeleton();
  }

  /** One solved frame (the MocapSolver's arrays after `step`); allocates nothing. */
  pose(
    timeMs: number,
    personFound: boolean,
    localRotations: ArrayLike<number>,
    localTranslations: ArrayLike<number>,
    confidence: ArrayLike<number>,
    state: ArrayLike<number>,
  ): void {
    const w = this.writer;
    if (!w) return;
    const n = this.frameNumber++;
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > MAX_BUFFERED) {
      if (ws) this.status.skipped++;
      return;
    }
    const sentAt = performance.timeOrigin + performance.now();
    ws.send(
      w.write(
        this.skeletonId,
        n,
        personFound,
        timeMs,
        sentAt,
        localRotations,
        localTranslations,
        confidence,
        state,
      ),
    );
    this.status.sent++;
  }

  private sendSkeleton(): void {
    this.ws?.send(this.skeletonText);
    this.status.skeletons++;
    this.onChange(this.status);
  }

  private set(state: MocapStreamStatus['state']): void {
    this.status.state = state;
    this.onChange(this.status);
  }
}

declare global {
  interface Window {
    /** The page's stream (tests, debugging). */
    kindMocapStream: MocapStream;
  }
}

/**
 * The "Stream to" controls (index.html: `#streamUrl`, `#streamToken`, `#streamConnect`, `#streamState`): the
 * button connects / disconnects, the state line shows the state, messages sent and skipped, and the last
 * refusal. `?live=<ws url>` (and `?token=`) fills them and connects at once. Returns the stream (also
 * `window.kindMocapStream`).
 */
export function wireMocapStream(params: URLSearchParams): MocapStream {
  const el = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;
  const url = el<HTMLInputElement>('streamUrl');
  const token = el<HTMLInputElement>('streamToken');
  const button = el<HTMLButtonElement>('streamConnect');
  const line = el<HTMLElement>('streamState');
  const show = (s: MocapStreamStatus) => {
    if (button)
      button.textContent = s.state === 'open' || s.state === 'connecting' ? 'Disconnect' : 'Connect';
    if (line) {
      line.textContent =
        s.state === 'off'
          ? 'not streaming'
          : `${s.state}: ${s.sent} poses sent (${s.poseBytes} B each), ${s.skipped} skipped${s.lastRefusal ? `; refused: ${s.lastRefusal}` : ''}`;
      line.classList.toggle('error', s.state === 'error' || s.lastRefusal !== '');
    }
  };
  const stream = new MocapStream(show);
  window.kindMocapStream = stream;
  const start = () => {
    try {
      stream.connect(url?.value.trim() ?? '', token?.value || undefined);
    } catch (e) {
      if (line) line.textContent = (e as Error).message;
    }
  };
  button?.addEventListener('click', () => {
    if (stream.status.state === 'open' || stream.status.state === 'connecting') stream.disconnect();
    else start();
  });
  const live = params.get('live');
  if (url && live) url.value = live;
  if (token && params.get('token')) token.value = params.get('token') ?? '';
  setInterval(() => show(stream.status), 500);
  if (live) start();
  return stream;
}
