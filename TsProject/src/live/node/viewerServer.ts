/**
 * The live viewer's server (Node): the viewer page and its bundle, the scene description, the avatar
 * files, and the pose stream on a WebSocket.
 *
 * Paths (nothing else is served; every other path, method or upgrade gets 404/405 — request paths are
 * only ever looked up in a fixed table, never joined to a folder, so no directory traversal):
 * - `GET /`, `/index.html`: the page; `/viewer.js` (+ `/viewer.js.map` when built): the bundle, both
 *   from the web root (default `TsProject/dist/web`, built by `tools/build.mjs` from `src/web/viewer`);
 * - `GET /scene.json`: {@link ViewerScene} plus `layout` (the pose-message layout below);
 * - `GET <path>` for each entry of `files` (e.g. `/avatars/0.glb`);
 * A request (page, file or upgrade) carrying an `Origin` header that is neither the viewer's own (this
 * port on this machine) nor on `allowedOrigins` gets 403 (src/io/node/origin.ts): another web site's
 * page cannot read the stream. Requests without `Origin` (the page's own loads, scripts) are not asked.
 * - WebSocket upgrade at `/pose`: the pose stream (server -> client only; client messages are ignored);
 *   `/pose?raw=1`: the same stream in layout version 2, the raw source pose (before the source filter)
 *   appended to each message (the viewer asks for it when its "raw source" toggle or `?raw=1` is on).
 *
 * ## Pose message
 * One binary WebSocket message per frame; the layout is documented (once) in src/live/viewer/poseLayout.ts,
 * which also holds the scene types and the decoder both sides use.
 *
 * ## Back-pressure
 * {@link ViewerServer.publish} never waits: a client whose `bufferedAmount` (bytes in ws and its socket
 * not yet handed to the kernel) is over `maxBufferedBytes` (default 256 KiB) is skipped for that frame.
 * `ws` sends a Buffer without copying it, so a message buffer stays referenced while it waits in a slow
 * client's queue: the buffers are pooled, one is reused frame after frame while every client's queue
 * is empty after the send (the usual case: the kernel takes the whole message at once), and a buffer
 * that may still be queued is not overwritten until those clients' queues are empty (the pool grows
 * instead; its size is bounded by the queued bytes, under `maxBufferedBytes` + one message per
 * client). Per frame it allocates nothing beyond what `ws` allocates for each send (its frame header).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Skeleton } from '../../core';
import { checkAllowedOrigins, originRefusal } from '../../io/node/origin';
import {
  POSE_HEADER_FLOATS,
  POSE_LAYOUT_VERSION,
  POSE_LAYOUT_VERSION_RAW,
  POSE_SCALES_PER_AVATAR,
  type PoseLayoutInfo,
  poseMessageFloats,
  type ViewerFrame,
  type ViewerScene,
  type ViewerSkeleton,
} from '../viewer/poseLayout';

export {
  decodePoseMessage,
  POSE_HEADER_FLOATS,
  POSE_LAYOUT_VERSION,
  POSE_LAYOUT_VERSION_RAW,
  POSE_SCALES_PER_AVATAR,
  type PoseLayoutInfo,
  poseMessageFloats,
  type ViewerFrame,
  type ViewerScene,
  type ViewerSkeleton,
} from '../viewer/poseLayout';

export interface ViewerServerOptions {
  scene: ViewerScene;
  /** URL path -> local file to serve, e.g. `{ '/avatars/0.glb': '/path/avatar.glb' }`. */
  files?: Record<string, string>;
  /** TCP port; 0 = ephemeral; default 8064. */
  port?: number;
  /** Bind address; default 127.0.0.1. */
  host?: string;
  /** Folder holding `index.html` and `viewer.js`; default: `dist/web` of TsProject. */
  webRoot?: string;
  /** A client with more bytes than this waiting to be sent is skipped for a frame; default 256 KiB. */
  maxBufferedBytes?: number;
  /** Browser origins allowed besides the viewer's own (`scheme://host[:port]`; `*`: any). */
  allowedOrigins?: readonly string[];
  /** Called with one line per refused origin (default: console.warn is not used; nothing). */
  log?: (line: string) => void;
}

export interface ViewerServerStats {
  /** Frames published. */
  frames: number;
  /** Messages handed to clients. */
  sent: number;
  /** (client, frame) pairs skipped because the client was behind. */
  skipped: number;
  /** Message buffers in the pool. */
  buffers: number;
}

export interface ViewerServer {
  /** `http://host:port/`. */
  url: string;
  port: number;
  /** Pack `frame` and send it to every `/pose` client that keeps up; never blocks. @throws Error on short arrays. */
  publish(frame: ViewerFrame): void;
  /** Connected `/pose` clients. */
  clientCount(): number;
  stats(): ViewerServerStats;
  close(): Promise<void>;
}

const OPEN = 1; // WebSocket.OPEN

/** A {@link ViewerSkeleton} from a core {@link Skeleton}. */
export function viewerSkeleton(name: string, skeleton: Skeleton, modelUrl?: string): ViewerSkeleton {
  return {
    name,
    boneNames: [...skeleton.names],
    parents: Array.from(skeleton.parents),
    restTranslations: Array.from(skeleton.restTranslations),
    restRotations: Array.from(skeleton.restRotations),
    humanoid: Array.from(skeleton.humanoid),
    ...(modelUrl !== undefined ? { modelUrl } : {}),
  };
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.glb': 'model/gltf-binary',
  '.vrm': 'model/gltf-binary',
  '.gltf': 'model/gltf+json',
  '.bin': 'application/octet-stream',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.ktx2': 'image/ktx2',
  '.webp': 'image/webp',
};

/** The default web root: `dist/web` next to the bundle (dist/kind.cjs), or TsProject/dist/web from src. */
function defaultWebRoot(): string {
  const candidates = [path.join(__dirname, 'web'), path.resolve(__dirname, '../../../dist/web')];
  for (const c of candidates) if (fs.existsSync(path.join(c, 'index.html'))) return c;
  return candidates[candidates.length - 1];
}

function checkSkeleton(s: ViewerSkeleton, where: string): void {
  const n = s.boneNames.length;
  const want = (field: string, len: number, expected: number) => {
    if (len !== expected)
      throw new Error(`${where}.${field}: length ${len}, expected ${expected} (${n} bones)`);
  };
  want('parents', s.parents.length, n);
  want('restTranslations', s.restTranslations.length, 3 * n);
  want('restRotations', s.restRotations.length, 4 * n);
  if (s.humanoid) want('humanoid', s.humanoid.length, 55);
  s.parents.forEach((p, i) => {
    if (!(Number.isInteger(p) && p >= -1 && p < i)) {
      throw new Error(`${where}.parents[${i}] (${s.boneNames[i]}): ${p} is not -1 or an earlier bone`);
    }
  });
}

interface Slot {
  floats: Float32Array;
  bytes: Buffer;
  /** The version-2 message (the version-1 one with the raw source appended), for `/pose?raw=1` clients. */
  rawFloats: Float32Array;
  rawBytes: Buffer;
  /**
   * Clients that still had bytes queued (`bufferedAmount > 0`) right after this buffer was sent to
   * them: the buffer may be in their queue. It is free again once each of them has flushed its queue
   * to the kernel (or closed). `holders[0 .. holderCount)`, the array reused.
   */
  holders: WebSocket[];
  holderCount: number;
}

/**
 * Start the viewer server. Resolves once listening.
 * @throws Error (rejects) on an inconsistent scene (the message names the skeleton and field), a
 * `files` entry whose path is not absolute-looking (`/...`), clashes with a built-in path or whose
 * file does not exist, or when the port cannot be bound.
 */
export async function startViewerServer(opts: ViewerServerOptions): Promise<ViewerServer> {
  const scene = opts.scene;
  checkSkeleton(scene.source, 'scene.source');
  scene.avatars.forEach((a, i) => {
    checkSkeleton(a, `scene.avatars[${i}]`);
  });
  const webRoot = opts.webRoot ?? defaultWebRoot();
  const maxBuffered = opts.maxBufferedBytes ?? 256 * 1024;

  // --- the fixed route table
  type Route = { file?: string; body?: Buffer; type: string };
  const routes = new Map<string, Route>();
  const sceneJson = Buffer.from(
    JSON.stringify({
      ...scene,
      layout: {
        version: POSE_LAYOUT_VERSION,
        headerFloats: POSE_HEADER_FLOATS,
        scalesPerAvatar: POSE_SCALES_PER_AVATAR,
        floats: poseMessageFloats(scene),
      } satisfies PoseLayoutInfo,
    }),
  );
  routes.set('/scene.json', { body: sceneJson, type: CONTENT_TYPES['.json'] });
  const page = { file: path.join(webRoot, 'index.html'), type: CONTENT_TYPES['.html'] };
  routes.set('/', page);
  routes.set('/index.html', page);
  routes.set('/viewer.js', { file: path.join(webRoot, 'viewer.js'), type: CONTENT_TYPES['.js'] });
  routes.set('/viewer.js.map', { file: path.join(webRoot, 'viewer.js.map'), type: CONTENT_TYPES['.map'] });
  for (const [urlPath, file] of Object.entries(opts.files ?? {})) {
    if (
      !urlPath.startsWith('/') ||
      urlPath.includes('..') ||
      urlPath.includes('?') ||
      urlPath.includes('#')
    ) {
      throw new Error(
        `viewer files: URL path '${urlPath}' must start with '/' and contain no '..', '?' or '#'`,
      );
    }
    if (routes.has(urlPath) || urlPath === '/pose')
      throw new Error(`viewer files: '${urlPath}' clashes with a built-in path`);
    if (!fs.existsSync(file) || !fs.statSync(file).isFile())
      throw new Error(`viewer files: '${urlPath}' -> ${file}: no such file`);
    const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
    routes.set(urlPath, { file: path.resolve(file), type });
  }

  const notFound = (res: http.ServerResponse) => {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('not found\n');
  };

  const allowedOrigins = [...(opts.allowedOrigins ?? [])];
  checkAllowedOrigins(allowedOrigins, 'viewer: allowedOrigins');
  const ownPorts = new Set<number>();
  const refusal = (req: http.IncomingMessage): string | null => {
    const why = originRefusal(req.headers.origin, req.headers.host, {
      allowed: allowedOrigins,
      pagePorts: ownPorts,
    });
    if (why !== null) opts.log?.(`viewer: refused ${req.socket.remoteAddress} ${req.url}: 403 (${why})`);
    return why;
  };

  const server = http.createServer((req, res) => {
    const why = refusal(req);
    if (why !== null) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end(`${why}\n`);
      return;
    }
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const urlPath = q >= 0 ? raw.slice(0, q) : raw;
    const route = routes.get(urlPath);
    if (!route) return notFound(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' });
      res.end();
      return;
    }
    const headers = {
      'Content-Type': route.type,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    };
    if (route.body) {
      res.writeHead(200, { ...headers, 'Content-Length': route.body.length });
      res.end(req.method === 'HEAD' ? undefined : route.body);
      return;
    }
    fs.readFile(route.file!, (err, data) => {
      if (err) return notFound(res);
      res.writeHead(200, { ...headers, 'Content-Length': data.length });
      res.end(req.method === 'HEAD' ? undefined : data);
    });
  });

  // --- the pose stream
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024, perMessageDeflate: false });
  const clients: WebSocket[] = [];
  /** Clients that asked for the raw source (`/pose?raw=1`). */
  const rawClients = new Set<WebSocket>();
  const floatCount = poseMessageFloats(scene);
  const rawFloatCount = poseMessageFloats(scene, true);
  const slots: Slot[] = [];
  const newSlot = (): Slot => {
    const floats = new Float32Array(floatCount);
    const rawFloats = new Float32Array(rawFloatCount);
    return {
      floats,
      bytes: Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength),
      rawFloats,
      rawBytes: Buffer.from(rawFloats.buffer, rawFloats.byteOffset, rawFloats.byteLength),
      holders: [],
      holderCount: 0,
    };
  };
  slots.push(newSlot());
  const stats: ViewerServerStats = { frames: 0, sent: 0, skipped: 0, buffers: 1 };

  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => {});
    const why = refusal(req);
    if (why !== null) {
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${why.length + 1}\r\n\r\n${why}\n`,
      );
      return;
    }
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    if ((q >= 0 ? raw.slice(0, q) : raw) !== '/pose') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    const wantsRaw = q >= 0 && new URLSearchParams(raw.slice(q + 1)).get('raw') === '1';
    wss.handleUpgrade(req, socket, head, (ws) => {
      clients.push(ws);
      if (wantsRaw) rawClients.add(ws);
      const drop = () => {
        const i = clients.indexOf(ws);
        if (i >= 0) clients.splice(i, 1);
        rawClients.delete(ws);
      };
      ws.on('close', drop);
      ws.on('error', drop);
      ws.on('message', () => {}); // the stream is one-way; ignore
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8064, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  ownPorts.add(address.port);
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const avatarCount = scene.avatars.length;
  const srcBones = scene.source.boneNames.length;
  const avatarBones = scene.avatars.map((a) => a.boneNames.length);

  const copy = (out: Float32Array, o: number, src: ArrayLike<number>, k: number, field: string): number => {
    if (!src || src.length < k)
      throw new Error(`viewer publish: ${field} has ${src?.length} values, expected ${k}`);
    for (let i = 0; i < k; i++) out[o + i] = src[i];
    return o + k;
  };

  const slotFree = (slot: Slot): boolean => {
    for (let i = 0; i < slot.holderCount; i++) {
      const ws = slot.holders[i];
      if (ws.readyState === OPEN && ws.bufferedAmount > 0) return false;
    }
    return true;
  };

  const publish = (frame: ViewerFrame): void => {
    // a buffer no queued send refers to
    let slotIndex = 0;
    while (slotIndex < slots.length && !slotFree(slots[slotIndex])) slotIndex++;
    if (slotIndex === slots.length) {
      slots.push(newSlot());
      stats.buffers = slots.length;
    }
    const slot = slots[slotIndex];
    slot.holderCount = 0;
    const f = slot.floats;
    f[0] = POSE_LAYOUT_VERSION;
    f[1] = frame.frameNumber;
    f[2] = frame.timestamp;
    f[3] = frame.latencyMs;
    f[4] = frame.dropped;
    f[5] = frame.fps;
    f[6] = srcBones;
    f[7] = avatarCount;
    if (frame.avatars.length < avatarCount)
      throw new Error(`viewer publish: ${frame.avatars.length} avatars, the scene has ${avatarCount}`);
    let o = POSE_HEADER_FLOATS;
    for (let a = 0; a < avatarCount; a++) {
      f[o++] = avatarBones[a];
      f[o++] = POSE_SCALES_PER_AVATAR;
    }
    o = copy(f, o, frame.source.rotations, 4 * srcBones, 'source.rotations');
    o = copy(f, o, frame.source.translations, 3 * srcBones, 'source.translations');
    for (let a = 0; a < avatarCount; a++) {
      const av = frame.avatars[a];
      const n = avatarBones[a];
      o = copy(f, o, av.rotations, 4 * n, 'avatar rotations');
      o = copy(f, o, av.translations, 3 * n, 'avatar translations');
      o = copy(f, o, av.scales, POSE_SCALES_PER_AVATAR, 'avatar scales');
    }
    if (rawClients.size > 0) {
      // version 2: the same message, then the raw source (the filtered one when the host has none)
      const r = slot.rawFloats;
      r.set(f);
      r[0] = POSE_LAYOUT_VERSION_RAW;
      const rs = frame.rawSource ?? frame.source;
      o = copy(r, o, rs.rotations, 4 * srcBones, 'rawSource.rotations');
      copy(r, o, rs.translations, 3 * srcBones, 'rawSource.translations');
    }
    stats.frames++;
    for (let c = 0; c < clients.length; c++) {
      const ws = clients[c];
      if (ws.readyState !== OPEN || ws.bufferedAmount > maxBuffered) {
        stats.skipped++;
        continue;
      }
      ws.send(rawClients.has(ws) ? slot.rawBytes : slot.bytes);
      stats.sent++;
      // not all handed to the kernel: this buffer may wait in the client's queue
      if (ws.bufferedAmount > 0) slot.holders[slot.holderCount++] = ws;
    }
  };

  return {
    url: `http://${hostForUrl}:${address.port}/`,
    port: address.port,
    publish,
    clientCount: () => clients.length,
    stats: () => ({ ...stats }),
    close: async () => {
      for (const ws of [...clients]) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
