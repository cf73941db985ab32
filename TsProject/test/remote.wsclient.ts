/** A small `ws` test client for the remote server tests: collects messages, waits for them. */
import WebSocket from 'ws';

export class TestClient {
  readonly ws: WebSocket;
  readonly messages: Record<string, unknown>[] = [];
  private waiters: (() => void)[] = [];

  constructor(url: string, headers?: Record<string, string>) {
    this.ws = new WebSocket(url, { headers });
    this.ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      const w = this.waiters;
      this.waiters = [];
      for (const f of w) f();
    });
  }

  /** Resolves when open; rejects with the HTTP status of a refused upgrade (`unexpected-response`). */
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      this.ws.once('error', (e) => reject(e));
    });
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  /** Wait until `pred` holds over the messages (or fail after `ms`: a generous bound, for a busy machine). */
  async until(pred: (m: Record<string, unknown>[]) => boolean, ms = 30000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred(this.messages)) {
      const left = end - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out; ${this.messages.length} messages: ${JSON.stringify(this.messages.slice(-3))}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  closed(): Promise<number> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) resolve(-1);
      else this.ws.once('close', (code) => resolve(code));
    });
  }

  close(): void {
    this.ws.terminate();
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
