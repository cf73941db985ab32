/**
 * The Unity package's browser mocap source path under plain Mono (issue 23 item 5): KindWebSocketServer.cs
 * routing `/source` to a KindMocapStream (Runtime/Sources/KindMocapStream.cs, what KindBrowserMocapSource
 * attaches through RetargetingRemoteController), compiled with mcs as tools/check-csharp.mjs compiles the
 * package, with test/fixtures/KindMocapStreamHost.cs playing Unity's Update (TryTakePose into preallocated
 * arrays, printed). A `ws` client plays the page: the skeleton and the poses MocapSolver solves from the real
 * squat (src/mocap/stream.ts bytes) arrive with the values sent (float32 bits equal); a foreign origin, a
 * missing or wrong token are refused at the upgrade; malformed messages are counted and refused with the
 * TypeScript reader's reason while the stream goes on; a re-sent skeleton becomes current.
 * Skipped with a printed reason without `mcs`/`mono` (Debian: apt-get install mono-devel).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type WebSocket from 'ws';
import { loadLandmarkRecording } from '../src/io/node';
import {
  calibrateMocap,
  MocapPoseWriter,
  MocapSolver,
  MocapStreamFrame,
  mocapSkeleton,
  mocapSkeletonMessage,
  readMocapPose,
} from '../src/mocap';
import { dataPath, HAS_SHARED_DATA } from './helpers/data';
import { monoAvailable } from './helpers/mono';
import { TestClient } from './remote.wsclient';

const HAS = monoAvailable('Unity browser mocap source') && HAS_SHARED_DATA;
if (!HAS_SHARED_DATA) console.warn('[skip] Unity browser mocap source: shared data (the squat) not found');
const repo = path.resolve(__dirname, '../..');
const PKG = path.join(repo, 'Packages/com.kind.retargeting/Runtime');
const SOURCES = [
  path.join(PKG, 'Bridge/KindWebSocketServer.cs'),
  path.join(PKG, 'Bridge/KindJson.cs'),
  path.join(PKG, 'Sources/KindMocapStream.cs'),
  path.join(__dirname, 'fixtures/KindMocapStreamHost.cs'),
];
const ORIGIN = 'http://127.0.0.1:8066';
const TOKEN = 'mono-token';
const WAIT = 20000; // failure guard only
/** A C# float printed with "R" (the shortest text that parses back to the same float) as that float32 value. */
const f32 = (t: string) => Math.fround(Number(t));

class Host {
  readonly lines: string[] = [];
  port = 0;
  private waiters: (() => void)[] = [];
  constructor(readonly proc: ChildProcess) {
    proc.stderr!.on('data', (d) => this.lines.push(`stderr: ${d}`));
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      if (l.startsWith('P ')) this.port = Number(l.slice(2));
      this.lines.push(l);
      const w = this.waiters;
      this.waiters = [];
      for (const f of w) f();
    });
  }
  async until(what: string, pred: () => boolean): Promise<void> {
    const end = Date.now() + WAIT;
    while (!pred()) {
      if (Date.now() > end)
        throw new Error(`timed out waiting for ${what}; last lines: ${this.lines.slice(-4).join(' | ')}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 100);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }
  last(prefix: string): string[] | undefined {
    const l = this.lines.filter((x) => x.startsWith(prefix)).at(-1);
    return l?.split(' ');
  }
  counters(): number[] {
    return (this.last('C ') ?? ['C', '0', '0', '0', '0', '0']).slice(1).map(Number);
  }
}

/** A page stand-in: connects with an Origin (remote.wsclient's TestClient), collects the server's text replies. */
async function connect(
  url: string,
  origin?: string,
): Promise<{ ws: WebSocket; replies: Record<string, unknown>[] }> {
  const c = new TestClient(url, origin ? { Origin: origin } : undefined);
  await c.open();
  return { ws: c.ws, replies: c.messages };
}

let tmp = '';
let exe = '';
let host: Host | undefined;

beforeAll(() => {
  if (!HAS) return;
  tmp = mkdtempSync(path.join(os.tmpdir(), 'kind-mocap-mono-'));
  exe = path.join(tmp, 'KindMocapStreamHost.exe');
  execFileSync(
    'mcs',
    [
      '-nologo',
      '-langversion:7',
      '-warnaserror+',
      '-r:System.dll',
      '-r:System.Core.dll',
      `-out:${exe}`,
      ...SOURCES,
    ],
    { stdio: 'pipe' },
  );
});

afterAll(() => {
  host?.proc.kill();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

(HAS ? describe : describe.skip)(
  'Unity browser mocap source path (KindWebSocketServer /source + KindMocapStream under Mono)',
  () => {
    it('the squat skeleton and poses arrive with the values sent; refusals as the TypeScript side', async () => {
      const rec = loadLandmarkRecording(dataPath('pose-landmarks/pose_squats.full.json'), {
        imageSize: { width: 720, height: 1280 },
        fps: 5,
      }).recording;
      const cal = calibrateMocap(rec.frames, { source: 'squat' });
      const solver = new MocapSolver(cal);
      const sk = mocapSkeleton(cal);
      const text = mocapSkeletonMessage(sk, 1);
      const writer = new MocapPoseWriter(21);
      const poses = rec.frames.slice(0, 20).map((f, i) => {
        const r = solver.step(f, rec.image);
        return writer
          .write(
            1,
            i,
            r.personFound,
            f.timestampMs,
            1.7e12 + i,
            solver.localRotations,
            solver.localTranslations,
            solver.confidence,
            solver.state,
          )
          .slice();
      });

      host = new Host(
        spawn('mono', [exe, '--token', TOKEN, '--allow-origin', ORIGIN], { stdio: ['pipe', 'pipe', 'pipe'] }),
      );
      const h = host;
      await h.until('the port', () => h.port > 0);
      const base = `ws://127.0.0.1:${h.port}/source`;
      // refused at the upgrade: a foreign page, no token, a wrong token
      await expect(connect(`${base}?token=${TOKEN}`, 'http://evil.example')).rejects.toThrow('HTTP 403');
      await expect(connect(base, ORIGIN)).rejects.toThrow('HTTP 401');
      await expect(connect(`${base}?token=nope`, ORIGIN)).rejects.toThrow('HTTP 401');
      await h.until('3 refusals', () => h.counters()[4] === 3);

      const page = await connect(`${base}?token=${TOKEN}`, ORIGIN);
      page.ws.send(poses[0]); // before any skeleton
      await h.until('the first refusal', () => page.replies.length === 1);
      expect(page.replies[0]).toEqual({
        type: 'refused',
        reason: 'pose message before any mocap-skeleton message',
      });
      page.ws.send(text);
      await h.until('the skeleton', () => h.last('K ') !== undefined && page.replies.length === 2);
      const k = h.last('K ')!;
      expect(k[1]).toBe('1');
      expect(k[2].split(',')).toEqual([...sk.names]);
      expect(k.slice(3).map(f32)).toEqual(Array.from(Float32Array.from(sk.restTranslations)));
      expect(page.replies.at(-1)).toEqual({ type: 'skeleton-ok', id: 1 });

      const frame = new MocapStreamFrame(sk);
      for (let i = 0; i < poses.length; i++) {
        page.ws.send(poses[i]);
        await h.until(`frame ${i}`, () => h.last('F ')?.[1] === String(i));
        const f = h.last('F ')!.slice(1);
        expect(readMocapPose(poses[i], 1, frame)).toBeNull();
        // the C# values (printed round-trip) equal the float32 values the TS reader decodes
        expect(Number(f[1])).toBe(frame.timeMs);
        expect(Number(f[2])).toBe(frame.sentAtMs);
        expect(f.slice(3, 6).map(f32)).toEqual(Array.from(frame.translations.subarray(0, 3)));
        expect(f.slice(6, 6 + 84).map(f32)).toEqual(Array.from(frame.rotations));
        expect(f.slice(90, 111).map(f32)).toEqual(Array.from(frame.confidence));
        expect(f.slice(111, 132).map(Number)).toEqual(Array.from(frame.state));
        if (i === 5) {
          // malformed in the middle: the TypeScript reader's reasons, counted, the stream goes on
          const short = poses[i].subarray(0, 100);
          const bad = poses[i].slice();
          bad[44 + 20 * 21] = 7;
          expect(readMocapPose(short, 1, frame)).toBe('pose message of 100 bytes, expected 485 for 21 bones');
          page.ws.send(short);
          page.ws.send(bad);
          page.ws.send('{"type":"mocap-skeleton","protocol":1,"id":0}');
          await h.until('3 more refusals', () => h.counters()[1] === 4);
        }
      }
      const [frames, malformed, lost, skeletons] = h.counters();
      expect({ frames, malformed, lost, skeletons }).toEqual({
        frames: 20,
        malformed: 4,
        lost: 0,
        skeletons: 1,
      });

      // a re-calibration: id 2 current, an id-1 pose refused, an id-2 pose taken
      const sk2 = JSON.parse(text);
      sk2.id = 2;
      page.ws.send(JSON.stringify(sk2));
      await h.until('skeleton 2', () => h.last('K ')?.[1] === '2');
      page.ws.send(poses[3]);
      await h.until('the old-id refusal', () => h.counters()[1] === 5);
      const p2 = poses[7].slice();
      new DataView(p2.buffer).setUint32(4, 2, true);
      page.ws.send(p2);
      await h.until('a frame of skeleton 2', () => h.counters()[0] === 21);
      expect(h.last('F ')?.[1]).toBe('7');
      page.ws.close();
    }, 60000);
  },
);
