/**
 * The drawing puppet's web server (Node): the page (src/web/puppet, built into `dist/web/puppet` by
 * tools/build.mjs), the MediaPipe runtime files it loads from node_modules, the embedded default drawing and
 * recording (`TsProject/assets/default/puppet/`), and optionally a character and a landmark recording
 * named on the command line. `kind puppet` (src/cli/puppet.ts) starts it and prints its URL.
 *
 * Routes (nothing else is served: every other path gets 404, other methods 405). Request paths are only
 * ever looked up in a table built at start, never joined to a folder, so `..`, `%2e%2e`, `%2f` and the
 * like cannot reach another file (directory traversal):
 * - `GET /`, `/index.html`: the page; `/puppet.js`, `/puppet.js.map`: its bundle (from `webRoot`);
 * - `GET /config.json`: {@link PuppetPageConfig}, what the page preloads;
 * - `GET /mediapipe/pose/<file>`: the legacy `@mediapipe/pose` solution (offline backend): `pose.js`, its
 *   graph `pose_web.binarypb`, the packed detector assets, the SIMD and non-SIMD wasm builds and the `lite`
 *   and `full` landmark models (the 27 MB `heavy` model is not served: the page offers complexity 0 and 1);
 * - `GET /mediapipe/tasks-vision/wasm/<file>`: the six wasm builds (+ loaders) of `@mediapipe/tasks-vision`
 *   that `FilesetResolver.forVisionTasks` chooses from (its JavaScript is bundled into puppet.js; its
 *   `.task` model is not in the npm package: the page fetches MediaPipe's published URL or a file the user picks);
 * - `GET /default/<file>`: `texture.png`, `mask.png`, `char_cfg.yaml` and the recording (`*.json`) of the
 *   embedded default, when that folder exists;
 * - `GET /character/<file>` (option `character`): an AnimatedDrawings folder's `texture.png`, `mask.png`,
 *   `char_cfg.yaml`, or one image as `/character/image.png` (or `.jpg`);
 * - `GET /recording.json` (option `landmarks`): a landmark recording (issue 12 format);
 * - `GET <path>` for each entry of `files` (tests).
 * A request carrying an `Origin` header that is neither the page's own (this port on this machine) nor on
 * `allowedOrigins` gets 403 (src/io/node/origin.ts); requests without one are served.
 * Content types: `.wasm` is `application/wasm` (needed by `WebAssembly.instantiateStreaming`), `.js`
 * `text/javascript`, `.tflite`/`.data`/`.binarypb` `application/octet-stream`, `.yaml` `text/yaml`.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { checkAllowedOrigins, originRefusal } from '../io/node/origin';

/** Default TCP port of `kind puppet` (the live viewer uses 8064). */
export const DEFAULT_PUPPET_PORT = 8065;

/** MediaPipe's published PoseLandmarker model (float16, "lite"), the tasks-vision backend's default `.task`. */
export const DEFAULT_POSE_TASK_URL =
  'https://storage.googleapis.com/mediapipe-models/pose_landmarker/pose_landmarker_lite/float16/1/pose_landmarker_lite.task';

/**
 * The PoseLandmarker `.task` built from `@mediapipe/pose`'s own models by tools/make-pose-task.mjs (run by
 * `npm run build`), relative to the built page's folder: when present, the server offers it at
 * {@link BUILT_POSE_TASK_ROUTE} and the tasks-vision backend uses it by default, so it runs offline.
 */
export const BUILT_POSE_TASK = '../../models/pose_landmarker_full_from_pose.task';
/** URL path of the built `.task` on the puppet server. */
export const BUILT_POSE_TASK_ROUTE = '/models/pose_landmarker_full_from_pose.task';

/** Files of `@mediapipe/pose` the page may load (what `Pose` asks `locateFile` for at complexity 0 and 1). */
export const LEGACY_POSE_FILES = [
  'pose.js',
  'pose_web.binarypb',
  'pose_solution_packed_assets_loader.js',
  'pose_solution_packed_assets.data',
  'pose_solution_simd_wasm_bin.js',
  'pose_solution_simd_wasm_bin.wasm',
  'pose_solution_simd_wasm_bin.data',
  'pose_solution_wasm_bin.js',
  'pose_solution_wasm_bin.wasm',
  'pose_landmark_lite.tflite',
  'pose_landmark_full.tflite',
] as const;

/** Files of `@mediapipe/tasks-vision/wasm` (FilesetResolver picks SIMD / non-SIMD / module builds). */
export const TASKS_VISION_WASM_FILES = [
  'vision_wasm_internal.js',
  'vision_wasm_internal.wasm',
  'vision_wasm_nosimd_internal.js',
  'vision_wasm_nosimd_internal.wasm',
  'vision_wasm_module_internal.js',
  'vision_wasm_module_internal.wasm',
] as const;

/** `GET /config.json`: what the page loads at start. URLs are paths on this server (or the model URL). */
export interface PuppetPageConfig {
  /** The drawing shown first: an AnimatedDrawings character (texture + mask + cfg) or one image; null = a blank canvas. */
  character: { name: string; texture: string; mask?: string; cfg?: string; retarget?: string } | null;
  /** The landmark recording offered by the "recording" source (the default one, or `landmarks`); null = none. */
  recording: string | null;
  /** The name the page shows for `recording` ("Play <name>"): the `--landmarks` file's name; null for the embedded default. */
  recordingName: string | null;
  /** The embedded default drawing (also when `character` replaces it as the first drawing), or null. */
  defaultCharacter: { name: string; texture: string; mask?: string; cfg?: string } | null;
  /** Base URL of `@mediapipe/pose`'s files. */
  legacyPoseBase: string;
  /** Base URL of `@mediapipe/tasks-vision`'s wasm folder. */
  tasksVisionWasmBase: string;
  /** Default `.task` model URL for tasks-vision. */
  poseTaskUrl: string;
}

export interface PuppetServerOptions {
  /** Bind address; default 127.0.0.1. */
  host?: string;
  /** TCP port; 0 = ephemeral; default {@link DEFAULT_PUPPET_PORT}. */
  port?: number;
  /** Folder holding the built page (`index.html`, `puppet.js`); default `dist/web/puppet` of TsProject. */
  webRoot?: string;
  /** The folder of the embedded default drawing and recording; default `TsProject/assets/default/puppet` (skipped when absent). */
  defaultDir?: string;
  /** The node_modules folder holding `@mediapipe/*`; default: found upwards from this module. */
  nodeModules?: string;
  /** A character to show first: an AnimatedDrawings folder (texture.png, mask.png, char_cfg.yaml) or a PNG/JPEG file. */
  character?: string;
  /** A landmark recording (issue 12 JSON format) offered as the "recording" source instead of the default one. */
  landmarks?: string;
  /** The name the page shows for `landmarks` (default its file name; a converted copy's caller gives the original's). */
  landmarksName?: string;
  /** An AnimatedDrawings retarget config for `character` (an AnimatedDrawings folder), served as `/character/retarget.yaml`. */
  retargetCfg?: string;
  /** Extra URL path -> local file (e.g. `{ '/chars/char1/texture.png': '/data/char1/texture.png' }`). */
  files?: Record<string, string>;
  /**
   * Model URL given to the page for tasks-vision; default: the built `.task` ({@link BUILT_POSE_TASK},
   * served at {@link BUILT_POSE_TASK_ROUTE}) when it exists, else {@link DEFAULT_POSE_TASK_URL}.
   */
  poseTaskUrl?: string;
  /** Browser origins allowed besides the page's own (`scheme://host[:port]`; `*`: any). */
  allowedOrigins?: readonly string[];
  /** Called with one line per refused origin; default: nothing. */
  log?: (line: string) => void;
}

export interface PuppetServer {
  /** `http://host:port/`. */
  url: string;
  port: number;
  /** The route table: URL path -> file (for messages and tests). */
  routes(): string[];
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.tflite': 'application/octet-stream',
  '.data': 'application/octet-stream',
  '.binarypb': 'application/octet-stream',
  '.task': 'application/octet-stream',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.yaml': 'text/yaml; charset=utf-8',
  '.yml': 'text/yaml; charset=utf-8',
};

function contentType(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** The first of `candidates` holding `probe`, else the last candidate. */
function firstWith(candidates: string[], probe: string): string {
  for (const c of candidates) if (fs.existsSync(path.join(c, probe))) return c;
  return candidates[candidates.length - 1];
}

/** `dist/web/puppet` next to the bundle (dist/kind.cjs), or TsProject/dist/web/puppet from src/cli. */
function defaultWebRoot(): string {
  return firstWith(
    [path.join(__dirname, 'web', 'puppet'), path.resolve(__dirname, '../../dist/web/puppet')],
    'index.html',
  );
}

/**
 * node_modules holding @mediapipe/pose, searched upwards from this module (src/cli, dist, or an installed
 * package's dist: node_modules/kind-retargeting/dist); when none has it, the nearest node_modules (named in
 * the error of a missing optional dependency).
 */
function defaultNodeModules(): string {
  let dir = __dirname;
  let nearest: string | null = null;
  for (let i = 0; i < 6; i++) {
    const c = path.basename(dir) === 'node_modules' ? dir : path.join(dir, 'node_modules');
    if (fs.existsSync(path.join(c, '@mediapipe', 'pose', 'pose.js'))) return c;
    if (nearest === null && fs.existsSync(c)) nearest = c;
    dir = path.dirname(dir);
  }
  return nearest ?? path.resolve(__dirname, '../../node_modules');
}

/** `TsProject/assets/default/puppet`, searched upwards from this module. */
function defaultPuppetDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const c = path.join(dir, 'assets', 'default');
    if (fs.existsSync(c)) return path.join(c, 'puppet');
    dir = path.dirname(dir);
  }
  return path.resolve(__dirname, '../../assets/default/puppet');
}

const isFile = (f: string): boolean => {
  try {
    return fs.statSync(f).isFile();
  } catch {
    return false;
  }
};

/**
 * Start the puppet page's server. Resolves once listening.
 * @throws Error (rejects) when the page is not built (`webRoot/index.html` missing: run `npm run build`),
 * `@mediapipe/pose` is not installed, `character` is neither an AnimatedDrawings folder (naming the missing
 * file) nor a .png/.jpg file, `landmarks` is not a file, a `files` entry is malformed, clashes with a
 * built-in path or names no file, or the port cannot be bound.
 */
export async function startPuppetServer(options: PuppetServerOptions = {}): Promise<PuppetServer> {
  const webRoot = options.webRoot ?? defaultWebRoot();
  if (!isFile(path.join(webRoot, 'index.html')))
    throw new Error(`puppet page: ${path.join(webRoot, 'index.html')} not found (build it: npm run build)`);
  const nodeModules = options.nodeModules ?? defaultNodeModules();
  const poseDir = path.join(nodeModules, '@mediapipe', 'pose');
  const visionWasmDir = path.join(nodeModules, '@mediapipe', 'tasks-vision', 'wasm');
  if (!isFile(path.join(poseDir, 'pose.js')))
    throw new Error(
      `page server: ${poseDir}/pose.js not found: the puppet and mocap pages need @mediapipe/pose and @mediapipe/tasks-vision, optional dependencies of kind-retargeting (npm install @mediapipe/pose @mediapipe/tasks-vision)`,
    );

  const routes = new Map<string, string>(); // URL path -> absolute file
  const add = (urlPath: string, file: string) => routes.set(urlPath, path.resolve(file));
  add('/', path.join(webRoot, 'index.html'));
  add('/index.html', path.join(webRoot, 'index.html'));
  add('/puppet.js', path.join(webRoot, 'puppet.js'));
  add('/puppet.js.map', path.join(webRoot, 'puppet.js.map'));
  for (const f of LEGACY_POSE_FILES) add(`/mediapipe/pose/${f}`, path.join(poseDir, f));
  for (const f of TASKS_VISION_WASM_FILES)
    add(`/mediapipe/tasks-vision/wasm/${f}`, path.join(visionWasmDir, f));
  const builtTask = path.resolve(webRoot, BUILT_POSE_TASK);
  if (isFile(builtTask)) add(BUILT_POSE_TASK_ROUTE, builtTask);

  // the embedded default (made by the `puppet-cli` side: texture.png, mask.png, char_cfg.yaml, a recording)
  const defaultDir = options.defaultDir ?? defaultPuppetDir();
  let defaultCharacter: PuppetPageConfig['character'] = null;
  let recording: string | null = null;
  let recordingName: string | null = null;
  if (fs.existsSync(defaultDir) && fs.statSync(defaultDir).isDirectory()) {
    const names = fs.readdirSync(defaultDir).sort();
    for (const n of names) {
      if (/^[A-Za-z0-9_-][A-Za-z0-9_.-]*\.(png|yaml|json)$/.test(n) && isFile(path.join(defaultDir, n)))
        add(`/default/${n}`, path.join(defaultDir, n));
    }
    if (routes.has('/default/texture.png')) {
      defaultCharacter = {
        name: 'default',
        texture: '/default/texture.png',
        ...(routes.has('/default/mask.png') ? { mask: '/default/mask.png' } : {}),
        ...(routes.has('/default/char_cfg.yaml') ? { cfg: '/default/char_cfg.yaml' } : {}),
      };
    }
    const rec = names.find((n) => n.endsWith('.json') && routes.has(`/default/${n}`));
    if (rec) recording = `/default/${rec}`;
  }

  let character = defaultCharacter;
  if (options.character !== undefined) {
    const c = path.resolve(options.character);
    if (fs.existsSync(c) && fs.statSync(c).isDirectory()) {
      for (const f of ['texture.png', 'mask.png', 'char_cfg.yaml']) {
        if (!isFile(path.join(c, f)))
          throw new Error(`${options.character}: not an AnimatedDrawings character folder (no ${f})`);
        add(`/character/${f}`, path.join(c, f));
      }
      character = {
        name: path.basename(c),
        texture: '/character/texture.png',
        mask: '/character/mask.png',
        cfg: '/character/char_cfg.yaml',
      };
      if (options.retargetCfg !== undefined) {
        if (!isFile(options.retargetCfg))
          throw new Error(`${options.retargetCfg}: no such retarget config file`);
        add('/character/retarget.yaml', options.retargetCfg);
        character.retarget = '/character/retarget.yaml';
      }
    } else if (isFile(c) && /\.(png|jpe?g)$/i.test(c)) {
      if (options.retargetCfg !== undefined)
        throw new Error(
          `${options.retargetCfg}: a retarget config maps a char_cfg.yaml's joints; ${options.character} is an image`,
        );
      const ext = path.extname(c).toLowerCase() === '.png' ? '.png' : '.jpg';
      add(`/character/image${ext}`, c);
      character = { name: path.basename(c), texture: `/character/image${ext}` };
    } else {
      throw new Error(
        `${options.character}: no such character (an AnimatedDrawings folder or a .png/.jpg image)`,
      );
    }
  }
  if (options.landmarks !== undefined) {
    if (!isFile(options.landmarks)) throw new Error(`${options.landmarks}: no such landmark recording file`);
    add('/recording.json', options.landmarks);
    recording = '/recording.json';
    recordingName = options.landmarksName ?? path.basename(options.landmarks);
  }

  for (const [urlPath, file] of Object.entries(options.files ?? {})) {
    if (!/^\/[A-Za-z0-9_.\-/]*$/.test(urlPath) || urlPath.includes('..') || urlPath.includes('//')) {
      throw new Error(
        `puppet files: URL path '${urlPath}' must start with '/' and hold only [A-Za-z0-9_.-/], no '..'`,
      );
    }
    if (routes.has(urlPath) || urlPath === '/config.json')
      throw new Error(`puppet files: '${urlPath}' clashes with a built-in path`);
    if (!isFile(file)) throw new Error(`puppet files: '${urlPath}' -> ${file}: no such file`);
    add(urlPath, file);
  }

  const config: PuppetPageConfig = {
    character,
    recording,
    recordingName,
    defaultCharacter,
    legacyPoseBase: '/mediapipe/pose/',
    tasksVisionWasmBase: '/mediapipe/tasks-vision/wasm',
    poseTaskUrl:
      options.poseTaskUrl ??
      (routes.has(BUILT_POSE_TASK_ROUTE) ? BUILT_POSE_TASK_ROUTE : DEFAULT_POSE_TASK_URL),
  };
  const configBody = Buffer.from(JSON.stringify(config));

  const notFoundBody = Buffer.from('not found\n');
  const notFound = (res: http.ServerResponse) => {
    res.writeHead(404, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': notFoundBody.length,
    });
    res.end(notFoundBody);
  };

  const allowedOrigins = [...(options.allowedOrigins ?? [])];
  checkAllowedOrigins(allowedOrigins, 'puppet server: allowedOrigins');
  const ownPorts = new Set<number>();
  const server = http.createServer((req, res) => {
    const why = originRefusal(req.headers.origin, req.headers.host, {
      allowed: allowedOrigins,
      pagePorts: ownPorts,
    });
    if (why !== null) {
      options.log?.(`puppet: refused ${req.socket.remoteAddress} ${req.url}: 403 (${why})`);
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end(`${why}\n`);
      return;
    }
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const urlPath = q >= 0 ? raw.slice(0, q) : raw;
    const file = routes.get(urlPath);
    if (!file && urlPath !== '/config.json') return notFound(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' });
      res.end();
      return;
    }
    const head = req.method === 'HEAD';
    const headers = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
    if (!file) {
      res.writeHead(200, {
        ...headers,
        'Content-Type': CONTENT_TYPES['.json'],
        'Content-Length': configBody.length,
      });
      res.end(head ? undefined : configBody);
      return;
    }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) return notFound(res);
      res.writeHead(200, { ...headers, 'Content-Type': contentType(file), 'Content-Length': st.size });
      if (head) {
        res.end();
        return;
      }
      const stream = fs.createReadStream(file);
      stream.on('error', () => res.destroy());
      stream.pipe(res);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PUPPET_PORT, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  ownPorts.add(address.port);
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostForUrl}:${address.port}/`,
    port: address.port,
    routes: () => [...routes.keys(), '/config.json'].sort(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
