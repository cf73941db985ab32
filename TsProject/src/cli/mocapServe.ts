/**
 * The live webcam mocap page's web server (Node; issue 23 item 4): `kind mocap` with no file argument.
 * Serves the page (src/web/mocap, built into `dist/web/mocap` by tools/build.mjs), MediaPipe's runtime files
 * and the PoseLandmarker `.task` exactly as the puppet page's server does (it IS the puppet page's server,
 * src/cli/puppetServe.ts `startPuppetServer`, given this page's folder and files: the same route table,
 * origin rules (403 for a foreign `Origin`), 127.0.0.1 by default, no path ever joined to a folder), plus:
 * - `GET /mocap.js`, `/mocap.js.map`: the page's bundle;
 * - `GET /avatar/default.glb`: the embedded default avatar (`TsProject/assets/default/default-avatar.glb`),
 *   or the avatar named on the command line (`/avatar/default.glb` either way; `.vrm` files too: the page
 *   reads the bytes, not the name);
 * - `GET /recording.json` (option `landmarks`): a landmark recording offered by the page's "Play" source.
 * `GET /config.json` is the puppet server's config (MediaPipe URLs, `recording`); the page reads only those.
 * The puppet page's own default drawing is not served here (its folder is not given).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultAssetsDir } from '../io/node/files';
import { serveUntilSignal } from '../io/node/interrupt';
import { type PuppetServer, startPuppetServer } from './puppetServe';

/** Default TCP port of `kind mocap` (the viewer uses 8064, `kind puppet` 8065, remote control 64212). */
export const DEFAULT_MOCAP_PORT = 8066;

/** URL path of the avatar the page shows first. */
export const MOCAP_AVATAR_ROUTE = '/avatar/default.glb';

export interface MocapServerOptions {
  /** Bind address; default 127.0.0.1. */
  host?: string;
  /** TCP port; 0 = ephemeral; default {@link DEFAULT_MOCAP_PORT}. */
  port?: number;
  /** Folder holding the built page (`index.html`, `mocap.js`); default `dist/web/mocap` of TsProject. */
  webRoot?: string;
  /** The avatar shown first (.glb, .vrm); default the embedded `assets/default/default-avatar.glb`. */
  avatar?: string;
  /** A landmark recording (the puppet page's format) offered as the page's "Play" source. */
  landmarks?: string;
  /** Extra URL path -> local file (tests). */
  files?: Record<string, string>;
  /** Browser origins allowed besides the page's own (`scheme://host[:port]`; `*`: any). */
  allowedOrigins?: readonly string[];
  /** Called with one line per refused origin. */
  log?: (line: string) => void;
}

export type MocapServer = PuppetServer;

/** `dist/web/mocap` next to the bundle (dist/kind.cjs), or TsProject/dist/web/mocap from src/cli. */
function defaultWebRoot(): string {
  const candidates = [path.join(__dirname, 'web', 'mocap'), path.resolve(__dirname, '../../dist/web/mocap')];
  return (
    candidates.find((c) => fs.existsSync(path.join(c, 'index.html'))) ?? candidates[candidates.length - 1]
  );
}

/**
 * Start the mocap page's server. Resolves once listening.
 * @throws Error (rejects) when the page is not built (`mocap page: <webRoot>/index.html not found`), the
 * avatar or recording is not a file, or as `startPuppetServer` (MediaPipe not installed, port in use).
 */
export async function startMocapServer(o: MocapServerOptions = {}): Promise<MocapServer> {
  const webRoot = o.webRoot ?? defaultWebRoot();
  const index = path.join(webRoot, 'index.html');
  if (!fs.existsSync(index)) throw new Error(`mocap page: ${index} not found (build it: npm run build)`);
  const avatar = o.avatar ?? path.join(defaultAssetsDir(), 'default-avatar.glb');
  if (!fs.existsSync(avatar) || !fs.statSync(avatar).isFile())
    throw new Error(`${avatar}: no such avatar file (.glb, .vrm)`);
  const files: Record<string, string> = {
    '/mocap.js': path.join(webRoot, 'mocap.js'),
    [MOCAP_AVATAR_ROUTE]: avatar,
    ...(o.files ?? {}),
  };
  if (fs.existsSync(path.join(webRoot, 'mocap.js.map')))
    files['/mocap.js.map'] = path.join(webRoot, 'mocap.js.map');
  return startPuppetServer({
    host: o.host,
    port: o.port ?? DEFAULT_MOCAP_PORT,
    webRoot,
    // no puppet default drawing or recording on this page: a folder that does not exist
    defaultDir: path.join(webRoot, 'no-puppet-default'),
    // the puppet server's node_modules search starts from its own module, which sits beside this one
    landmarks: o.landmarks,
    files,
    allowedOrigins: o.allowedOrigins,
    log: o.log,
  });
}

/**
 * `kind mocap` with no landmark file: serve the page until SIGINT / SIGTERM (or `durationS`), print its URL,
 * and on the signal close the server with one line. Returns the signal (null when `durationS` ran out).
 * @throws Error when the port is in use (naming it and `--port`), or as {@link startMocapServer}.
 */
export async function runMocapServe(
  o: MocapServerOptions & { durationS?: number; quiet?: boolean; print?: (line: string) => void },
): Promise<{ signal: 'SIGINT' | 'SIGTERM' | null }> {
  const print = o.print ?? ((l: string) => console.log(l));
  let server: MocapServer;
  try {
    server = await startMocapServer({ ...o, log: o.log ?? ((line) => console.error(line)) });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new Error(
        `port ${o.port ?? DEFAULT_MOCAP_PORT} is in use (another kind mocap?); give --port <n> (0 = any free one)`,
      );
    throw e;
  }
  if (!o.quiet) {
    print(`webcam mocap page: ${server.url}`);
    print(
      '  open it in a browser (webcam, a video file or a landmark recording; drop a .glb/.vrm avatar on it); Ctrl-C stops the server',
    );
  }
  const signal = await serveUntilSignal(o.durationS, () => server.close());
  if (!o.quiet) print(`stopped${signal ? ` (${signal})` : ''}: the mocap page server is closed`);
  return { signal };
}
