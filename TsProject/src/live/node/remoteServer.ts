/**
 * The remote-control WebSocket server (Node, `ws`): every text message goes through a
 * {@link RemoteControl}; its reply goes back to the sender, its broadcast to every other client.
 *
 * Defaults: port 64212, path `/retargeting`, bound to 127.0.0.1 (pass `host: '0.0.0.0'` to open it to
 * the network). With a `token`, the upgrade request must carry it as `?token=` in the URL or in the
 * `x-kind-token` header, or it is refused with HTTP 401 (compared in constant time). Another path gets
 * 404, a plain HTTP request 426. A browser page whose `Origin` is not allowed gets 403 (src/io/node/origin.ts:
 * by default only the project's own pages, i.e. the viewer on one of `pagePorts` on this machine, plus
 * `allowedOrigins`); clients without an `Origin` header (scripts, tools) are not asked.
 *
 * Protection of the frame loop and of the other clients:
 * - messages over `maxMessageBytes` (default DEFAULT_MAX_MESSAGE_BYTES, 16384: the protocol's own limit,
 *   and the Unity server's) close the connection (ws `maxPayload`, close code 1009; ws sends no reason
 *   text, the log line names the limit);
 * - an unmasked client frame closes the connection with 1002 (ws; RFC 6455 section 5.1); logged;
 * - per client a token bucket of `maxMessagesPerSecond` (burst the same): a message over the rate is
 *   dropped unread and answered with an error reply (field `$`);
 * - every send is non-blocking (`ws.send` queues; nothing awaits a client). A client whose send
 *   buffer (`bufferedAmount`: bytes queued in ws and the socket not yet handed to the kernel) is over
 *   `maxBufferedBytes` is skipped (broadcasts and its own replies are dropped and counted: the newest
 *   messages go, so its queue stays under `maxBufferedBytes` plus one message), and closed (terminated:
 *   a client that does not read cannot read a close frame either) when it stays over for
 *   `slowClientTimeoutMs`;
 * - binary messages are answered with an error reply; nothing is logged unless `log` is given.
 */
import { timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { checkAllowedOrigins, originRefusal } from '../../io/node/origin';
import { DEFAULT_MAX_MESSAGE_BYTES, errorReply, type RemoteControl } from '../remote';

export interface RemoteServerOptions {
  control: RemoteControl;
  /** TCP port; default 64212; 0 picks a free one (see the handle's `port`). */
  port?: number;
  /** Interface to bind; default '127.0.0.1' (local only). */
  host?: string;
  /** WebSocket path; default '/retargeting'. */
  path?: string;
  /** Shared token; when set, required as `?token=` or the `x-kind-token` header. */
  token?: string;
  /** Largest message, bytes (ws maxPayload); default DEFAULT_MAX_MESSAGE_BYTES (16384, the protocol's). */
  maxMessageBytes?: number;
  /** Messages per second per client (token bucket, burst the same); default 50. */
  maxMessagesPerSecond?: number;
  /** Most clients at once; more are refused with 503 (default 64). */
  maxClients?: number;
  /**
   * Messages per second over all clients together (token bucket; default 1000): every change is sent on
   * to every other client, so many clients each within its own rate could still flood the frame loop.
   */
  maxTotalMessagesPerSecond?: number;
  /** Send-buffer bytes over which a client is skipped; default 1 MiB. */
  maxBufferedBytes?: number;
  /** A client over `maxBufferedBytes` for this long is closed; default 5000 ms. */
  slowClientTimeoutMs?: number;
  /** Browser origins allowed besides the project's own pages (`scheme://host[:port]`; `*`: any). */
  allowedOrigins?: readonly string[];
  /** Ports of the project's own pages on this machine (the viewer's); more with the handle's allowPagePort. */
  pagePorts?: readonly number[];
  /** Log lines (connections, refusals, closes); default: nothing is logged. */
  log?: (line: string) => void;
  /**
   * Other WebSocket paths on the same port (e.g. `/source`, the browser mocap source of `kind live`): an
   * upgrade there passes the same origin and token rules as `path`, then the socket is handed to the
   * handler (it is not a remote-control client: no rate limit, no broadcasts, not in `clients` of the stats;
   * it does count towards `maxClients`).
   */
  extraPaths?: Readonly<Record<string, (ws: WebSocket, from: string) => void>>;
}

export interface RemoteServerStats {
  /** Open clients. */
  clients: number;
  /** Connections accepted since start. */
  connections: number;
  /** Upgrades refused (401 token, 403 origin, 404 path, 503 full). */
  refused: number;
  /** Text messages handled by the control. */
  messages: number;
  /** Messages dropped by the rate limit. */
  rateLimited: number;
  /** Binary messages (answered with an error). */
  binary: number;
  /** Replies sent. */
  replies: number;
  /** Broadcast messages sent (one per receiving client). */
  broadcastsSent: number;
  /** Broadcast messages and replies not sent to a client over `maxBufferedBytes`. */
  skippedSlow: number;
  /** Clients closed for staying over `maxBufferedBytes`. */
  closedSlow: number;
  /** The largest send buffer (`bufferedAmount`, bytes) any client had right after a send. */
  peakBufferedBytes: number;
}

export interface RemoteServerHandle {
  /** `ws://host:port/path` (without the token). */
  url: string;
  port: number;
  clientCount(): number;
  /** Allow the pages served on this port of this machine (e.g. the viewer's, once it listens). */
  allowPagePort(port: number): void;
  stats(): RemoteServerStats;
  /** Close every client and the listening socket. */
  close(): Promise<void>;
}

interface Client {
  id: string;
  ws: WebSocket;
  tokens: number;
  last: number;
  /** Time it went over maxBufferedBytes (ms), or -1. */
  overSince: number;
}

function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = new Uint8Array(new TextEncoder().encode(given));
  const b = new Uint8Array(new TextEncoder().encode(token));
  // timingSafeEqual needs equal lengths: a wrong length compares the token with itself and fails
  const same = a.length === b.length;
  const equal = timingSafeEqual(same ? a : b, b);
  return same && equal;
}

function refuse(socket: Duplex, status: number, reason: string, body = ''): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.destroy();
}

/**
 * Start the server. Resolves once listening.
 * @throws (rejects) on a bad option or when the port cannot be bound (EADDRINUSE, ...).
 */
export async function startRemoteServer(options: RemoteServerOptions): Promise<RemoteServerHandle> {
  const control = options.control;
  const port = options.port ?? 64212;
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/retargeting';
  const token = options.token;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const allowedOrigins = [...(options.allowedOrigins ?? [])];
  checkAllowedOrigins(allowedOrigins, 'remote server: allowedOrigins');
  const pagePorts = new Set<number>(options.pagePorts ?? []);
  const rate = options.maxMessagesPerSecond ?? 50;
  const maxBuffered = options.maxBufferedBytes ?? 1 << 20;
  const maxClients = options.maxClients ?? 64;
  const totalRate = options.maxTotalMessagesPerSecond ?? 1000;
  if (!(Number.isInteger(maxClients) && maxClients > 0))
    throw new RangeError(`remote server: maxClients ${maxClients}: need a positive integer`);
  if (!(totalRate > 0))
    throw new RangeError(`remote server: maxTotalMessagesPerSecond ${totalRate}: need > 0`);
  let totalTokens = totalRate;
  let totalLast = performance.now();
  const slowTimeout = options.slowClientTimeoutMs ?? 5000;
  const log = options.log;
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new RangeError(`remote server: port ${port}: need an integer 0..65535`);
  if (!(rate > 0)) throw new RangeError(`remote server: maxMessagesPerSecond ${rate}: need > 0`);
  if (!(maxMessageBytes > 0))
    throw new RangeError(`remote server: maxMessageBytes ${maxMessageBytes}: need > 0`);
  if (token !== undefined && token.length === 0) throw new RangeError('remote server: token is empty');

  const stats: RemoteServerStats = {
    clients: 0,
    connections: 0,
    refused: 0,
    messages: 0,
    rateLimited: 0,
    binary: 0,
    replies: 0,
    broadcastsSent: 0,
    skippedSlow: 0,
    closedSlow: 0,
    peakBufferedBytes: 0,
  };
  const clients = new Set<Client>();
  const extras = new Set<WebSocket>();
  let nextId = 1;

  const httpServer = http.createServer((_req, res) => {
    res.writeHead(426, { 'Content-Type': 'text/plain' });
    res.end(`WebSocket only: connect to ${path}\n`);
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes, clientTracking: false });

  httpServer.on('upgrade', (req, socket, head) => {
    socket.on('error', () => {});
    const url = new URL(req.url ?? '/', 'http://localhost');
    const extras0 = options.extraPaths;
    const extra =
      url.pathname !== path && extras0 && Object.hasOwn(extras0, url.pathname)
        ? extras0[url.pathname]
        : undefined;
    if (url.pathname !== path && extra === undefined) {
      stats.refused++;
      log?.(`remote: refused ${req.socket.remoteAddress}: path ${url.pathname}`);
      refuse(socket, 404, 'Not Found');
      return;
    }
    const refusal = originRefusal(req.headers.origin, req.headers.host, {
      allowed: allowedOrigins,
      pagePorts,
    });
    if (refusal !== null) {
      stats.refused++;
      log?.(`remote: refused ${req.socket.remoteAddress}: 403 (${refusal})`);
      refuse(socket, 403, 'Forbidden', `${refusal}\n`);
      return;
    }
    if (token !== undefined) {
      const header = req.headers['x-kind-token'];
      const given = url.searchParams.get('token') ?? (Array.isArray(header) ? header[0] : header);
      if (!tokenMatches(given, token)) {
        stats.refused++;
        log?.(`remote: refused ${req.socket.remoteAddress}: bad or missing token`);
        refuse(socket, 401, 'Unauthorized');
        return;
      }
    }
    if (clients.size + extras.size >= maxClients) {
      stats.refused++;
      log?.(`remote: refused ${req.socket.remoteAddress}: ${maxClients} clients already`);
      refuse(socket, 503, 'Service Unavailable');
      return;
    }
    if (extra !== undefined) {
      wss.handleUpgrade(req, socket, head, (ws) => {
        extras.add(ws);
        ws.on('close', () => extras.delete(ws));
        extra(ws, req.socket.remoteAddress ?? '?');
      });
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req.socket.remoteAddress ?? '?'));
  });

  /** Send without waiting; skip (and count) a client over the buffer limit. */
  function sendTo(c: Client, data: Buffer): boolean {
    if (c.ws.readyState !== WebSocket.OPEN) return false;
    if (c.ws.bufferedAmount > maxBuffered) {
      stats.skippedSlow++;
      const now = Date.now();
      if (c.overSince < 0) c.overSince = now;
      else if (now - c.overSince > slowTimeout) closeSlow(c);
      return false;
    }
    c.overSince = -1;
    c.ws.send(data, { binary: false });
    if (c.ws.bufferedAmount > stats.peakBufferedBytes) stats.peakBufferedBytes = c.ws.bufferedAmount;
    return true;
  }

  function closeSlow(c: Client): void {
    stats.closedSlow++;
    log?.(`remote: closing ${c.id}: send buffer over ${maxBuffered} bytes for ${slowTimeout} ms`);
    clients.delete(c);
    c.ws.terminate();
  }

  function accept(ws: WebSocket, from: string): void {
    const c: Client = { id: `c${nextId++}`, ws, tokens: rate, last: performance.now(), overSince: -1 };
    clients.add(c);
    stats.connections++;
    log?.(`remote: ${c.id} connected from ${from}`);
    ws.on('error', (e: Error & { code?: string }) => {
      // ws has already closed with the status (1009 / 1002); say which limit or rule
      if (e.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH')
        log?.(`remote: ${c.id} sent a message over ${maxMessageBytes} bytes; closing with 1009`);
      else if (e.code === 'WS_ERR_EXPECTED_MASK')
        log?.(`remote: ${c.id} sent an unmasked frame (RFC 6455 section 5.1); closing with 1002`);
      else log?.(`remote: ${c.id} error: ${e.message}`);
    });
    ws.on('close', (code) => {
      clients.delete(c);
      log?.(`remote: ${c.id} closed (${code})`);
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      // token bucket
      const now = performance.now();
      c.tokens = Math.min(rate, c.tokens + ((now - c.last) / 1000) * rate);
      c.last = now;
      totalTokens = Math.min(totalRate, totalTokens + ((now - totalLast) / 1000) * totalRate);
      totalLast = now;
      if (totalTokens < 1) {
        stats.rateLimited++;
        sendTo(
          c,
          Buffer.from(
            errorReply(null, {
              field: '$',
              message: `rate limit: the server takes at most ${totalRate} messages per second from all clients together; message dropped`,
            }),
          ),
        );
        return;
      }
      if (c.tokens < 1) {
        stats.rateLimited++;
        sendTo(
          c,
          Buffer.from(
            errorReply(null, {
              field: '$',
              message: `rate limit: over ${rate} messages per second; message dropped`,
            }),
          ),
        );
        return;
      }
      c.tokens -= 1;
      totalTokens -= 1;
      if (isBinary) {
        stats.binary++;
        sendTo(c, Buffer.from(errorReply(null, { field: '$', message: 'need a text message (JSON)' })));
        return;
      }
      stats.messages++;
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as ArrayBuffer).toString('utf8');
      const result = control.handle(text, c.id);
      if (sendTo(c, Buffer.from(result.reply))) stats.replies++;
      if (result.broadcast !== undefined) {
        const b = Buffer.from(result.broadcast);
        for (const o of clients) if (o !== c && sendTo(o, b)) stats.broadcastsSent++;
      }
    });
  }

  // clients over the buffer limit get closed even when nothing is sent to them
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const c of clients) {
        if (c.ws.bufferedAmount > maxBuffered) {
          if (c.overSince < 0) c.overSince = now;
          else if (now - c.overSince > slowTimeout) closeSlow(c);
        } else c.overSince = -1;
      }
    },
    Math.max(50, Math.min(1000, slowTimeout / 4)),
  );
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => {
      clearInterval(sweep);
      reject(e);
    };
    httpServer.once('error', onError);
    httpServer.listen(port, host, () => {
      httpServer.off('error', onError);
      resolve();
    });
  });
  httpServer.on('error', (e) => log?.(`remote: server error: ${e.message}`));
  const address = httpServer.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  log?.(`remote: listening on ws://${urlHost}:${boundPort}${path}`);

  let closing: Promise<void> | null = null;
  return {
    url: `ws://${urlHost}:${boundPort}${path}`,
    port: boundPort,
    clientCount: () => clients.size,
    allowPagePort: (p: number) => {
      pagePorts.add(p);
    },
    stats: () => ({ ...stats, clients: clients.size }),
    close: () => {
      if (!closing) {
        closing = new Promise<void>((resolve) => {
          clearInterval(sweep);
          for (const c of clients) c.ws.terminate();
          clients.clear();
          for (const w of extras) w.terminate();
          extras.clear();
          wss.close();
          httpServer.close(() => resolve());
          httpServer.closeAllConnections?.();
        });
      }
      return closing;
    },
  };
}
