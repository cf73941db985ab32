/**
 * The puppet page's server (src/cli/puppetServe.ts): the fixed route table (page, bundle, config, the
 * MediaPipe files from node_modules byte for byte with their content types, the default drawing and
 * recording, a character folder or image and a recording named by options), 404 for every other path
 * including traversal attempts sent raw on the socket, 405 for other methods, and the start-up errors.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DEFAULT_POSE_TASK_URL,
  LEGACY_POSE_FILES,
  type PuppetPageConfig,
  type PuppetServer,
  startPuppetServer,
  TASKS_VISION_WASM_FILES,
} from '../src/cli/puppetServe';
import { dataPath } from './helpers/data';

const NODE_MODULES = path.resolve(__dirname, '../node_modules');
const CHAR1 = dataPath('animated-drawings/characters/char1');

let tmp: string;
let webRoot: string;
let defaultDir: string;

/** A raw HTTP/1.1 request (the path exactly as given, no client-side normalisation). */
function rawGet(
  url: string,
  rawPath: string,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname, () => {
      sock.write(`${method} ${rawPath} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    sock.on('data', (c) => chunks.push(c));
    sock.on('error', reject);
    sock.on('end', () => {
      const all = Buffer.concat(chunks);
      const sep = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, sep).toString('latin1').split('\r\n');
      const status = Number(head[0].split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: all.subarray(sep + 4) });
    });
  });
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'puppet-server-'));
  webRoot = path.join(tmp, 'web');
  defaultDir = path.join(tmp, 'default');
  fs.mkdirSync(webRoot);
  fs.mkdirSync(defaultDir);
  fs.writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>puppet</title>');
  fs.writeFileSync(path.join(webRoot, 'puppet.js'), 'export {};');
  fs.writeFileSync(path.join(defaultDir, 'texture.png'), Buffer.from([137, 80, 78, 71, 1]));
  fs.writeFileSync(path.join(defaultDir, 'mask.png'), Buffer.from([137, 80, 78, 71, 2]));
  fs.writeFileSync(path.join(defaultDir, 'char_cfg.yaml'), 'width: 1\n');
  fs.writeFileSync(path.join(defaultDir, 'recording.json'), '{"image":{"width":1,"height":1},"frames":[]}');
  fs.writeFileSync(path.join(defaultDir, 'notes.txt'), 'not served');
  fs.writeFileSync(path.join(tmp, 'secret.txt'), 'secret');
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('puppet server', () => {
  let server: PuppetServer;
  beforeAll(async () => {
    server = await startPuppetServer({ port: 0, webRoot, defaultDir });
  });
  afterAll(async () => {
    await server.close();
  });

  it('listens on 127.0.0.1 and serves the page, its bundle and the config', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    for (const p of ['/', '/index.html', '/?backend=legacy']) {
      const r = await rawGet(server.url, p);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.body.toString()).toBe('<!doctype html><title>puppet</title>');
    }
    const js = await rawGet(server.url, '/puppet.js');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.body.toString()).toBe('export {};');
    // the source map is in the table but not built here: 404, not a crash
    expect((await rawGet(server.url, '/puppet.js.map')).status).toBe(404);

    const config = JSON.parse((await rawGet(server.url, '/config.json')).body.toString()) as PuppetPageConfig;
    expect(config).toEqual({
      character: {
        name: 'default',
        texture: '/default/texture.png',
        mask: '/default/mask.png',
        cfg: '/default/char_cfg.yaml',
      },
      recording: '/default/recording.json',
      recordingName: null,
      defaultCharacter: {
        name: 'default',
        texture: '/default/texture.png',
        mask: '/default/mask.png',
        cfg: '/default/char_cfg.yaml',
      },
      legacyPoseBase: '/mediapipe/pose/',
      tasksVisionWasmBase: '/mediapipe/tasks-vision/wasm',
      poseTaskUrl: DEFAULT_POSE_TASK_URL,
    });
  });

  it('serves the MediaPipe files byte for byte with their content types (application/wasm for wasm)', async () => {
    const want: Record<string, string> = {
      '.js': 'text/javascript; charset=utf-8',
      '.wasm': 'application/wasm',
      '.tflite': 'application/octet-stream',
      '.data': 'application/octet-stream',
      '.binarypb': 'application/octet-stream',
    };
    const files = [
      ...LEGACY_POSE_FILES.map((f) => [
        `/mediapipe/pose/${f}`,
        path.join(NODE_MODULES, '@mediapipe/pose', f),
      ]),
      ...TASKS_VISION_WASM_FILES.map((f) => [
        `/mediapipe/tasks-vision/wasm/${f}`,
        path.join(NODE_MODULES, '@mediapipe/tasks-vision/wasm', f),
      ]),
    ];
    expect(files.length).toBe(17);
    for (const [url, file] of files) {
      const r = await rawGet(server.url, url);
      expect([url, r.status]).toEqual([url, 200]);
      expect([url, r.headers['content-type']]).toEqual([url, want[path.extname(file)]]);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(Number(r.headers['content-length'])).toBe(fs.statSync(file).size);
      expect(r.body.equals(fs.readFileSync(file))).toBe(true);
    }
    // HEAD: the headers without the body
    const head = await rawGet(server.url, '/mediapipe/pose/pose_landmark_lite.tflite', 'HEAD');
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(
      fs.statSync(path.join(NODE_MODULES, '@mediapipe/pose/pose_landmark_lite.tflite')).size,
    );
    expect(head.body.length).toBe(0);
  });

  it('serves the default drawing and recording, and nothing else of that folder', async () => {
    expect((await rawGet(server.url, '/default/texture.png')).body).toEqual(
      Buffer.from([137, 80, 78, 71, 1]),
    );
    expect((await rawGet(server.url, '/default/texture.png')).headers['content-type']).toBe('image/png');
    expect((await rawGet(server.url, '/default/char_cfg.yaml')).headers['content-type']).toBe(
      'text/yaml; charset=utf-8',
    );
    expect((await rawGet(server.url, '/default/recording.json')).headers['content-type']).toBe(
      'application/json; charset=utf-8',
    );
    expect((await rawGet(server.url, '/default/notes.txt')).status).toBe(404);
  });

  it('refuses traversal, unknown files and other methods', async () => {
    const bad = [
      '/../secret.txt',
      '/default/../../secret.txt',
      '/default/..%2f..%2fsecret.txt',
      '/default/%2e%2e/%2e%2e/secret.txt',
      '/mediapipe/pose/../../../package.json',
      '/mediapipe/pose/..%2F..%2F..%2Fpackage.json',
      '/mediapipe/pose/pose_landmark_heavy.tflite',
      '/mediapipe/pose/README.md',
      '/mediapipe/pose/package.json',
      '/mediapipe/tasks-vision/vision_bundle.mjs',
      '/mediapipe/pose',
      '/%2Fetc%2Fpasswd',
      '//etc/passwd',
      '/default',
      '/default/',
      '/index.html/',
      '/INDEX.HTML',
    ];
    for (const p of bad) {
      const r = await rawGet(server.url, p);
      expect([p, r.status]).toEqual([p, 404]);
      expect(r.body.toString()).toBe('not found\n');
    }
    const post = await rawGet(server.url, '/index.html', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(server.routes()).toContain('/mediapipe/pose/pose.js');
    expect(server.routes().every((r) => !r.includes('..'))).toBe(true);
  });
});

describe('puppet server options', () => {
  it('a character folder and a recording replace the defaults; the default stays listed', async () => {
    const ad = fs.existsSync(CHAR1) ? CHAR1 : path.join(tmp, 'charX');
    if (!fs.existsSync(CHAR1)) {
      console.warn(`[note] ${CHAR1} absent: a synthetic AnimatedDrawings folder stands in`);
      fs.mkdirSync(ad, { recursive: true });
      for (const f of ['texture.png', 'mask.png', 'char_cfg.yaml']) fs.writeFileSync(path.join(ad, f), f);
    }
    const rec = path.join(tmp, 'mine.json');
    fs.writeFileSync(rec, '{"image":{"width":2,"height":2},"frames":[]}');
    const s = await startPuppetServer({
      port: 0,
      webRoot,
      defaultDir,
      character: ad,
      landmarks: rec,
      files: { '/chars/extra.png': path.join(defaultDir, 'mask.png') },
    });
    try {
      const config = JSON.parse((await rawGet(s.url, '/config.json')).body.toString()) as PuppetPageConfig;
      expect(config.character).toEqual({
        name: path.basename(ad),
        texture: '/character/texture.png',
        mask: '/character/mask.png',
        cfg: '/character/char_cfg.yaml',
      });
      expect(config.defaultCharacter?.texture).toBe('/default/texture.png');
      expect(config.recording).toBe('/recording.json');
      expect(config.recordingName).toBe('mine.json'); // the page's button: "Play mine.json"
      for (const f of ['texture.png', 'mask.png', 'char_cfg.yaml'])
        expect((await rawGet(s.url, `/character/${f}`)).body.equals(fs.readFileSync(path.join(ad, f)))).toBe(
          true,
        );
      expect((await rawGet(s.url, '/recording.json')).body.toString()).toBe(fs.readFileSync(rec, 'utf8'));
      expect((await rawGet(s.url, '/chars/extra.png')).body).toEqual(Buffer.from([137, 80, 78, 71, 2]));
    } finally {
      await s.close();
    }
  });

  it('an image as the character; no default folder: no default drawing, no recording', async () => {
    const img = path.join(defaultDir, 'texture.png');
    const s = await startPuppetServer({
      port: 0,
      webRoot,
      defaultDir: path.join(tmp, 'none'),
      character: img,
    });
    try {
      const config = JSON.parse((await rawGet(s.url, '/config.json')).body.toString()) as PuppetPageConfig;
      expect(config.character).toEqual({ name: 'texture.png', texture: '/character/image.png' });
      expect(config.defaultCharacter).toBeNull();
      expect(config.recording).toBeNull();
      expect((await rawGet(s.url, '/default/texture.png')).status).toBe(404);
      expect((await rawGet(s.url, '/character/image.png')).body).toEqual(Buffer.from([137, 80, 78, 71, 1]));
    } finally {
      await s.close();
    }
  });

  it('start-up errors name the problem', async () => {
    await expect(startPuppetServer({ port: 0, webRoot: path.join(tmp, 'nope') })).rejects.toThrow(
      /nope\/index\.html not found \(build it: npm run build\)/,
    );
    const half = path.join(tmp, 'half');
    fs.mkdirSync(half, { recursive: true });
    fs.writeFileSync(path.join(half, 'texture.png'), 'x');
    await expect(startPuppetServer({ port: 0, webRoot, defaultDir, character: half })).rejects.toThrow(
      `${half}: not an AnimatedDrawings character folder (no mask.png)`,
    );
    await expect(
      startPuppetServer({ port: 0, webRoot, defaultDir, character: path.join(tmp, 'secret.txt') }),
    ).rejects.toThrow(
      /secret\.txt: no such character \(an AnimatedDrawings folder or a \.png\/\.jpg image\)/,
    );
    await expect(
      startPuppetServer({ port: 0, webRoot, defaultDir, landmarks: path.join(tmp, 'missing.json') }),
    ).rejects.toThrow(/missing\.json: no such landmark recording file/);
    await expect(
      startPuppetServer({ port: 0, webRoot, defaultDir, files: { '/a/../b': path.join(tmp, 'secret.txt') } }),
    ).rejects.toThrow(/must start with '\/'/);
    await expect(
      startPuppetServer({
        port: 0,
        webRoot,
        defaultDir,
        files: { '/puppet.js': path.join(tmp, 'secret.txt') },
      }),
    ).rejects.toThrow("puppet files: '/puppet.js' clashes with a built-in path");
    await expect(
      startPuppetServer({ port: 0, webRoot, defaultDir, files: { '/x.txt': path.join(tmp, 'no.txt') } }),
    ).rejects.toThrow(/no such file/);
    // a busy port
    const s = await startPuppetServer({ port: 0, webRoot, defaultDir });
    try {
      await expect(startPuppetServer({ port: s.port, webRoot, defaultDir })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await s.close();
    }
  });
});
