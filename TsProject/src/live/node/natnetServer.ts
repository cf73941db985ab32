/**
 * NatNet replay server (Node dgram): streams a clip as a Motive skeleton, answering the NatNet handshake like
 * Motive does. The test peer for {@link NatNetClient} and a way to rehearse a show without Motive.
 *
 * Protocol: NATNET.md §1-§5 (packet layouts in src/live/natnet). Decisions where the references disagree:
 * - Unicast frames go to the address:port the client's NAT_CONNECT came from (its command socket), as the
 *   official Python samples expect (Vortex5Root/NatNetSDK_4.1.0 @ 6764d860f7e6 : natnetsdk/NatNetClient.py
 *   and whoenig/NatNetSDKCrossplatform @ 4218ed0668d8 : samples/PythonClient decode frames on the command
 *   socket). A client is dropped after `clientTimeoutMs` without any packet (it sends NAT_KEEPALIVE).
 * - Multicast frames go to `multicast.address:multicast.dataPort` (default 239.255.42.99:1511) and only
 *   there, as Motive in multicast mode sends them: a connected client gets each frame once, from the group
 *   (commands are still answered on its command socket, including NAT_REQUEST_FRAMEOFDATA).
 * - `FrameRate` is answered with a float32 (frames per second of the replay), as Motive does.
 * - NatNet 4.0 frames carry no precision timestamp (SDK 4.3 gate, 4.1+).
 *
 * The Motive skeleton: the clip's humanoid bones among Motive's 21 body bones (Hip = Hips, Ab = Spine,
 * Chest = Chest or else UpperChest, Neck, Head, shoulders, arms, legs, toes) and 30 finger bones, where the
 * clip has them; each bone's parent is its nearest present Motive ancestor. Bone ids are 1..m (parent 0 for
 * the root), names `<skeletonName>_<MotiveName>`. Each frame, each bone's LOCAL pose relative to its Motive
 * parent is computed from the clip's world pose (FK): rotation `inverse(parentWorld) * world`, translation
 * `inverse(parentWorld) * (worldPos - parentWorldPos)`, metres, Y up (our frame = Motive's). Rest offsets in
 * MODELDEF are the same formula on the rest pose; NatNet 4.2 also sends the rest local rotation as
 * `rotationOffset`.
 */
import * as dgram from 'node:dgram';
import { type Clip, HumanBodyBones as H, readFrame } from '../../core';
import { qmulConj, vrotateConj } from '../../core/flat';
import { forwardKinematics, restWorld } from '../../core/skeleton';
import {
  atLeast,
  type BoneDescription,
  decodeConnect,
  decodeEchoRequest,
  decodeRequestText,
  ENCODABLE_VERSIONS,
  type EncodableVersion,
  encodeEchoResponse,
  encodeEmpty,
  encodeFrame,
  encodeModelDef,
  encodeResponse,
  encodeServerInfo,
  MOTIVE_BONES,
  motiveBoneToHuman,
  motiveParent,
  NatNetFrame,
  NatNetMessage,
  type NatNetVersion,
  parseVersion,
  readHeader,
  type SkeletonDescription,
  version4Of,
} from '../natnet';

export interface ReplayServerOptions {
  /** The clip to replay; its skeleton must carry a humanoid map with at least Hips. */
  clip: Clip;
  /** Command port (default 1510; 0 = ephemeral, see {@link NatNetReplayServer.port}). */
  commandPort?: number;
  /** Address to bind (default '127.0.0.1'; '0.0.0.0' for the network). */
  host?: string;
  /** Bitstream version (default '4.1'). Clients may change theirs with 'Bitstream,M.m' or a 4.x connect. */
  version?: EncodableVersion;
  /** Playback speed factor (default 1 = the clip's frame rate). */
  rate?: number;
  /** Loop at the end (default true); otherwise streaming stops after the last frame. */
  loop?: boolean;
  /** No timer: frames are sent only by {@link NatNetReplayServer.step} (tests). */
  manual?: boolean;
  /**
   * Stream to a multicast group instead of to each client (as Motive's multicast mode): `address` (default
   * 239.255.42.99), `dataPort` (default 1511), both advertised in NAT_SERVERINFO; `interface`, the local
   * address to send from (e.g. '127.0.0.1': the group on loopback only); `ttl` (default 1, one network
   * hop; 0 keeps the datagrams on this machine).
   */
  multicast?: boolean | { address?: string; dataPort?: number; interface?: string; ttl?: number };
  /** Skeleton asset name (default 'Skeleton'); bone names are `<name>_<MotiveBone>`. */
  skeletonName?: string;
  /** Skeleton id (default 1). */
  skeletonId?: number;
  /** Drop a unicast client after this long without a packet from it (default 10000 ms). */
  clientTimeoutMs?: number;
  /**
   * NatNet 3.x MODELDEF: skeleton bones with the per-bone marker block (default true, the SDK 4.x layout)
   * or without it (false, the SDK 3.0-3.1 layout); see decodeModelDef. Other versions ignore it.
   */
  boneMarkers?: boolean;
}

/** One bone of the Motive skeleton the server builds. */
export interface ReplayBone {
  motiveName: string;
  id: number;
  parentId: number;
  /** Index of the Motive parent in the bone list, -1 for the root. */
  parent: number;
  humanBone: number;
  /** Bone index in the clip's skeleton. */
  sourceBone: number;
}

interface ClientEntry {
  address: string;
  port: number;
  version: NatNetVersion;
  lastSeen: number;
}

const TICKS_PER_SECOND = 10_000_000;
/**
 * Most frames sent in one timer tick when the timer fired late. A client in the same process reads its
 * socket once per event-loop turn (up to 32 datagrams), so a small burst can never overflow its receive
 * buffer however busy the machine is: a stall delays the replay rather than losing frames on loopback.
 */
const MAX_BURST = 4;
const nowTicks = (): number => Number(process.hrtime.bigint() / 100n);
const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Build the Motive bone list from a humanoid-mapped skeleton (set-up time). */
export function motiveBonesFor(clip: Clip): ReplayBone[] {
  const hum = clip.skeleton.humanoid;
  if (hum[H.Hips] < 0) throw new Error(`clip '${clip.name}': the skeleton has no Hips in its humanoid map`);
  const bones: ReplayBone[] = [];
  const index = new Map<string, number>();
  for (const name of MOTIVE_BONES) {
    const h = motiveBoneToHuman(name);
    let src = hum[h];
    if (h === H.Chest && src < 0) src = hum[H.UpperChest];
    if (src < 0) continue;
    let p = motiveParent(name);
    while (p && !index.has(p)) p = motiveParent(p);
    const parent = p ? (index.get(p) ?? -1) : -1;
    index.set(name, bones.length);
    bones.push({
      motiveName: name,
      id: bones.length + 1,
      parentId: parent >= 0 ? parent + 1 : 0,
      parent,
      humanBone: h,
      sourceBone: src,
    });
  }
  return bones;
}

/**
 * Replays a clip over NatNet. `start()` binds the command socket and begins streaming; `close()` stops the
 * timer and closes every socket.
 */
export class NatNetReplayServer {
  private socket?: dgram.Socket;
  private dataSocket?: dgram.Socket;
  private timer?: ReturnType<typeof setTimeout>;
  private clients = new Map<string, ClientEntry>();
  private opts!: Required<Omit<ReplayServerOptions, 'multicast' | 'boneMarkers'>> & {
    boneMarkers: boolean;
    multicast?: { address: string; dataPort: number; interface?: string; ttl: number };
  };
  private version: NatNetVersion = { major: 4, minor: 1 };
  private bones: ReplayBone[] = [];
  private description!: SkeletonDescription;
  private frame = new NatNetFrame();
  private frameCounter = 0;
  private t0 = 0;
  private playing = true;
  private localRot = new Float64Array(0);
  private localPos = new Float64Array(0);
  private worldRot = new Float64Array(0);
  private worldPos = new Float64Array(0);
  private motiveRot = new Float64Array(0);
  private motivePos = new Float64Array(0);
  private encoded = new Map<string, Uint8Array>();
  /** Counters: frames sent (per destination), commands handled, malformed packets received. */
  readonly stats = { framesStreamed: 0, packetsSent: 0, commands: 0, malformed: 0, sendErrors: 0 };

  /** The bound command port. */
  get port(): number {
    return this.socket?.address().port ?? 0;
  }

  /** The Motive skeleton bones (after start). */
  get motiveBones(): readonly ReplayBone[] {
    return this.bones;
  }

  /** The skeleton description sent in MODELDEF (after start). */
  get skeletonDescription(): SkeletonDescription {
    return this.description;
  }

  /** Number of unicast clients. */
  get clientCount(): number {
    return this.clients.size;
  }

  /** Frames produced so far (the next frame number is `framesProduced + 1`). */
  get framesProduced(): number {
    return this.frameCounter;
  }

  /** Bind and start streaming. Resolves with the bound command port. */
  async start(options: ReplayServerOptions): Promise<{ port: number }> {
    const clip = options.clip;
    const mc = options.multicast;
    this.opts = {
      clip,
      commandPort: options.commandPort ?? 1510,
      host: options.host ?? '127.0.0.1',
      version: options.version ?? '4.1',
      rate: options.rate ?? 1,
      loop: options.loop ?? true,
      manual: options.manual ?? false,
      skeletonName: options.skeletonName ?? 'Skeleton',
      skeletonId: options.skeletonId ?? 1,
      clientTimeoutMs: options.clientTimeoutMs ?? 10000,
      boneMarkers: options.boneMarkers ?? true,
      multicast: mc
        ? {
            address: (typeof mc === 'object' && mc.address) || '239.255.42.99',
            dataPort: (typeof mc === 'object' && mc.dataPort) || 1511,
            interface: typeof mc === 'object' ? mc.interface : undefined,
            ttl: typeof mc === 'object' && mc.ttl !== undefined ? mc.ttl : 1,
          }
        : undefined,
    };
    if (!ENCODABLE_VERSIONS.includes(this.opts.version)) {
      throw new Error(`NatNet version '${this.opts.version}': use one of ${ENCODABLE_VERSIONS.join(', ')}`);
    }
    if (!(this.opts.rate > 0)) throw new Error(`rate ${this.opts.rate}: need a positive speed factor`);
    this.version = parseVersion(this.opts.version);
    this.buildSkeleton();

    const sock = dgram.createSocket('udp4');
    this.socket = sock;
    sock.on('message', (msg, rinfo) => this.onMessage(msg, rinfo));
    sock.on('error', () => {
      this.stats.sendErrors++;
    });
    await new Promise<void>((resolve, reject) => {
      sock.once('error', reject);
      sock.bind(this.opts.commandPort, this.opts.host, () => {
        sock.off('error', reject);
        resolve();
      });
    });
    if (this.opts.multicast) {
      const ds = dgram.createSocket('udp4');
      this.dataSocket = ds;
      ds.on('error', () => {
        this.stats.sendErrors++;
      });
      await new Promise<void>((resolve) => ds.bind(0, this.opts.multicast?.interface, () => resolve()));
      ds.setMulticastTTL(this.opts.multicast.ttl);
      ds.setMulticastLoopback(true);
      if (this.opts.multicast.interface) ds.setMulticastInterface(this.opts.multicast.interface);
    }
    this.t0 = nowMs();
    if (!this.opts.manual) this.schedule();
    return { port: this.port };
  }

  private buildSkeleton(): void {
    const clip = this.opts.clip;
    this.bones = motiveBonesFor(clip);
    const n = clip.skeleton.boneCount;
    const m = this.bones.length;
    this.localRot = new Float64Array(4 * n);
    this.localPos = new Float64Array(3 * n);
    this.worldRot = new Float64Array(4 * n);
    this.worldPos = new Float64Array(3 * n);
    this.motiveRot = new Float64Array(4 * m);
    this.motivePos = new Float64Array(3 * m);
    const rest = restWorld(clip.skeleton);
    const restRot = new Float64Array(4 * m);
    const restPos = new Float64Array(3 * m);
    this.toMotive(rest.rotations, rest.positions, restRot, restPos);
    const name = this.opts.skeletonName;
    const bones: BoneDescription[] = this.bones.map((b, j) => ({
      type: 'rigidBody',
      name: `${name}_${b.motiveName}`,
      id: b.id,
      parentId: b.parentId,
      offset: [restPos[3 * j], restPos[3 * j + 1], restPos[3 * j + 2]],
      rotationOffset: [restRot[4 * j], restRot[4 * j + 1], restRot[4 * j + 2], restRot[4 * j + 3]],
      markers: [],
    }));
    this.description = { type: 'skeleton', name, id: this.opts.skeletonId, bones };
    const f = this.frame;
    f.clear();
    f.setSkeletonCount(1);
    f.skeletonIds[0] = this.opts.skeletonId;
    f.skeletonBoneStart[0] = 0;
    f.skeletonBoneCount[0] = m;
    f.setBoneCount(m);
    for (let j = 0; j < m; j++) {
      f.boneIds[j] = (this.opts.skeletonId << 16) | this.bones[j].id;
      f.boneParams[j] = 1;
      f.boneError[j] = 0;
    }
  }

  /** Motive local poses from source world poses (allocates nothing). */
  private toMotive(wRot: Float64Array, wPos: Float64Array, outRot: Float64Array, outPos: Float64Array): void {
    const bones = this.bones;
    for (let j = 0; j < bones.length; j++) {
      const s = bones[j].sourceBone;
      const p = bones[j].parent;
      if (p < 0) {
        for (let k = 0; k < 4; k++) outRot[4 * j + k] = wRot[4 * s + k];
        for (let k = 0; k < 3; k++) outPos[3 * j + k] = wPos[3 * s + k];
        continue;
      }
      const sp = bones[p].sourceBone;
      qmulConj(outRot, 4 * j, wRot, 4 * sp, wRot, 4 * s);
      for (let k = 0; k < 3; k++) outPos[3 * j + k] = wPos[3 * s + k] - wPos[3 * sp + k];
      vrotateConj(outPos, 3 * j, wRot, 4 * sp, outPos, 3 * j);
    }
  }

  private computeFrame(clipFrame: number): void {
    const clip = this.opts.clip;
    readFrame(clip, clipFrame, this.localRot, this.localPos);
    forwardKinematics(clip.skeleton, this.localRot, this.localPos, this.worldRot, this.worldPos);
    this.toMotive(this.worldRot, this.worldPos, this.motiveRot, this.motivePos);
  }

  /**
   * The Motive local poses the server sends for clip frame `clipFrame` (0-based, clamped): `rotations`
   * (4m) and `translations` (3m, metres), bone order of {@link motiveBones}. Float64 (the wire is float32).
   */
  expectedPose(clipFrame: number): { rotations: Float64Array; translations: Float64Array } {
    const f = Math.max(0, Math.min(this.opts.clip.frameCount - 1, Math.floor(clipFrame)));
    this.computeFrame(f);
    return { rotations: this.motiveRot.slice(), translations: this.motivePos.slice() };
  }

  /** Clip frame index of streamed frame number `frameNumber` (1-based counter). */
  clipFrameOf(frameNumber: number): number {
    const n = this.opts.clip.frameCount;
    return this.opts.loop ? (frameNumber - 1) % n : Math.min(n - 1, frameNumber - 1);
  }

  /** Produce and send the next `count` frames now (manual mode, or extra frames). */
  step(count = 1): void {
    for (let i = 0; i < count; i++) this.sendNextFrame();
  }

  private sendNextFrame(): boolean {
    const clip = this.opts.clip;
    if (!this.opts.loop && this.frameCounter >= clip.frameCount) return false;
    this.frameCounter++;
    const fn = this.frameCounter;
    this.computeFrame(this.clipFrameOf(fn));
    const f = this.frame;
    const m = this.bones.length;
    for (let j = 0; j < m; j++) {
      const o = 7 * j;
      f.bonePose[o] = this.motivePos[3 * j];
      f.bonePose[o + 1] = this.motivePos[3 * j + 1];
      f.bonePose[o + 2] = this.motivePos[3 * j + 2];
      for (let k = 0; k < 4; k++) f.bonePose[o + 3 + k] = this.motiveRot[4 * j + k];
    }
    f.frameNumber = fn;
    f.timestamp = (fn - 1) * clip.frameTime;
    const t = nowTicks();
    f.stampCameraMidExposure = t;
    f.stampDataReceived = t;
    f.stampTransmit = t;
    const ms = Date.now();
    f.precisionTimestampSeconds = Math.floor(ms / 1000);
    f.precisionTimestampFraction = Math.floor(((ms % 1000) / 1000) * 4294967295);
    f.params = 0;
    this.encoded.clear();
    this.stats.framesStreamed++;
    const now = nowMs();
    for (const [key, c] of this.clients) {
      if (now - c.lastSeen > this.opts.clientTimeoutMs) {
        this.clients.delete(key);
        continue;
      }
      // multicast: the group only (a client there would get every frame twice)
      if (!this.opts.multicast) this.send(this.encodedFor(c.version), c.port, c.address);
    }
    if (this.opts.multicast && this.dataSocket) {
      this.send(
        this.encodedFor(this.version),
        this.opts.multicast.dataPort,
        this.opts.multicast.address,
        this.dataSocket,
      );
    }
    return true;
  }

  private encodedFor(v: NatNetVersion): Uint8Array {
    const key = `${v.major}.${v.minor}`;
    let b = this.encoded.get(key);
    if (!b) {
      b = encodeFrame(this.frame, v);
      this.encoded.set(key, b);
    }
    return b;
  }

  private send(bytes: Uint8Array, port: number, address: string, sock = this.socket): void {
    if (!sock) return;
    try {
      sock.send(bytes, port, address, (err) => {
        if (err) this.stats.sendErrors++;
      });
      this.stats.packetsSent++;
    } catch {
      this.stats.sendErrors++;
    }
  }

  private schedule(): void {
    const interval = (this.opts.clip.frameTime * 1000) / this.opts.rate;
    const tick = () => {
      this.timer = undefined;
      if (!this.socket) return;
      if (this.playing) {
        const due = Math.floor((nowMs() - this.t0) / interval) + 1;
        let burst = 0;
        while (this.frameCounter < due && burst < MAX_BURST) {
          if (!this.sendNextFrame()) return;
          burst++;
        }
        // behind by more than a burst (a stalled event loop): the stream resumes from here, later,
        // instead of flooding the clients' receive buffers with every frame that fell due meanwhile
        if (this.frameCounter < due) this.t0 = nowMs() - this.frameCounter * interval;
      } else {
        this.t0 = nowMs() - this.frameCounter * interval;
      }
      const next = this.t0 + this.frameCounter * interval;
      this.timer = setTimeout(tick, Math.max(0, next - nowMs()));
    };
    this.timer = setTimeout(tick, 0);
  }

  private clientKey(address: string, port: number): string {
    return `${address}:${port}`;
  }

  private onMessage(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    try {
      const bytes = new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength);
      const h = readHeader(bytes);
      const key = this.clientKey(rinfo.address, rinfo.port);
      const known = this.clients.get(key);
      if (known) known.lastSeen = nowMs();
      this.stats.commands++;
      switch (h.messageId) {
        case NatNetMessage.Connect: {
          const c = decodeConnect(bytes);
          let v = known?.version ?? this.version;
          if (c.requestedVersion) {
            const want = `${c.requestedVersion[0]}.${c.requestedVersion[1]}`;
            if ((ENCODABLE_VERSIONS as readonly string[]).includes(want)) v = parseVersion(want);
          }
          this.clients.set(key, { address: rinfo.address, port: rinfo.port, version: v, lastSeen: nowMs() });
          this.send(this.serverInfo(v), rinfo.port, rinfo.address);
          break;
        }
        case NatNetMessage.RequestModelDef: {
          const v = known?.version ?? this.version;
          const layout = v.major === 3 ? { boneMarkers: this.opts.boneMarkers } : {};
          this.send(encodeModelDef({ skeletons: [this.description] }, v, layout), rinfo.port, rinfo.address);
          break;
        }
        case NatNetMessage.RequestFrameOfData:
          if (this.frameCounter > 0)
            this.send(this.encodedFor(known?.version ?? this.version), rinfo.port, rinfo.address);
          break;
        case NatNetMessage.Request:
          this.onRequest(decodeRequestText(bytes), key, rinfo);
          break;
        case NatNetMessage.EchoRequest: {
          const e = decodeEchoRequest(bytes);
          this.send(encodeEchoResponse(e.stamp, nowTicks()), rinfo.port, rinfo.address);
          break;
        }
        case NatNetMessage.KeepAlive:
          break;
        case NatNetMessage.Disconnect:
          this.clients.delete(key);
          break;
        default:
          this.stats.malformed++;
          this.send(encodeEmpty(NatNetMessage.UnrecognizedRequest), rinfo.port, rinfo.address);
      }
    } catch {
      this.stats.malformed++;
    }
  }

  private onRequest(text: string, key: string, rinfo: dgram.RemoteInfo): void {
    const [cmd, arg] = text.split(',', 2).map((s) => s.trim());
    const client = this.clients.get(key);
    const reply = (b: Uint8Array) => this.send(b, rinfo.port, rinfo.address);
    if (cmd === 'Bitstream') {
      if (arg === undefined) {
        const v = client?.version ?? this.version;
        reply(encodeResponse({ kind: 'text', text: `${v.major}.${v.minor}.0.0` }));
        return;
      }
      let ok = false;
      try {
        const v = parseVersion(arg);
        if (client && (ENCODABLE_VERSIONS as readonly string[]).includes(`${v.major}.${v.minor}`)) {
          client.version = v;
          ok = true;
        }
      } catch {
        ok = false;
      }
      reply(encodeResponse({ kind: 'int', value: ok ? 0 : 1 }));
      return;
    }
    if (cmd.toLowerCase() === 'framerate') {
      reply(encodeResponse({ kind: 'float', value: this.opts.rate / this.opts.clip.frameTime }));
      return;
    }
    if (cmd === 'TimelinePlay' || cmd === 'TimelineStop') {
      this.playing = cmd === 'TimelinePlay';
      reply(encodeResponse({ kind: 'int', value: 0 }));
      return;
    }
    reply(encodeEmpty(NatNetMessage.UnrecognizedRequest));
  }

  private serverInfo(v: NatNetVersion): Uint8Array {
    const mc = this.opts.multicast;
    return encodeServerInfo({
      appName: 'KindRetargeting NatNet replay',
      appVersion: atLeast(v, 4, 0) ? [3, v.minor, 0, 0] : [2, 1, 0, 0],
      natNetVersion: version4Of(v),
      highResClockFrequency: TICKS_PER_SECOND,
      dataPort: mc?.dataPort ?? 1511,
      isMulticast: !!mc,
      multicastAddress: mc?.address ?? '239.255.42.99',
    });
  }

  /** Stop streaming and close the sockets. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const socks = [this.socket, this.dataSocket].filter((s): s is dgram.Socket => !!s);
    this.socket = undefined;
    this.dataSocket = undefined;
    this.clients.clear();
    await Promise.all(socks.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
