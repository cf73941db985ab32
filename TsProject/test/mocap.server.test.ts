/**
 * `kind mocap` with no file (src/cli/mocapServe.ts): the live page's server on 127.0.0.1. In process
 * (src/cli/main), with the page built by tools/build.mjs (skipped with a printed reason when it is not):
 * the URL printed, the page, its bundle and the default avatar served, a foreign Origin refused with 403,
 * SIGINT closes it with one line and exit 130; the default port in --help.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { DEFAULT_MOCAP_PORT, startMocapServer } from '../src/cli/mocapServe';
import { runKind } from './helpers/runCli';

const WEB_ROOT = path.resolve(__dirname, '../dist/web/mocap');
const BUILT = fs.existsSync(path.join(WEB_ROOT, 'mocap.js'));
if (!BUILT) console.warn(`[skip] kind mocap page server: ${WEB_ROOT}/mocap.js not built (npm run build)`);
const itBuilt = BUILT ? it : it.skip;

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('kind mocap (the page server)', () => {
  itBuilt(
    'prints its URL, serves the page, its bundle and the default avatar; 403 for a foreign origin; SIGINT: one line, exit 130',
    async () => {
      const lines: string[] = [];
      const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
        lines.push(a.join(' '));
      });
      const refused = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const { main } = await import('../src/cli/main');
        const run = main(['node', 'kind', 'mocap', '--port', '0']);
        const prefix = 'webcam mocap page: ';
        while (!lines.some((l) => l.startsWith(prefix))) await new Promise((r) => setTimeout(r, 20));
        const url = lines.find((l) => l.startsWith(prefix))!.slice(prefix.length);
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
        const page = await get(url);
        expect(page.status).toBe(200);
        expect(page.body.toString()).toContain('<script type="module" src="mocap.js">');
        expect((await get(`${url}mocap.js`)).status).toBe(200);
        const glb = await get(`${url}avatar/default.glb`);
        expect(glb.status).toBe(200);
        expect(glb.body.subarray(0, 4).toString('latin1')).toBe('glTF');
        const cfg = JSON.parse((await get(`${url}config.json`)).body.toString());
        expect(cfg.legacyPoseBase).toBe('/mediapipe/pose/');
        expect(cfg.recording).toBeNull(); // the puppet page's default recording is not this page's
        expect((await get(`${url}mediapipe/pose/pose.js`)).status).toBe(200);
        expect((await get(`${url}puppet.js`)).status).toBe(404);
        expect((await get(url, { Origin: 'http://evil.example' })).status).toBe(403);
        process.emit('SIGINT', 'SIGINT');
        expect(await run).toBe(130);
        expect(lines.at(-1)).toBe('stopped (SIGINT): the mocap page server is closed');
        await expect(get(url)).rejects.toThrow(/ECONNREFUSED/);
      } finally {
        log.mockRestore();
        refused.mockRestore();
      }
    },
  );

  it('an unbuilt page or a missing avatar: one line naming the file', async () => {
    await expect(startMocapServer({ port: 0, webRoot: path.join(__dirname, 'nothere') })).rejects.toThrow(
      /^mocap page: .*nothere\/index\.html not found \(build it: npm run build\)$/,
    );
    if (BUILT)
      await expect(startMocapServer({ port: 0, webRoot: WEB_ROOT, avatar: '/nothere.glb' })).rejects.toThrow(
        /^\/nothere\.glb: no such avatar file/,
      );
  });

  it('--help shows the default port', async () => {
    const r = await runKind(['mocap', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`--port <n>[\\s\\S]*\\(default: ${DEFAULT_MOCAP_PORT}\\)`));
  });
});
