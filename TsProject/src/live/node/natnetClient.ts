/**
 * NatNet client for Node (dgram): connects to Motive (or {@link NatNetReplayServer}), decodes frames with the
 * engine-free codec in src/live/natnet, and reports frames, model definitions and stream statistics.
 *
 * Transport (NATNET.md §1): NAT_CONNECT goes from the command socket to `serverAddress:commandPort` (1510);
 * the server answers NAT_SERVERINFO, whose NatNet version selects the decoder; the client then sends
 * NAT_REQUEST_MODELDEF. Frames are accepted on the command socket (unicast: the official Python samples decode
 * NAT_FRAMEOFDATA arriving there, Vortex5Root/NatNetSDK_4.1.0 @ 6764d860f7e6 : natnetsdk/NatNetClient.py) and,
 * with `multicast`, on a data socket bound to the data port that joined the multicast group. The group and
 * port are the ones NAT_SERVERINFO advertises (NatNet >= 3.0: `dataPort`, `multicastGroup`; Motive's
 * defaults 239.255.42.99:1511 for an older server), unless `multicastAddress` / `dataPort` override them, so
 * the data socket opens after the server info. In unicast the client sends NAT_KEEPALIVE every second
 * (SDK 2.10+, required for unicast per whoenig/NatNetSDKCrossplatform @ 4218ed0668d8 : samples/SampleClient).
 * Frames that arrive before the server info (a unicast server may send them as soon as it takes the
 * connect) are held, up to {@link EARLY_FRAMES_HELD} of them, and decoded with the advertised version
 * once it is known. {@link NatNetClient.whyNoFrames} says in one line why a stream may be silent (e.g.
 * the server streams multicast and the client listens for unicast).
 *
 * Robustness: every datagram is decoded in a try/catch; malformed or truncated packets are counted in
 * `stats.malformed`, datagrams over 65503 bytes (SDK 4.3 MAX_PACKETSIZE) in `stats.oversized`, and dropped.
 * Exceptions thrown by user callbacks are caught and counted in `stats.callbackErrors`. Nothing throws from a
 * socket callback. Frames decode into one reused {@link NatNetFrame} (valid until the next callback).
 */
import * as dgram from 'node:dgram';
import * as dns from 'node:dns/promises';
import {
  decodeFrame,
  decodeModelDef,
  decodeResponse,
  decodeServerInfo,
  encodeConnect,
  encodeKeepAlive,
  encodeRequest,
  encodeRequestModelDef,
  type ModelDefinitions,
  NATNET_DEFAULT_DATA_PORT,
  NATNET_DEFAULT_MULTICAST,
  NATNET_MAX_PACKET,
  NatNetFrame,
  NatNetMessage,
  type NatNetResponse,
  type NatNetVersion,
  readHeader,
  type ServerInfo,
} from '../natnet';

/** Frames at most this much older than the last delivered one are late copies; older ones a restart. */
export const REORDER_WINDOW = 8;
/** Frames held when they arrive before NAT_SERVERINFO (the newest are kept); decoded once it arrives. */
export const EARLY_FRAMES_HELD = 64;

/** How frames reach the client, from the connect: what the server advertised and what the client does. */
export interface NatNetStreamSetup {
  /** The server's NAT_SERVERINFO said it streams multicast (undefined: a NatNet 2.x server, it did not say). */
  advertisedMulticast?: boolean;
  /** The group and data port the server advertised (Motive's defaults for a NatNet 2.x server). */
  advertisedGroup: string;
  advertisedDataPort: number;
  /** The client listens on the multicast group (true) or for unicast on its command socket (false). */
  multicast: boolean;
  /** The group joined and the data port bound (multicast only): the advertised ones unless overridden. */
  group?: string;
  dataPort?: number;
}

export interface NatNetClientOptions {
  serverAddress: string;
  /** Server command port (default 1510). */
  commandPort?: number;
  /** Data port for multicast (default: the one NAT_SERVERINFO advertises; 1511 when it says none). */
  dataPort?: number;
  /** Receive frames from the multicast group on the data port (default false: unicast on the command socket). */
  multicast?: boolean;
  /** Multicast group, dotted IPv4 (default: the one NAT_SERVERINFO advertises; 239.255.42.99 when none). */
  multicastAddress?: string;
  /**
   * Local interface address to bind and join the group on (default: 127.0.0.1 for a server on loopback,
   * else any address, and the group joined on the interface the OS picks).
   */
  localAddress?: string;
  /** Give up connecting after this long (default 5000 ms); NAT_CONNECT is resent every 500 ms. */
  connectTimeoutMs?: number;
  /** Keep-alive period in unicast, or whenever the server says it streams unicast (default 1000 ms). */
  keepAliveMs?: number;
  /** Ask a 4.x server for this bitstream version in the connect (e.g. '4.1'); default none. */
  requestedVersion?: [number, number];
  /**
   * Receive buffer of the sockets frames arrive on (default 4 MiB, about 3000 skeleton frames: a garbage
   * collection or a busy moment does not drop datagrams); the OS may cap it (Linux: net.core.rmem_max).
   */
  receiveBufferBytes?: number;
}

export interface NatNetClientStats {
  /** Frames decoded and delivered. */
  received: number;
  /** Frames missing from gaps in frame numbers. */
  lost: number;
  /** Packets that failed to decode (NatNetDecodeError) or had an unknown id. */
  malformed: number;
  /** Datagrams over 65503 bytes. */
  oversized: number;
  /** Frames repeating the last delivered number or up to REORDER_WINDOW older (late, reordered): dropped. */
  duplicates: number;
  /** Frames numbered lower than the last by more than REORDER_WINDOW: taken as a restart of the numbering. */
  restarts: number;
  /** Datagrams from any address but the server's: ignored. */
  foreign: number;
  /** Exceptions thrown by user callbacks (caught). */
  callbackErrors: number;
  /** Counts of malformed packets per decoder error field. */
  malformedByField: Record<string, number>;
}

export type FrameCallback = (frame: NatNetFrame, receivedAtMs: number) => void;

/** Monotonic milliseconds from `process.hrtime` (same clock as the server's pacing). */
export function hrtimeMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export class NatNetClient {
  /** From NAT_SERVERINFO, after connect. */
  serverInfo?: ServerInfo;
  /** The NatNet version frames are decoded with (from ServerInfo). */
  version: NatNetVersion = { major: 3, minor: 0 };
  /** The latest model definitions. */
  modelDefinitions?: ModelDefinitions;
  /** The reused frame object passed to frame callbacks. */
  readonly frame = new NatNetFrame();
  private readonly statsData: NatNetClientStats = {
    received: 0,
    lost: 0,
    malformed: 0,
    oversized: 0,
    duplicates: 0,
    restarts: 0,
    foreign: 0,
    callbackErrors: 0,
    malformedByField: {},
  };
  private command?: dgram.Socket;
  private data?: dgram.Socket;
  private keepAlive?: ReturnType<typeof setInterval>;
  private server = { address: '', port: 1510 };
  private lastFrameNumber: number | undefined;
  private frameCbs: FrameCallback[] = [];
  private modelCbs: ((m: ModelDefinitions) => void)[] = [];
  private serverInfoWaiter?: (s: ServerInfo) => void;
  private modelWaiters: ((m: ModelDefinitions) => void)[] = [];
  /** Waiters for NAT_RESPONSE, oldest first: the reply's bytes (a copy), or null for an unrecognized request. */
  private responseWaiters: ((reply: Uint8Array | null) => void)[] = [];
  /** Frames (copies) that arrived before NAT_SERVERINFO, oldest first; decoded when it arrives. */
  private early: Uint8Array[] = [];
  /** Last callback error (for diagnostics). */
  lastCallbackError?: unknown;
  /** How frames reach this client (after connect). */
  streamSetup?: NatNetStreamSetup;

  /** Called for every new frame with the reused frame and the hrtime receive time in ms. */
  onFrame(cb: FrameCallback): this {
    this.frameCbs.push(cb);
    return this;
  }

  /** Called whenever NAT_MODELDEF arrives. */
  onModelDefinitions(cb: (m: ModelDefinitions) => void): this {
    this.modelCbs.push(cb);
    return this;
  }

  /** Frames lost so far (gaps in frame numbers); no snapshot, for per-frame readers. */
  get lostFrames(): number {
    return this.statsData.lost;
  }

  /** A snapshot of the counters. */
  get stats(): NatNetClientStats {
    return { ...this.statsData, malformedByField: { ...this.statsData.malformedByField } };
  }

  /** The local address of the command socket (where unicast frames arrive). */
  get commandAddress(): { address: string; port: number } | undefined {
    const a = this.command?.address();
    return a ? { address: a.address, port: a.port } : undefined;
  }

  /**
   * Open the sockets, send NAT_CONNECT until NAT_SERVERINFO arrives, then request the model definitions.
   * Resolves with the server info. @throws Error on timeout or a socket error while binding.
   */
  async connect(options: NatNetClientOptions): Promise<ServerInfo> {
    const commandPort = options.commandPort ?? 1510;
    if (typeof options.serverAddress !== 'string' || options.serverAddress.trim() === '')
      throw new Error('NatNet: empty server address');
    // one numeric address: only its packets are taken (anyone else's are counted as foreign)
    let serverIp: string;
    try {
      serverIp = (await dns.lookup(options.serverAddress, { family: 4 })).address;
    } catch (e) {
      throw new Error(
        `NatNet: cannot resolve server address '${options.serverAddress}' (${(e as { code?: string }).code ?? (e as Error).message})`,
      );
    }
    this.server = { address: serverIp, port: commandPort };
    // a loopback server: listen (and join its group) on loopback only
    const local = options.localAddress ?? (serverIp.startsWith('127.') ? '127.0.0.1' : undefined);
    const cmd = dgram.createSocket('udp4');
    this.command = cmd;
    cmd.on('message', (m, r) => this.onDatagram(m, r));
    cmd.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      cmd.once('error', reject);
      cmd.bind(0, local, () => {
        cmd.off('error', reject);
        resolve();
      });
    });
    const receiveBuffer = options.receiveBufferBytes ?? 4 << 20;
    const grow = (s: dgram.Socket) => {
      try {
        if (s.getRecvBufferSize() < receiveBuffer) s.setRecvBufferSize(receiveBuffer);
      } catch {
        // the OS refused: keep its default
      }
    };
    grow(cmd);
    const connectPacket = encodeConnect(
      options.requestedVersion
        ? {
            subscribedDataOnly: false,
            requestedVersion: [options.requestedVersion[0], options.requestedVersion[1], 0, 0],
          }
        : {},
    );
    const info = await new Promise<ServerInfo>((resolve, reject) => {
      const resend = setInterval(() => this.sendCommand(connectPacket), 500);
      const timeout = setTimeout(() => {
        clearInterval(resend);
        this.serverInfoWaiter = undefined;
        reject(new Error(`NatNet: no NAT_SERVERINFO from ${options.serverAddress}:${commandPort}`));
      }, options.connectTimeoutMs ?? 5000);
      this.serverInfoWaiter = (s) => {
        clearInterval(resend);
        clearTimeout(timeout);
        resolve(s);
      };
      this.sendCommand(connectPacket);
    });
    const setup: NatNetStreamSetup = {
      advertisedMulticast: info.isMulticast,
      advertisedGroup: info.multicastAddress ?? NATNET_DEFAULT_MULTICAST,
      advertisedDataPort: info.dataPort ?? NATNET_DEFAULT_DATA_PORT,
      multicast: options.multicast === true,
    };
    this.streamSetup = setup;
    if (options.multicast) {
      // the group and port the server advertised, unless the caller overrides them
      const group = options.multicastAddress ?? setup.advertisedGroup;
      const dataPort = options.dataPort ?? setup.advertisedDataPort;
      setup.group = group;
      setup.dataPort = dataPort;
      const ds = dgram.createSocket({ type: 'udp4', reuseAddr: true });
      this.data = ds;
      ds.on('message', (m, r) => this.onDatagram(m, r));
      ds.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        ds.once('error', reject);
        ds.bind(dataPort, () => {
          ds.off('error', reject);
          resolve();
        });
      }).catch((e: Error) => {
        throw new Error(
          `NatNet: cannot listen on data port ${dataPort} (${(e as { code?: string }).code ?? e.message})`,
        );
      });
      try {
        ds.addMembership(group, local);
      } catch (e) {
        throw new Error(
          `NatNet: cannot join multicast group ${group}${local ? ` on ${local}` : ''} (${(e as { code?: string }).code ?? (e as Error).message})`,
        );
      }
      grow(ds);
    }
    // unicast, or a server that says it streams unicast (its frames come to the command socket even so)
    if (!options.multicast || setup.advertisedMulticast === false) {
      this.keepAlive = setInterval(() => this.sendCommand(encodeKeepAlive()), options.keepAliveMs ?? 1000);
      this.keepAlive.unref?.();
    }
    this.sendCommand(encodeRequestModelDef());
    return info;
  }

  /** Request the model definitions again; resolves with the next NAT_MODELDEF. */
  requestModelDefinitions(timeoutMs = 2000): Promise<ModelDefinitions> {
    return this.waitFor(this.modelWaiters, timeoutMs, 'NAT_MODELDEF', () =>
      this.sendCommand(encodeRequestModelDef()),
    );
  }

  /**
   * Send a NAT_REQUEST text command (e.g. 'Bitstream', 'FrameRate'); resolves with the next NAT_RESPONSE,
   * decoded for this request (a 4-byte reply to 'FrameRate' is a float32, see decodeResponse), or
   * `{ kind: 'int', value: -1 }` when the server did not recognise it.
   * @throws Error on timeout; NatNetDecodeError for a malformed reply (also counted in stats.malformed).
   */
  async request(text: string, timeoutMs = 2000): Promise<NatNetResponse> {
    const reply = await this.waitFor(this.responseWaiters, timeoutMs, `response to '${text}'`, () =>
      this.sendCommand(encodeRequest(text)),
    );
    if (!reply) return { kind: 'int', value: -1 };
    try {
      return decodeResponse(reply, text);
    } catch (e) {
      this.countMalformed((e as { field?: string }).field ?? 'unknown');
      throw e;
    }
  }

  /** Send raw bytes to the server's command port (e.g. a NAT_ECHOREQUEST). */
  sendCommand(bytes: Uint8Array): void {
    const s = this.command;
    if (!s) return;
    try {
      s.send(bytes, this.server.port, this.server.address, () => undefined);
    } catch {
      // socket closed
    }
  }

  private waitFor<T>(
    list: ((v: T) => void)[],
    timeoutMs: number,
    what: string,
    send: () => void,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter = (v: T) => {
        clearTimeout(timer);
        resolve(v);
      };
      const timer = setTimeout(() => {
        const i = list.indexOf(waiter);
        if (i >= 0) list.splice(i, 1);
        reject(new Error(`NatNet: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      list.push(waiter);
      send();
    });
  }

  private countMalformed(field: string): void {
    this.statsData.malformed++;
    const m = this.statsData.malformedByField;
    m[field] = (m[field] ?? 0) + 1;
  }

  private onDatagram(msg: Buffer, rinfo?: dgram.RemoteInfo): void {
    const receivedAtMs = hrtimeMs();
    if (rinfo && rinfo.address !== this.server.address) {
      this.statsData.foreign++;
      return;
    }
    try {
      if (msg.length > NATNET_MAX_PACKET) {
        this.statsData.oversized++;
        return;
      }
      const bytes = new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength);
      if (bytes.length >= 2 && (bytes[0] | (bytes[1] << 8)) === NatNetMessage.FrameOfData) {
        if (!this.serverInfo) {
          // before NAT_SERVERINFO the version is unknown: hold a copy (the socket's buffer is reused)
          if (this.early.length >= EARLY_FRAMES_HELD) this.early.shift();
          this.early.push(bytes.slice());
          return;
        }
        this.onFrameBytes(bytes, receivedAtMs);
        return;
      }
      const h = readHeader(bytes);
      switch (h.messageId) {
        case NatNetMessage.ServerInfo: {
          // only as the answer to our connect: an unasked one must not switch the decoder's version
          if (!this.serverInfoWaiter) break;
          const s = decodeServerInfo(bytes);
          this.serverInfo = s;
          this.version = { major: s.natNetVersion[0], minor: s.natNetVersion[1] };
          const w = this.serverInfoWaiter;
          this.serverInfoWaiter = undefined;
          // the frames that came first, with the version now known (each in its own try: one bad
          // packet is counted and does not drop the rest)
          for (const held of this.early.splice(0)) {
            try {
              this.onFrameBytes(held, receivedAtMs);
            } catch (e) {
              this.countMalformed((e as { field?: string }).field ?? 'unknown');
            }
          }
          w?.(s);
          break;
        }
        case NatNetMessage.ModelDef: {
          const m = decodeModelDef(bytes, this.version);
          this.modelDefinitions = m;
          for (const w of this.modelWaiters.splice(0)) w(m);
          for (const cb of this.modelCbs) this.safe(() => cb(m));
          break;
        }
        case NatNetMessage.Response:
          // decoded by request() (which knows what it asked); the socket's buffer is reused, so a copy
          this.responseWaiters.shift()?.(bytes.slice(0, 4 + h.payloadBytes));
          break;
        case NatNetMessage.UnrecognizedRequest:
        case NatNetMessage.UnrecognizedRequestAlt:
          this.responseWaiters.shift()?.(null);
          break;
        case NatNetMessage.MessageString:
        case NatNetMessage.EchoResponse:
        case NatNetMessage.DisconnectByTimeout:
          break;
        default:
          this.countMalformed('header.messageId');
      }
    } catch (e) {
      this.countMalformed((e as { field?: string }).field ?? 'unknown');
    }
  }

  private onFrameBytes(bytes: Uint8Array, receivedAtMs: number): void {
    const f = decodeFrame(bytes, this.version, this.frame);
    const n = f.frameNumber;
    const last = this.lastFrameNumber;
    if (last !== undefined) {
      if (n === last || (n < last && last - n <= REORDER_WINDOW)) {
        // a repeat, or a late packet overtaken by newer ones: dropped
        this.statsData.duplicates++;
        return;
      }
      if (n < last)
        this.statsData.restarts++; // numbering started again (Motive restarted or looped)
      else if (n > last + 1) this.statsData.lost += n - last - 1;
    }
    this.lastFrameNumber = n;
    this.statsData.received++;
    for (const cb of this.frameCbs) this.safe(() => cb(f, receivedAtMs));
  }

  private safe(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.statsData.callbackErrors++;
      this.lastCallbackError = e;
    }
  }

  /**
   * One line saying why no frame may have arrived, from the server's NAT_SERVERINFO and how this client
   * listens (names `kind live`'s options): a multicast server and a unicast client ("add --multicast"), or
   * the reverse, or another group or port than advertised; otherwise what is left to check.
   */
  whyNoFrames(): string {
    return whyNoFrames(this.streamSetup);
  }

  /** Stop the keep-alive and close the sockets. */
  async close(): Promise<void> {
    this.early.length = 0;
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    const socks = [this.command, this.data].filter((s): s is dgram.Socket => !!s);
    this.command = undefined;
    this.data = undefined;
    await Promise.all(
      socks.map(
        (s) =>
          new Promise<void>((resolve) => {
            try {
              s.close(() => resolve());
            } catch {
              resolve();
            }
          }),
      ),
    );
  }
}

/**
 * One line saying why a stream set up as `setup` may bring no frame (see {@link NatNetClient.whyNoFrames});
 * names `kind live`'s options (--multicast, --multicast-group, --data-port).
 */
export function whyNoFrames(setup: NatNetStreamSetup | undefined): string {
  if (!setup) return 'the server never answered the connect (no NAT_SERVERINFO)';
  const advertised = `${setup.advertisedGroup}:${setup.advertisedDataPort}`;
  const idle = 'is Motive streaming (live, or a take playing), and does a firewall let its UDP through?';
  if (setup.advertisedMulticast === undefined) {
    return setup.multicast
      ? `the server (NatNet before 3.0) does not say how it streams; listening on multicast ${setup.group}:${setup.dataPort}: try without --multicast, or the group and port Motive shows`
      : 'the server (NatNet before 3.0) does not say how it streams; listening for unicast: try --multicast';
  }
  if (setup.advertisedMulticast && !setup.multicast)
    return `the server says it streams multicast to ${advertised}; add --multicast`;
  if (!setup.advertisedMulticast && setup.multicast)
    return 'the server says it streams unicast; leave out --multicast';
  if (setup.multicast && `${setup.group}:${setup.dataPort}` !== advertised)
    return `the server says it streams multicast to ${advertised}, not ${setup.group}:${setup.dataPort}; leave out --multicast-group and --data-port, or set them to that`;
  return setup.multicast
    ? `the server streams multicast to ${advertised} and this client joined it, but nothing arrived: ${idle}`
    : `the server streams unicast to this client, but nothing arrived: ${idle}`;
}
