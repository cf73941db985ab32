#!/usr/bin/env node
// Renders frames of an animated GLB (and optionally a BVH source skeleton beside it) into one PNG
// contact sheet, to check a retargeting result by eye: upright, facing +Z, feet on the floor,
// arms plausible, source and target doing the same thing. With --cleanup, renders a `kind cleanup`
// result instead: the original take and the cleaned take side by side at the same frames, with the
// feet marked (contact frames, the segment's anchor, the ankle's path over the segment so far).
//
//   node ../tools/snapshot.mjs <file.glb> [--bvh <source.bvh>] [--frames 0,30,60 | --count 6]
//        [--out sheet.png] [--size 320x480]   (see --help for the rest)
//   node ../tools/snapshot.mjs --cleanup <dir | cleanup.json> [--frames ... | --count 6]
// from TsProject (e.g. `node ../tools/snapshot.mjs out/default-walk.glb --count 6` after `npx kind
// retarget`), or `node tools/snapshot.mjs ...` from the repository root, where a relative input
// path not found there is looked up under TsProject/ (so `out/default-walk.glb` works from both).
//
// How: serves tools/snapshot/page.{html,js} and TsProject/node_modules/three on 127.0.0.1 (random
// port), opens the page in headless Chromium (Debian package `chromium`, no driver library); the page
// renders the tiles with three.js (WebGL on SwiftShader) and POSTs the composed PNG back.
// Prints the PNG path (with --cleanup, then a line comparing the slide in contact measured on the
// drawn skeletons with cleanup.json's: they agree when both takes are drawn where the reader puts them).
// Exit 1 with a one-line error on a bad file or a failed render, 2 on bad usage.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  renameSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const ts = path.join(root, 'TsProject');
const require = createRequire(path.join(ts, 'package.json'));
const { Command, InvalidArgumentError, Option } = require('commander');
const threeDir = path.join(ts, 'node_modules', 'three'); // served as files: build/, examples/jsm/
const pageDir = path.join(here, 'snapshot');

class UserError extends Error {}

function die(message, code = 1) {
  process.stderr.write(`snapshot: ${String(message).replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(code);
}

function intList(value) {
  const parts = value.split(',').map((s) => s.trim());
  if (!parts.length || !parts.every((p) => /^\d+$/.test(p)))
    throw new InvalidArgumentError(`'${value}': expected frame numbers like 0,30,60`);
  return parts.map(Number);
}

function intIn(name, lo, hi) {
  return (value) => {
    const v = Number(value);
    if (!/^\d+$/.test(value.trim()) || v < lo || v > hi)
      throw new InvalidArgumentError(`${name}: '${value}' is not an integer in ${lo}..${hi}`);
    return v;
  };
}

function number(name, check) {
  return (value) => {
    const v = Number(value);
    if (value.trim() === '' || !Number.isFinite(v) || !check(v))
      throw new InvalidArgumentError(`${name}: '${value}' is not a valid number`);
    return v;
  };
}

function size(value) {
  const m = /^(\d+)x(\d+)$/.exec(value.trim());
  if (!m || +m[1] < 64 || +m[2] < 64 || +m[1] > 4096 || +m[2] > 4096)
    throw new InvalidArgumentError(`'${value}': expected WIDTHxHEIGHT in pixels, 64..4096, e.g. 320x480`);
  return [+m[1], +m[2]];
}

function triple(value) {
  const p = value.split(',').map((s) => Number(s.trim()));
  if (p.length !== 3 || !p.every(Number.isFinite))
    throw new InvalidArgumentError(`'${value}': expected x,y,z in metres`);
  return p;
}

function parseArgs(argv) {
  const program = new Command('snapshot')
    .description(
      'render frames of an animated GLB (and optionally a BVH source skeleton) into one PNG contact sheet',
    )
    .argument('[file]', 'animated avatar: .glb / .vrm (binary glTF) or .gltf (not with --cleanup)')
    .option(
      '--cleanup <dir|cleanup.json>',
      "a `kind cleanup` result: draw the original take (its cleanup.json's input) and the cleaned take (its output) side by side, feet marked; frames default to the last frame of contact segments spread over the take",
    )
    .addOption(
      new Option('--focus <part>', 'with --cleanup: frame the whole body, or the legs (hips down) closer')
        .choices(['body', 'legs'])
        .default('body'),
    )
    .option('--before <take.bvh>', 'with --cleanup: the original take (default: the input named in cleanup.json)')
    .option('--after <take.bvh>', 'with --cleanup: the cleaned take (default: the output named in cleanup.json)')
    .option('--bvh <source.bvh>', 'source BVH drawn as a skeleton beside the avatar, at the same times')
    .option(
      '--bvh-scale <s>',
      'scale of the BVH units to metres (0.01 for centimetres)',
      number('--bvh-scale', (v) => v > 0),
      0.01,
    )
    .option('--bvh-offset <x,y,z>', 'where the BVH skeleton is moved to, in metres', triple, [1.5, 0, 0])
    .option('--frames <list>', 'frame numbers to draw, e.g. 0,30,60,90 (frame = time x clip fps)', intList)
    .option(
      '--count <n>',
      'number of frames evenly spread over the clip (when --frames is not given)',
      intIn('--count', 1, 100),
      6,
    )
    .option('--clip <name|index>', 'animation of the GLB to play (default: the first)')
    .option(
      '--fps <n>',
      'frame rate for frame numbers (default: from the clip key spacing)',
      number('--fps', (v) => v > 0 && v <= 1000),
    )
    .option('--out <sheet.png>', 'output PNG (default: <file name>.snapshot.png in the current folder)')
    .option('--size <WxH>', 'size of one tile in pixels (default 320x480, 480x480 with --bvh)', size)
    .option('--cols <n>', 'tiles per row (default: a near-square sheet)', intIn('--cols', 1, 100))
    .addOption(
      new Option(
        '--camera <mode>',
        'follow: the camera keeps its direction and distance and follows the figures across the floor; fixed: one view of all frames',
      )
        .choices(['follow', 'fixed'])
        .default('follow'),
    )
    .option(
      '--azimuth <deg>',
      'camera direction: degrees from +Z toward +X',
      number('--azimuth', (v) => Math.abs(v) <= 360),
      25,
    )
    .option(
      '--elevation <deg>',
      'camera height: degrees above the horizon',
      number('--elevation', (v) => v > -89 && v < 89),
      12,
    )
    .option(
      '--chromium <path>',
      'Chromium binary (default: $CHROMIUM, /usr/bin/chromium, chromium-browser, google-chrome)',
    )
    .option(
      '--timeout <s>',
      'give up after this many seconds',
      number('--timeout', (v) => v > 0),
      120,
    )
    .option('--verbose', "print the page's and Chromium's messages")
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride((err) => {
      process.exit(err.exitCode === 0 ? 0 : 2);
    });
  program.parse(argv);
  const opts = program.opts();
  const file = program.args[0];
  const usage = (m) => {
    process.stderr.write(`snapshot: ${m}\n(run with --help for usage)\n`);
    process.exit(2);
  };
  if (opts.cleanup === undefined && file === undefined) usage("missing required argument 'file'");
  if (opts.cleanup !== undefined && file !== undefined)
    usage(`--cleanup draws two BVH takes; '${file}' is not used with it (--before/--after name the takes)`);
  if (opts.cleanup === undefined && (opts.before || opts.after)) usage('--before/--after apply to --cleanup');
  if (opts.cleanup !== undefined && opts.bvh) usage('--bvh does not apply to --cleanup');
  return { file, opts };
}

/** Checks the input files enough to give a one-line error before starting a browser. */
function checkInputs(file, bvh) {
  if (!existsSync(file) || !statSync(file).isFile()) throw new UserError(`${file}: no such file`);
  const head = Buffer.alloc(12);
  const fd = openSync(file, 'r');
  const n = readSync(fd, head, 0, 12, 0);
  closeSync(fd);
  const size = statSync(file).size;
  if (n >= 4 && head.toString('latin1', 0, 4) === 'glTF') {
    if (n < 12) throw new UserError(`${file}: truncated GLB header`);
    const version = head.readUInt32LE(4);
    const length = head.readUInt32LE(8);
    if (version !== 2) throw new UserError(`${file}: GLB version ${version}, expected 2`);
    if (length !== size)
      throw new UserError(`${file}: GLB header says ${length} bytes but the file has ${size}`);
  } else {
    const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
    try {
      const j = JSON.parse(text);
      if (!j.asset) throw new Error('no "asset" field');
    } catch (e) {
      throw new UserError(`${file}: neither a GLB (no 'glTF' magic) nor glTF JSON (${e.message})`);
    }
  }
  if (bvh) checkBvh(bvh);
}

function checkBvh(bvh) {
  if (!existsSync(bvh) || !statSync(bvh).isFile()) throw new UserError(`${bvh}: no such file`);
  const text = readFileSync(bvh, 'utf8').replace(/^\uFEFF/, '');
  if (!/^\s*HIERARCHY\b/.test(text)) throw new UserError(`${bvh}:1: not a BVH file (expected HIERARCHY)`);
  if (!/^\s*MOTION\b/m.test(text)) throw new UserError(`${bvh}: not a BVH file (no MOTION section)`);
}

/**
 * The `kind cleanup` result named by --cleanup (a folder holding cleanup.json, or the .json itself)
 * and the two takes: --before/--after, else the input and output it names (as given, relative to
 * the folder `kind cleanup` ran in; else under TsProject/; else, for the output, beside the json).
 */
function readCleanup(arg, before, after) {
  let json = locate(arg);
  if (existsSync(json) && statSync(json).isDirectory()) json = path.join(json, 'cleanup.json');
  if (!existsSync(json) || !statSync(json).isFile())
    throw new UserError(`${json}: no such file (--cleanup takes a kind cleanup output folder or its cleanup.json)`);
  let data;
  try {
    data = JSON.parse(readFileSync(json, 'utf8'));
  } catch (e) {
    throw new UserError(`${json}: not JSON (${e.message})`);
  }
  if (data?.tool !== 'kind cleanup' || !data.feet?.left || !data.feet?.right || !(data.frames > 0))
    throw new UserError(`${json}: not a kind cleanup report (expected tool "kind cleanup" with feet.left/right)`);
  const find = (given, recorded, field) => {
    if (given) return locate(given);
    if (typeof recorded !== 'string') throw new UserError(`${json}: no "${field}" path; name the take with --${field === 'input' ? 'before' : 'after'}`);
    const tries = [locate(recorded), path.join(path.dirname(json), path.basename(recorded))];
    const hit = tries.find((p) => existsSync(p));
    if (!hit)
      throw new UserError(
        `${recorded} (the ${field} named in ${json}): no such file; name it with --${field === 'input' ? 'before' : 'after'}`,
      );
    return hit;
  };
  const b = find(before, data.input, 'input');
  const a = find(after, data.output, 'output');
  checkBvh(b);
  checkBvh(a);
  return { json, data, before: b, after: a };
}

function findChromium(explicit) {
  const candidates = explicit
    ? [explicit]
    : [
        process.env.CHROMIUM,
        '/usr/bin/chromium',
        '/usr/bin/chromium-browser',
        '/usr/bin/google-chrome',
      ].filter(Boolean);
  for (const c of candidates) if (existsSync(c)) return c;
  throw new UserError(
    explicit
      ? `${explicit}: no such Chromium binary`
      : 'Chromium not found: `apt-get install -y chromium`, or pass --chromium <path>',
  );
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json' };

/** Serves `rel` inside `base` only (no escaping the folder). */
function fileUnder(base, rel) {
  const p = path.resolve(base, `.${path.posix.normalize(`/${rel}`)}`);
  return p.startsWith(base + path.sep) && existsSync(p) && statSync(p).isFile() ? p : null;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A relative input path as given, else (from the repository root, or any folder but TsProject) the
 * same path under TsProject/, where `kind retarget` writes `out/` when run as the README says: so
 * `node tools/snapshot.mjs out/default-walk.glb` from the root finds TsProject/out/default-walk.glb.
 */
function locate(p) {
  if (p === undefined || path.isAbsolute(p) || existsSync(p)) return p;
  const inTs = path.join(ts, p);
  return existsSync(inTs) ? inTs : p;
}

async function run() {
  const parsed = parseArgs(process.argv);
  const opts = { ...parsed.opts, bvh: locate(parsed.opts.bvh) };
  if (!existsSync(path.join(threeDir, 'build', 'three.module.js')))
    throw new UserError(`three.js not found in ${threeDir}: run \`npm ci\` in TsProject`);
  const cleanup = opts.cleanup !== undefined ? readCleanup(opts.cleanup, opts.before, opts.after) : null;
  const file = cleanup ? null : locate(parsed.file);
  if (!cleanup) checkInputs(file, opts.bvh);
  const chromium = findChromium(opts.chromium);
  const [width, height] = opts.size ?? (opts.bvh ? [480, 480] : [320, 480]);
  const glbPath = cleanup ? path.resolve(cleanup.after) : path.resolve(file);
  const glbDir = path.dirname(glbPath);
  const glbName = path.basename(glbPath);
  const out = path.resolve(
    opts.out ?? `${glbName.replace(/\.[^.]+$/, '')}${cleanup ? '.cleanup' : ''}.snapshot.png`,
  );
  const config = {
    mode: cleanup ? 'cleanup' : 'avatar',
    cleanup: cleanup
      ? {
          jsonUrl: '/cleanup.json',
          jsonName: path.basename(cleanup.json),
          beforeUrl: '/before.bvh',
          beforeName: path.basename(cleanup.before),
          afterUrl: '/after.bvh',
          afterName: path.basename(cleanup.after),
          focus: opts.focus,
        }
      : null,
    glbUrl: `/input/${encodeURIComponent(glbName)}`,
    glbName,
    bvhUrl: opts.bvh ? '/source.bvh' : null,
    bvhName: opts.bvh ? path.basename(opts.bvh) : null,
    bvhScale: opts.bvhScale,
    bvhOffset: opts.bvhOffset,
    frames: opts.frames ?? null,
    count: opts.count,
    clip: opts.clip ?? null,
    fps: opts.fps ?? null,
    width,
    height,
    cols: opts.cols ?? null,
    camera: opts.camera,
    azimuth: opts.azimuth,
    elevation: opts.elevation,
  };

  let settle;
  let measured = null; // --cleanup: slide in contact per foot, cleanup.json's and measured on the drawing
  const done = new Promise((resolve) => {
    settle = resolve;
  });
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://127.0.0.1');
      const p = decodeURIComponent(url.pathname);
      if (req.method === 'POST') {
        const body = await readBody(req);
        res.end('ok');
        if (p === '/result') settle({ png: body });
        else if (p === '/fail') settle({ error: body.toString('utf8') });
        else if (p === '/warn') process.stderr.write(`snapshot: warning: ${body.toString('utf8')}\n`);
        else if (p === '/measured') measured = JSON.parse(body.toString('utf8'));
        return;
      }
      let f = null;
      let type = 'application/octet-stream';
      if (p === '/' || p === '/index.html') f = path.join(pageDir, 'page.html');
      else if (p === '/config.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(config));
        return;
      } else if (p === '/source.bvh' && opts.bvh) f = path.resolve(opts.bvh);
      else if (p === '/cleanup.json' && cleanup) f = path.resolve(cleanup.json);
      else if (p === '/before.bvh' && cleanup) f = path.resolve(cleanup.before);
      else if (p === '/after.bvh' && cleanup) f = path.resolve(cleanup.after);
      else if (p.startsWith('/snapshot/')) f = fileUnder(pageDir, p.slice('/snapshot/'.length));
      else if (p.startsWith('/three/build/') || p.startsWith('/three/examples/jsm/'))
        f = fileUnder(threeDir, p.slice('/three/'.length));
      else if (p.startsWith('/input/')) f = fileUnder(glbDir, p.slice('/input/'.length));
      if (f) type = TYPES[path.extname(f)] ?? type;
      if (!f) {
        if (opts.verbose) process.stderr.write(`snapshot: 404 ${p}\n`);
        res.writeHead(404);
        res.end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(readFileSync(f));
    } catch (e) {
      res.writeHead(500);
      res.end(String(e));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;

  const profile = mkdtempSync(path.join(os.tmpdir(), 'kind-snapshot-'));
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader',
    '--disable-quic',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    '--mute-audio',
    `--user-data-dir=${profile}`,
    `--window-size=${width},${height}`,
    ...(opts.verbose ? ['--enable-logging=stderr', '--v=0'] : []),
    `http://127.0.0.1:${port}/`,
  ];
  let log = '';
  // TMPDIR inside the profile: Chromium's own org.chromium.Chromium.* scratch goes with it
  const child = spawn(chromium, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, TMPDIR: profile },
  });
  const keep = (d) => {
    log = (log + d.toString()).slice(-8000);
    if (opts.verbose) process.stderr.write(d);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('error', (e) => settle({ error: `cannot start ${chromium}: ${e.message}` }));
  child.on('exit', (code, signal) =>
    settle({
      error: `Chromium exited (${signal ?? code}) before the page finished${opts.verbose ? '' : '; run with --verbose'}: ${log.trim().split('\n').pop() ?? ''}`,
    }),
  );
  const timer = setTimeout(
    () => settle({ error: `timed out after ${opts.timeout} s (run with --verbose to see why)` }),
    opts.timeout * 1000,
  );

  const result = await done;
  clearTimeout(timer);
  child.removeAllListeners('exit');
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid, 'SIGTERM'); // its own process group (detached): Chromium and its helpers
    } catch {}
    const killTimer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, 5000);
    await gone;
    clearTimeout(killTimer);
  }
  server.close();
  rmSync(profile, { recursive: true, force: true });
  if (result.error) throw new UserError(result.error);
  // all or nothing: a temporary name first, then one rename (an interrupted run leaves no half PNG)
  const tmp = `${out}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, result.png);
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  process.stdout.write(`${out}\n`);
  if (measured) {
    const cm = (v) => (100 * v).toFixed(1);
    const feet = Object.entries(measured).map(
      ([foot, m]) =>
        `${foot} ${cm(m.drawn[0])} -> ${cm(m.drawn[1])} cm (cleanup.json ${cm(m.json[0])} -> ${cm(m.json[1])})`,
    );
    process.stdout.write(`slide in contact measured on the drawn skeletons: ${feet.join(', ')}\n`);
  }
}

run().catch((e) => die(e instanceof UserError ? e.message : `internal error: ${e?.stack ?? e}`));
