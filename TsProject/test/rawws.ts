/**
 * A WebSocket client by hand on a raw TCP socket (no `ws`), for the security tests of the C# and Node
 * servers: the test chooses every header (Origin) and every frame bit (the mask). It reads the response
 * head, then the server's frames (RFC 6455 section 5.2; server frames are unmasked).
 */
import * as net from 'node:net';

export interface RawFrame {
  opcode: number;
  payload: Buffer;
}

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

/** A client frame (FIN set), masked with `mask` or unmasked when `mask` is null. */
export function clientFrame(opcode: number, payload: Buffer, mask: number[] | null = [1, 2, 3, 4]): Buffer {
  const n = payload.length;
  const m = mask ? 0x80 : 0;
  let len: Buffer;
  if (n < 126) len = Buffer.from([m | n]);
  else if (n <= 0xffff) len = Buffer.from([m | 126, n >> 8, n & 0xff]);
  else {
    len = Buffer.alloc(9);
    len[0] = m | 127;
    len.writeBigUInt64BE(BigInt(n), 1);
  }
  const body = mask ? payload.map((b, i) => b ^ mask[i % 4]) : payload;
  return Buffer.concat([Buffer.from([0x80 | opcode]), len, mask ? Buffer.from(mask) : Buffer.alloc(0), body]);
}

export const textOf = (msg: unknown, mask: number[] | null = [1, 2, 3, 4]) =>
  clientFrame(1, Buffer.from(typeof msg === 'string' ? msg : JSON.stringify(msg), 'utf8'), mask);

export class RawWs {
  /** Response head (status line and headers), once received. */
  head = '';
  status = 0;
  readonly frames: RawFrame[] = [];
  ended = false;
  private buf = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      if (!this.head) {
        const i = this.buf.indexOf('\r\n\r\n');
        if (i < 0) return;
        this.head = this.buf.subarray(0, i).toString('latin1');
        this.status = Number(this.head.split(' ')[1]);
        this.buf = this.buf.subarray(i + 4);
      }
      this.parse();
      this.wake();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
  }

  /** Connects and sends an upgrade request for `path` with `headers` (e.g. Origin). */
  static open(port: number, path: string, headers: Record<string, string> = {}): RawWs {
    const s = net.connect(port, '127.0.0.1');
    const extra = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    s.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`,
    );
    return new RawWs(s);
  }

  /** A plain HTTP GET (for page servers), read as a head like an upgrade's answer. */
  static get(port: number, path: string, headers: Record<string, string> = {}): RawWs {
    const s = net.connect(port, '127.0.0.1');
    const extra = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n${extra}\r\n`);
    return new RawWs(s);
  }

  private parse(): void {
    if (this.status !== 101) return;
    for (;;) {
      const b = this.buf;
      if (b.length < 2) return;
      let n = b[1] & 0x7f;
      let o = 2;
      if (n === 126) {
        if (b.length < 4) return;
        n = b.readUInt16BE(2);
        o = 4;
      } else if (n === 127) {
        if (b.length < 10) return;
        n = Number(b.readBigUInt64BE(2));
        o = 10;
      }
      if (b.length < o + n) return;
      this.frames.push({ opcode: b[0] & 0x0f, payload: Buffer.from(b.subarray(o, o + n)) });
      this.buf = b.subarray(o + n);
    }
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Waits (on events) until `pred` holds; fails after `ms` (a guard for a busy machine, not a timing). */
  async until(what: string, pred: () => boolean, ms = 20000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred()) {
      const left = end - Date.now();
      if (left <= 0)
        throw new Error(`raw client: timed out waiting for ${what} (head ${JSON.stringify(this.head)})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async answered(): Promise<number> {
    await this.until('the response head', () => this.head !== '' || this.ended);
    return this.status;
  }

  /** The close frame's status and reason, once it came. */
  async closeFrame(): Promise<{ code: number; reason: string }> {
    await this.until('a close frame', () => this.frames.some((f) => f.opcode === 8) || this.ended);
    const f = this.frames.find((x) => x.opcode === 8);
    if (!f) throw new Error('raw client: the connection ended without a close frame');
    return {
      code: f.payload.length >= 2 ? f.payload.readUInt16BE(0) : 1005,
      reason: f.payload.subarray(2).toString('utf8'),
    };
  }

  /** Text messages received, parsed as JSON. */
  texts(): Record<string, unknown>[] {
    return this.frames.filter((f) => f.opcode === 1).map((f) => JSON.parse(f.payload.toString('utf8')));
  }

  send(frame: Buffer): Promise<void> {
    return new Promise((resolve) => this.socket.write(frame, () => resolve()));
  }

  destroy(): void {
    this.socket.destroy();
  }
}
