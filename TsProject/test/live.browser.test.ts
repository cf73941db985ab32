/**
 * `kind live --source browser` (issue 23 item 5, src/mocap/STREAM.md): a `ws` client plays the webcam page,
 * sending the mocap skeleton and the poses MocapSolver solves from the real MediaPipe squat recording over
 * loopback; the avatar poses that come out equal a hub run directly on the same decoded frames (known answer).
 * Also: origin and token rules as the remote control's, malformed messages counted and refused while the
 * stream goes on, a re-sent skeleton rebuilds the hubs.
 */
import * as path from 'node:path';
import WebSocket from 'ws';
import { runLive } from '../src/cli/live';
import { loadAvatar, loadLandmarkRecording } from '../src/io/node';
import { BROWSER_SOURCE_PATH } from '../src/live/node/browserSource';
import { type LiveHandle, startLive } from '../src/live/node/live';
import {
  calibrateMocap,
  MocapHubDriver,
  MocapPoseWriter,
  MocapSolver,
  MocapStreamFrame,
  mocapPoseBytes,
  mocapSkeleton,
  mocapSkeletonMessage,
  mocapSourceFigure,
  parseMocapSkeletonMessage,
  placeholderMocapSkeleton,
  readMocapPose,
} from '../src/mocap';
import { RetargetHub } from '../src/rig';
import { MocapStream } from '../src/web/mocap/stream';
import { dataPath, describeWithData } from './helpers/data';
import { sleep, TestClient } from './remote.wsclient';

const AVATAR = path.resolve(__dirname, '../assets/default/default-avatar.glb');
const PAGE_ORIGIN = 'http://127.0.0.1:8066';
const TOKEN = 'squat-token';

/** A page stand-in: connects with an Origin (remote.wsclient's TestClient), collects the server's text replies. */
async function connect(
  url: string,
  origin?: string,
): Promise<{ ws: WebSocket; replies: Record<string, unknown>[] }> {
  const c = new TestClient(url, origin ? { Origin: origin } : undefined);
  await c.open();
  return { ws: c.ws, replies: c.messages };
}

async function until(pred: () => boolean, what: string, ms = 30000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** The squat solved as the page solves it: calibrated on its frames, then every frame stepped. */
function solvedSquat() {
  const rec = loadLandmarkRecording(dataPath('pose-landmarks/pose_squats.full.json'), {
    imageSize: { width: 720, height: 1280 },
    fps: 5,
  }).recording;
  const cal = calibrateMocap(rec.frames, { source: 'squat' });
  const solver = new MocapSolver(cal);
  const skeleton = mocapSkeleton(cal);
  const writer = new MocapPoseWriter(skeleton.names.length);
  const messages: Uint8Array[] = [];
  const float64: { rot: Float64Array; pos: Float64Array; conf: Float64Array; t: number }[] = [];
  rec.frames.forEach((f, i) => {
    const r = solver.step(f, { width: 720, height: 1280 });
    messages.push(
      writer
        .write(
          1,
          i,
          r.personFound,
          f.timestampMs,
          Date.now(),
          solver.localRotations,
          solver.localTranslations,
          solver.confidence,
          solver.state,
        )
        .slice(),
    );
    float64.push({
      rot: solver.localRotations.slice(),
      pos: solver.localTranslations.slice(),
      conf: solver.confidence.slice(),
      t: f.timestampMs,
    });
  });
  return { skeleton, messages, float64 };
}

/**
 * The hub and mocap driver `kind live` builds for the browser source (src/live/node/live.ts: the hub on the
 * page's skeleton calibrated on its rest T-pose, MocapHubDriver on it), run directly on frames.
 */
function directRun(
  skeletonText: string,
  target: ConstructorParameters<typeof RetargetHub>[1],
  frames: { rot: ArrayLike<number>; pos: ArrayLike<number>; conf: ArrayLike<number>; t: number }[],
): Float64Array[] {
  const sk = parseMocapSkeletonMessage(skeletonText).skeleton;
  const hub = new RetargetHub(sk, target, { ik: 'auto', hipsMode: 'room', fingers: 'rotation' });
  hub.calibrate({ rotations: sk.restRotations, translations: sk.restTranslations });
  const driver = new MocapHubDriver(mocapSourceFigure(sk), hub);
  return frames.map((f) => {
    driver.stepStream({ rotations: f.rot, translations: f.pos, confidence: f.conf, timeMs: f.t });
    return hub.localRotations.slice();
  });
}

describe('the mocap stream wire format (src/mocap/stream.ts)', () => {
  it('a pose round-trips through the bytes (float32 values), and bad bytes are refused with a reason', () => {
    const sk = mocapSkeleton({
      restTranslations: new Float64Array(63).map((_, i) => (i % 3 === 1 ? 0.1 : 0)),
    } as never);
    const text = mocapSkeletonMessage(sk, 7);
    const parsed = parseMocapSkeletonMessage(text);
    expect(parsed.id).toBe(7);
    expect([...parsed.skeleton.names]).toEqual([...sk.names]);
    const rot = new Float64Array(84);
    for (let b = 0; b < 21; b++) {
      const a = 0.1 * b;
      rot.set([Math.sin(a / 2), 0, 0, Math.cos(a / 2)], 4 * b);
    }
    const pos = Float64Array.from(sk.restTranslations);
    pos.set([0.25, 0.9, -1.5], 0);
    const conf = new Float64Array(21).map((_, i) => i / 20);
    const state = new Uint8Array(21).map((_, i) => i % 3);
    const w = new MocapPoseWriter(21);
    const bytes = w.write(7, 42, true, 1234.5, 1.7e12, rot, pos, conf, state);
    expect(bytes.length).toBe(485);
    expect(mocapPoseBytes(21)).toBe(485);
    const out = new MocapStreamFrame(parsed.skeleton);
    expect(readMocapPose(bytes, 7, out)).toBeNull();
    expect(out.frameNumber).toBe(42);
    expect(out.flags).toBe(1);
    expect(out.timeMs).toBe(1234.5);
    expect(out.sentAtMs).toBe(1.7e12);
    expect(Array.from(out.rotations)).toEqual(Array.from(Float32Array.from(rot)));
    expect(Array.from(out.translations.subarray(0, 3))).toEqual(
      Array.from(Float32Array.from([0.25, 0.9, -1.5])),
    );
    expect(Array.from(out.translations.subarray(3))).toEqual(Array.from(sk.restTranslations.subarray(3)));
    expect(Array.from(out.confidence)).toEqual(Array.from(Float32Array.from(conf)));
    expect(Array.from(out.state)).toEqual(Array.from(state));
    // refusals
    expect(readMocapPose(bytes.subarray(0, 484), 7, out)).toBe(
      'pose message of 484 bytes, expected 485 for 21 bones',
    );
    expect(readMocapPose(bytes, 8, out)).toBe('pose message of skeleton 7, the current skeleton is 8');
    const bad = bytes.slice();
    bad[0] = 0;
    expect(readMocapPose(bad, 7, out)).toBe('pose message: bad magic (not KMP)');
    const big = new MocapPoseWriter(21).write(
      7,
      1,
      true,
      0,
      0,
      rot.map((v) => 2 * v),
      pos,
      conf,
      state,
    );
    expect(readMocapPose(big, 7, out)).toBe('pose message: bone 0 rotation is not a unit quaternion');
    const st = bytes.slice();
    st[44 + 20 * 21] = 3;
    expect(readMocapPose(st, 7, out)).toBe('pose message: bone 0 state 3 is not 0, 1 or 2');
    expect(() => parseMocapSkeletonMessage('{"type":"mocap-skeleton","protocol":1,"id":0}')).toThrow(
      'mocap skeleton.id: 0, need an integer 1..4294967295',
    );
    expect(() => parseMocapSkeletonMessage(text.replace('"Spine"', '"Spline"'))).toThrow(
      'mocap skeleton.bones[1]: "Spline" is no HumanBodyBones name',
    );
    expect(() => parseMocapSkeletonMessage(text.replace('"parents":[-1,0,', '"parents":[-1,5,'))).toThrow(
      'mocap skeleton.parents[1]: 5, need an index 0..0 (parents first)',
    );
  });
});

describe('kind live --source browser without a page', () => {
  it('prints where the page streams, the page URL, and why no pose came', async () => {
    const lines: string[] = [];
    await expect(
      runLive({
        source: 'browser',
        avatars: [AVATAR],
        remotePort: 0,
        viewerPort: 0,
        duration: 0.5,
        print: (l) => lines.push(l),
      }),
    ).rejects.toThrow(
      /^no pose from the browser page in \d+\.\d s: open http:\/\/127\.0\.0\.1:8066\/\?live=ws:\/\/127\.0\.0\.1:\d+\/source/,
    );
    expect(lines[0]).toMatch(
      /^live: browser mocap page on ws:\/\/127\.0\.0\.1:\d+\/source -> default-avatar$/,
    );
    expect(lines.join('\n')).toMatch(
      /mocap page: +http:\/\/127\.0\.0\.1:8066\/\?live=ws:\/\/127\.0\.0\.1:\d+\/source/,
    );
    await expect(startLive({ source: 'browser', replay: 'default', avatars: [AVATAR] })).rejects.toThrow(
      '--source browser: the page is the source; leave out --natnet and --replay',
    );
  });
});

describe('kind live --source browser: a skeleton of other valid HumanBodyBones', () => {
  let live: LiveHandle | undefined;
  afterEach(async () => {
    await live?.close();
  });

  it('is refused naming the bone (not as an internal error), changes no hub, and the remote settings survive', async () => {
    live = await startLive({
      source: 'browser',
      avatars: [AVATAR],
      remotePort: 0,
      viewerPort: 0,
      log: () => {},
    });
    const sk = placeholderMocapSkeleton();
    const page = await connect(live.browserSourceUrl);
    page.ws.send(mocapSkeletonMessage(sk, 1));
    await until(() => page.replies.some((r) => r.type === 'skeleton-ok'), 'the skeleton');
    const hub = live.hub('default-avatar');
    const source = live.sourceSkeleton;
    // the remote control changes a setting on the running hub
    const remote = await connect(live.remoteUrl);
    remote.ws.send(
      JSON.stringify({
        action: 'updateValueRealtime',
        characterName: 'default-avatar',
        property: 'avatarScale',
        value: 1.5,
        id: 1,
      }),
    );
    await until(() => remote.replies.some((r) => r.id === 1), 'the remote reply');
    expect(remote.replies.find((r) => r.id === 1)?.ok).toBe(true);

    const base = JSON.parse(mocapSkeletonMessage(sk, 2));
    const order = [0, 13, 14, 15, 16, 17, 18, 19, 20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    const inv = new Map(order.map((old, i) => [old, i]));
    const others: [string, Record<string, unknown>][] = [
      [
        'mocap skeleton.bones[21]: LeftThumbProximal, expected no more bones',
        {
          ...base,
          bones: [...base.bones, 'LeftThumbProximal'],
          parents: [...base.parents, 8],
          offsets: [...base.offsets, 0.03, 0, 0.02],
        },
      ],
      [
        'mocap skeleton.bones[1]: LeftUpperLeg, expected Spine',
        {
          ...base,
          bones: order.map((i) => base.bones[i]),
          parents: order.map((i) => (base.parents[i] < 0 ? -1 : inv.get(base.parents[i]))),
          offsets: order.flatMap((i) => base.offsets.slice(3 * i, 3 * i + 3)),
        },
      ],
      [
        'mocap skeleton.bones[2]: missing, expected Chest',
        { ...base, bones: ['Hips', 'Spine'], parents: [-1, 0], offsets: [0, 1, 0, 0, 0.1, 0] },
      ],
    ];
    for (const [i, [reason, msg]] of others.entries()) {
      const c = await connect(live.browserSourceUrl); // a fresh page: replies are once a second per connection
      c.ws.send(JSON.stringify(msg));
      await until(() => c.replies.length > 0, 'the refusal');
      expect(c.replies[0].type).toBe('refused');
      expect(String(c.replies[0].reason)).toMatch(new RegExp(`^${reason.replace(/[[\]]/g, '\\$&')} \\(`));
      expect(live.stats().malformed).toBe(i + 1);
      c.ws.close();
    }
    // the right bones with every offset 0 (no body frame to calibrate on): refused as the page's data
    {
      const c = await connect(live.browserSourceUrl);
      c.ws.send(JSON.stringify({ ...base, offsets: base.offsets.map(() => 0) }));
      await until(() => c.replies.length > 0, 'the refusal');
      expect(c.replies[0].type).toBe('refused');
      expect(String(c.replies[0].reason)).toMatch(/^mocap skeleton: the hubs cannot run on it: /);
      expect(live.stats().malformed).toBe(others.length + 1);
      c.ws.close();
    }
    // nothing changed: the same hub, the same source skeleton; poses of skeleton 1 still drive it
    expect(live.hub('default-avatar')).toBe(hub);
    expect(live.sourceSkeleton).toBe(source);
    const w = new MocapPoseWriter(21);
    const rot = new Float64Array(84).map((_, k) => (k % 4 === 3 ? 1 : 0));
    const conf = new Float64Array(21).fill(1);
    page.ws.send(w.write(1, 0, true, 0, Date.now(), rot, sk.restTranslations, conf, new Uint8Array(21)));
    await until(() => live?.stats().frames === 1, 'a pose');
    // a re-calibration keeps the remote's setting (before the fix the refused skeleton left an orphan hub
    // whose settings the next rebuild copied)
    page.ws.send(mocapSkeletonMessage(sk, 3));
    await until(() => page.replies.some((r) => r.type === 'skeleton-ok' && r.id === 3), 'the re-calibration');
    expect(live.hub('default-avatar')).not.toBe(hub);
    expect(live.hub('default-avatar').exportSettings().avatarScale).toBe(1.5);
    page.ws.close();
    remote.ws.close();
  });
});

describeWithData('kind live --source browser on the real squat over loopback', () => {
  let live: LiveHandle;
  afterEach(async () => {
    await live?.close();
  });

  it('the avatar poses equal a direct hub run on the same frames; origin and token rules; malformed refused; re-calibration rebuilds', async () => {
    const squat = solvedSquat();
    const target: ConstructorParameters<typeof RetargetHub>[1] = (await loadAvatar(AVATAR)).skeleton;
    const text = mocapSkeletonMessage(squat.skeleton, 1);
    const logs: string[] = [];
    live = await startLive({
      source: 'browser',
      avatars: [AVATAR],
      remotePort: 0,
      viewerPort: 0,
      token: TOKEN,
      log: (l) => logs.push(l),
    });
    expect(live.browserSourceUrl).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+${BROWSER_SOURCE_PATH}$`));
    const url = `${live.browserSourceUrl}?token=${TOKEN}`;
    // refused: a foreign page, no token, a wrong token; the remote control's rules
    await expect(connect(url, 'http://evil.example')).rejects.toThrow('HTTP 403');
    await expect(connect(live.browserSourceUrl, PAGE_ORIGIN)).rejects.toThrow('HTTP 401');
    await expect(connect(`${live.browserSourceUrl}?token=nope`, PAGE_ORIGIN)).rejects.toThrow('HTTP 401');
    await expect(connect(url, 'http://127.0.0.1:9999')).rejects.toThrow('HTTP 403');
    expect(logs.some((l) => /403 \(origin http:\/\/evil\.example is not on the allow-list\)/.test(l))).toBe(
      true,
    );

    const page = await connect(url, PAGE_ORIGIN);
    // a pose before the skeleton is refused, and said why
    page.ws.send(squat.messages[0]);
    await until(() => page.replies.length > 0, 'a refusal');
    expect(page.replies[0]).toEqual({
      type: 'refused',
      reason: 'pose message before any mocap-skeleton message',
    });
    expect(live.stats().malformed).toBe(1);
    page.ws.send(text);
    await until(() => page.replies.some((r) => r.type === 'skeleton-ok'), 'the skeleton');
    expect(Array.from(live.sourceSkeleton.restTranslations)).toEqual(
      Array.from(squat.skeleton.restTranslations),
    );
    const hub = live.hub('default-avatar');

    // every frame, one at a time: the avatar pose after each
    const got: Float64Array[] = [];
    for (let i = 0; i < squat.messages.length; i++) {
      // stamped as the page does, at the send (epoch ms)
      new DataView(squat.messages[i].buffer).setFloat64(24, performance.timeOrigin + performance.now(), true);
      page.ws.send(squat.messages[i]);
      await until(() => live.stats().frames === i + 1, `frame ${i}`);
      got.push(hub.localRotations.slice());
      if (i === 10) {
        // malformed in the middle: counted, refused, the stream goes on
        page.ws.send(new Uint8Array(100));
        page.ws.send(
          '{"type":"mocap-skeleton","protocol":1,"id":2,"bones":["Hips"],"parents":[-1],"offsets":[0,1]}',
        );
        await until(() => live.stats().malformed === 3, 'two refusals');
        // a well-formed skeleton the hubs cannot run on (20 of the mocap's 21 bones): refused with the
        // reason, the current skeleton and hubs kept (nothing rebuilt half-way)
        // (from a second connection: refusals are answered at most once a second per connection)
        const j = JSON.parse(text);
        const other = await connect(url, PAGE_ORIGIN);
        other.ws.send(
          JSON.stringify({
            ...j,
            id: 3,
            bones: j.bones.slice(0, 20),
            parents: j.parents.slice(0, 20),
            offsets: j.offsets.slice(0, 60),
          }),
        );
        await until(() => other.replies.length > 0, 'the 20-bone skeleton refused');
        expect(other.replies[0]).toEqual({
          type: 'refused',
          reason: expect.stringMatching(/^mocap skeleton\.bones\[20\]: missing, expected RightToes \(/),
        });
        expect(live.stats().malformed).toBe(4);
        other.ws.close();
        expect(live.hub('default-avatar')).toBe(hub);
      }
    }
    const s = live.stats();
    expect(s.frames).toBe(squat.messages.length);
    expect(s.dropped).toBe(0);
    expect(s.malformed).toBe(4);
    expect(Number.isFinite(s.endToEndMs.median)).toBe(true);
    // known answer: the same hub on the same decoded frames
    const frame = new MocapStreamFrame(parseMocapSkeletonMessage(text).skeleton);
    const decoded = squat.messages.map((m) => {
      expect(readMocapPose(m, 1, frame)).toBeNull();
      return {
        rot: frame.rotations.slice(),
        pos: frame.translations.slice(),
        conf: frame.confidence.slice(),
        t: frame.timeMs,
      };
    });
    const want = directRun(text, target, decoded);
    expect(got.length).toBe(want.length);
    let maxDiff = 0;
    for (let i = 0; i < want.length; i++)
      for (let k = 0; k < want[i].length; k++) maxDiff = Math.max(maxDiff, Math.abs(got[i][k] - want[i][k]));
    expect(maxDiff).toBe(0);
    // and the float32 wire costs little against the solver's float64 pose (max quaternion component)
    const exact = directRun(text, target, squat.float64);
    let wire = 0;
    for (let i = 0; i < exact.length; i++)
      for (let k = 0; k < exact[i].length; k++) wire = Math.max(wire, Math.abs(got[i][k] - exact[i][k]));
    expect(wire).toBeLessThan(1e-4);
    // the squat moved the avatar: its pose differs between standing (frame 0) and the deepest frame
    let moved = 0;
    for (let k = 0; k < got[0].length; k++) moved = Math.max(moved, Math.abs(got[0][k] - got[30][k]));
    expect(moved).toBeGreaterThan(0.1);
    console.log(
      `live.browser: ${s.frames} squat frames of ${squat.messages[0].length} bytes; page send -> pose median ${s.endToEndMs.median.toFixed(2)} ms, p99 ${s.endToEndMs.p99.toFixed(2)} ms; arrival -> pose median ${s.latencyMs.median.toFixed(2)} ms; float32 wire vs float64: ${wire.toExponential(2)}`,
    );

    // re-calibration: a new skeleton (id 2, legs 10% longer) rebuilds the hubs; old-id poses are refused
    const sk2 = JSON.parse(text);
    sk2.id = 2;
    sk2.offsets = sk2.offsets.map((v: number) => v * 1.1);
    page.ws.send(JSON.stringify(sk2));
    await until(
      () => page.replies.some((r) => r.type === 'skeleton-ok' && r.id === 2),
      'the second skeleton',
    );
    expect(live.hub('default-avatar')).not.toBe(hub);
    expect(live.sourceSkeleton.restTranslations[1]).toBeCloseTo(1.1 * squat.skeleton.restTranslations[1], 12);
    page.ws.send(squat.messages[0]);
    await until(() => live.stats().malformed === 4, 'the old-skeleton refusal');
    const m2 = squat.messages[5].slice();
    new DataView(m2.buffer).setUint32(4, 2, true);
    page.ws.send(m2);
    await until(() => live.stats().frames === squat.messages.length + 1, 'a frame on the new skeleton');
    page.ws.close();
  });
});

describeWithData(
  "the page's MocapStream (src/web/mocap/stream.ts) into kind live, in Node with ws as the WebSocket",
  () => {
    it('connects with the token, sends the skeleton and every pose; the hubs see them all; a re-calibration re-sends', async () => {
      (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
      const squat = solvedSquat();
      const live = await startLive({
        source: 'browser',
        avatars: [AVATAR],
        remotePort: 0,
        viewerPort: 0,
        token: TOKEN,
      });
      try {
        const states: string[] = [];
        const stream = new MocapStream((st) => states.push(st.state));
        expect(() => stream.connect('http://127.0.0.1:1/source')).toThrow(
          "stream to: 'http://127.0.0.1:1/source' is not a ws:// or wss:// URL",
        );
        stream.skeleton(squat.skeleton);
        stream.connect(live.browserSourceUrl, TOKEN);
        await until(
          () => stream.status.state === 'open' && stream.status.skeletons === 1,
          'the page stream to open',
        );
        const frame = new MocapStreamFrame(squat.skeleton);
        for (let i = 0; i < squat.messages.length; i++) {
          expect(readMocapPose(squat.messages[i], 1, frame)).toBeNull();
          stream.pose(frame.timeMs, true, frame.rotations, frame.translations, frame.confidence, frame.state);
        }
        await until(() => live.stats().frames === squat.messages.length, 'every pose');
        expect(stream.status).toMatchObject({ sent: 65, skipped: 0, poseBytes: 485, lastRefusal: '' });
        expect(live.stats()).toMatchObject({ frames: 65, dropped: 0, malformed: 0 });
        // the same hub result as the hand-made page client's frames
        const decoded = squat.messages.map((m) => {
          readMocapPose(m, 1, frame);
          return {
            rot: frame.rotations.slice(),
            pos: frame.translations.slice(),
            conf: frame.confidence.slice(),
            t: frame.timeMs,
          };
        });
        const target: ConstructorParameters<typeof RetargetHub>[1] = (await loadAvatar(AVATAR)).skeleton;
        const want = directRun(mocapSkeletonMessage(squat.skeleton, 1), target, decoded);
        expect(Array.from(live.hub('default-avatar').localRotations)).toEqual(Array.from(want.at(-1) ?? []));
        // a re-calibration: id 2 sent at once, the hubs rebuilt
        const before = live.hub('default-avatar');
        stream.skeleton(squat.skeleton);
        await until(() => live.hub('default-avatar') !== before, 'the rebuild');
        stream.disconnect();
        // off (connect closes any old socket), connecting, open, then one change per skeleton sent, off
        expect(states).toEqual(['off', 'connecting', 'open', 'open', 'open', 'off']);
        expect(stream.status.skeletons).toBe(2);
      } finally {
        await live.close();
      }
    });
  },
);
