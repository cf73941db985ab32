/**
 * The Unity bridge from the C# side's point of view (src/unity/bridge.ts, layouts src/unity/layout.ts):
 * setup and input buffers packed as the shell documents them from real takes in Unity coordinates,
 * outputs unpacked and mirrored back, compared with a RetargetHub run directly on our data (through
 * `updateLive`, the live source stage the bridge runs, with the same dt; with the filter off, bit for
 * bit with plain `update` on the bridge's own source frame); the raw/filtered source pose; the
 * mirror conversion; errors for bad buffers and setups; commands and the remote control.
 */
import * as path from 'node:path';
import fc from 'fast-check';
import { type Clip, createSkeleton, HumanBodyBones as H, qmul, type Skeleton, vrotate } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { defaultSettings, RetargetHub, sourceFilterOff } from '../src/rig';
import * as bridge from '../src/unity/bridge';
import { inputFloats, mirrorPositions, mirrorRotations, outputFloats } from '../src/unity/layout';
import { dataPath, describeWithData } from './helpers/data';
import {
  directHub,
  InputPacker,
  maxDiff,
  maxQuatDiff,
  mirrorPoints,
  mirrorQuats,
  setupJson,
  unpackOutput,
} from './unity.helpers';

const DEFAULT = path.resolve(__dirname, '../assets/default');

/** Run the whole clip through the bridge and directly; max differences. */
function compareRun(name: string, clip: Clip, target: Skeleton, frames = clip.frameCount) {
  const handle = bridge.createHub(setupJson(name, clip.skeleton, target, { options: { ik: 'auto' } }));
  const pack = new InputPacker(clip.skeleton);
  const direct = directHub(clip, target, { ik: 'auto' });
  const T = target.boneCount;
  let rot = 0;
  let hips = 0;
  let scales = 0;
  for (let f = 0; f < frames; f++) {
    const out = unpackOutput(bridge.update(handle, pack.packFrame(clip, f), clip.frameTime), T);
    expect(out.status).toBe(0);
    expect(out.version).toBe(1);
    expect(out.count).toBe(T);
    const d = direct.step(f, clip.frameTime);
    rot = Math.max(rot, maxQuatDiff(out.rotations, d.rotations));
    hips = Math.max(hips, maxDiff(out.hips, d.hips));
    scales = Math.max(scales, maxDiff(out.scales, d.scales));
  }
  bridge.destroyHub(handle);
  return { rot, hips, scales };
}

describeWithData('bridge over real takes, as C# packs them', () => {
  it('Bandai walk onto Xbot, whole take: equals RetargetHub.updateLive on our data within 1e-5', async () => {
    const clip = (await loadSource(dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh')))
      .clip;
    const target = (await loadAvatar(dataPath('threejs/Xbot.glb'))).skeleton;
    const d = compareRun('walk-xbot', clip, target);
    console.log(
      `bridge vs direct hub, Bandai walk -> Xbot (${clip.frameCount} frames): rotations ${d.rot.toExponential(2)}, hips ${d.hips.toExponential(2)} m, scales ${d.scales}`,
    );
    expect(d.rot).toBeLessThanOrEqual(1e-5);
    expect(d.hips).toBeLessThanOrEqual(1e-5);
    expect(d.scales).toBeLessThanOrEqual(1e-7);
  });
});

describe('bridge over the embedded default sample (assets/default)', () => {
  it('default walk onto the default avatar: equals RetargetHub.updateLive on our data within 1e-5', async () => {
    const clip = (await loadSource(path.join(DEFAULT, 'default-walk.bvh'))).clip;
    const target = (await loadAvatar(path.join(DEFAULT, 'default-avatar.glb'))).skeleton;
    const d = compareRun('default', clip, target);
    console.log(
      `bridge vs direct hub, default sample: rotations ${d.rot.toExponential(2)}, hips ${d.hips.toExponential(2)} m`,
    );
    expect(d.rot).toBeLessThanOrEqual(1e-5);
    expect(d.hips).toBeLessThanOrEqual(1e-5);
  });
});

describe('bridge and the live source stage', () => {
  it('filter off: the bridge output equals plain hub.update on its source frame bit for bit; on: it differs', async () => {
    const clip = (await loadSource(path.join(DEFAULT, 'default-walk.bvh'))).clip;
    const target = (await loadAvatar(path.join(DEFAULT, 'default-avatar.glb'))).skeleton;
    const settings = { ...defaultSettings(), sourceFilter: sourceFilterOff() };
    const off = bridge.createHub(
      setupJson('off', clip.skeleton, target, { options: { ik: 'auto' }, settings }),
    );
    const on = bridge.createHub(setupJson('on', clip.skeleton, target, { options: { ik: 'auto' } }));
    const pack = new InputPacker(clip.skeleton);
    // the skeletons as the bridge reads them from the setup JSON (Unity's mirror, through JSON text,
    // mirrored back: a rest 0 comes back as -0)
    const viaSetup = (sk: Skeleton) => {
      const j = JSON.parse(setupJson('x', sk, sk)).source;
      return createSkeleton({
        names: j.names,
        parents: j.parents,
        humanoid: j.humanoid,
        restTranslations: mirrorPoints(j.restLocalPositions),
        restRotations: mirrorQuats(j.restLocalRotations),
      });
    };
    const plain = new RetargetHub(viaSetup(clip.skeleton), viaSetup(target), { sourceUp: '+y', ik: 'auto' });
    const T = target.boneCount;
    let differs = 0;
    try {
      for (let f = 0; f < clip.frameCount; f++) {
        const input = pack.packFrame(clip, f);
        const a = new Float32Array(bridge.update(off, input, clip.frameTime).slice(0));
        const b = new Float32Array(bridge.update(on, input, clip.frameTime).slice(0));
        const fr = bridge.sourceFrame(off);
        if (!fr) throw new Error('no source frame after update');
        if (!plain.isCalibrated) plain.calibrate(fr);
        plain.update(fr.rotations, fr.translations, clip.frameTime);
        // the plain hub's output as the bridge writes it (float32), read back as the unpacking does
        const want = Array.from(Float32Array.from(plain.localRotations));
        const got = mirrorQuats(a.subarray(4, 4 + 4 * T));
        expect(new Uint8Array(Float64Array.from(got).buffer)).toEqual(
          new Uint8Array(Float64Array.from(want).buffer),
        );
        const h = 3 * target.humanoid[0];
        expect(mirrorPoints(a.subarray(4 + 4 * T, 7 + 4 * T))).toEqual(
          Array.from(Float32Array.from(plain.localTranslations.subarray(h, h + 3))),
        );
        for (let i = 4; i < a.length; i++) differs = Math.max(differs, Math.abs(a[i] - b[i]));
      }
    } finally {
      bridge.destroyHub(off);
      bridge.destroyHub(on);
    }
    expect(differs).toBeGreaterThan(1e-4);
  });

  it('sourcePose: raw (the input, Unity coordinates) and filtered world pose of a bone; errors name the bone', async () => {
    const clip = (await loadSource(path.join(DEFAULT, 'default-walk.bvh'))).clip;
    const target = (await loadAvatar(path.join(DEFAULT, 'default-avatar.glb'))).skeleton;
    const handle = bridge.createHub(setupJson('pose', clip.skeleton, target));
    const before = JSON.parse(bridge.command(handle, '{"action":"sourcePose","bone":"LeftHand"}'));
    expect(before).toMatchObject({
      ok: false,
      error: { field: 'bone', message: 'no frame yet (update first)' },
    });
    const pack = new InputPacker(clip.skeleton);
    const S = clip.skeleton.boneCount;
    const lh = clip.skeleton.humanoid[H.LeftHand];
    let moved = 0;
    try {
      for (let f = 0; f < 20; f++) {
        bridge.update(handle, pack.packFrame(clip, f), clip.frameTime);
        const r = JSON.parse(bridge.command(handle, '{"action":"sourcePose","bone":"LeftHand"}'));
        expect(r.ok).toBe(true);
        expect(r.bone).toBe('LeftHand');
        // raw = the world transform C# sent for that bone (Unity coordinates, float32 in)
        const inPos = Array.from(pack.floats.subarray(4 + 3 * lh, 7 + 3 * lh));
        const inRot = Array.from(pack.floats.subarray(4 + 3 * S + 4 * lh, 8 + 3 * S + 4 * lh));
        for (let k = 0; k < 3; k++) expect(Math.abs(r.raw.position[k] - inPos[k])).toBeLessThan(1e-6);
        expect(maxQuatDiff(r.raw.rotation, inRot)).toBeLessThan(1e-6);
        if (f > 0) moved = Math.max(moved, maxDiff(r.raw.position, r.filtered.position));
        expect(Math.hypot(...(r.filtered.rotation as number[]))).toBeCloseTo(1, 12);
      }
      expect(moved).toBeGreaterThan(1e-5); // the default filter is on: filtered lags the raw input
      const bad = JSON.parse(bridge.command(handle, '{"action":"sourcePose","bone":"LeftHnd"}'));
      expect(bad).toMatchObject({
        ok: false,
        error: { field: 'bone', message: '"LeftHnd" is not a HumanBodyBones name' },
      });
    } finally {
      bridge.destroyHub(handle);
    }
  });
});

describe('mirror conversion (Unity left-handed <-> ours)', () => {
  const q = fc
    .tuple(
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.double({ min: -1, max: 1, noNaN: true }),
    )
    .filter(([x, y, z, w]) => Math.hypot(x, y, z, w) > 0.1)
    .map(([x, y, z, w]) => {
      const l = Math.hypot(x, y, z, w);
      return [x / l, y / l, z / l, w / l];
    });
  const v = fc.tuple(
    fc.double({ min: -10, max: 10, noNaN: true }),
    fc.double({ min: -10, max: 10, noNaN: true }),
    fc.double({ min: -10, max: 10, noNaN: true }),
  );

  it('round trip is exact; mirroring commutes with products and with rotating points', () => {
    fc.assert(
      fc.property(q, q, v, (a, b, p) => {
        const ma = [0, 0, 0, 0];
        const back = [0, 0, 0, 0];
        mirrorRotations(ma, 0, a, 0, 1);
        mirrorRotations(back, 0, ma, 0, 1);
        expect(back).toEqual(a);
        const mp = [0, 0, 0];
        const pb = [0, 0, 0];
        mirrorPositions(mp, 0, p, 0, 1);
        mirrorPositions(pb, 0, mp, 0, 1);
        expect(pb).toEqual(p);
        // M(a * b) = M(a) * M(b)
        const ab = [0, 0, 0, 0];
        qmul(ab, 0, a, 0, b, 0);
        const mab = [0, 0, 0, 0];
        mirrorRotations(mab, 0, ab, 0, 1);
        const mb = [0, 0, 0, 0];
        mirrorRotations(mb, 0, b, 0, 1);
        const prod = [0, 0, 0, 0];
        qmul(prod, 0, ma, 0, mb, 0);
        expect(maxDiff(mab, prod)).toBeLessThan(1e-12);
        // M(rotate(a, p)) = rotate(M(a), M(p)): the reflection conjugates the rotation
        const rp = [0, 0, 0];
        vrotate(rp, 0, a, 0, p, 0);
        const mrp = [0, 0, 0];
        mirrorPositions(mrp, 0, rp, 0, 1);
        const rmp = [0, 0, 0];
        vrotate(rmp, 0, ma, 0, mp, 0);
        expect(maxDiff(mrp, rmp)).toBeLessThan(1e-11);
      }),
      { numRuns: 500 },
    );
  });
});

describe('bridge errors and commands', () => {
  let src: Skeleton;
  let tgt: Skeleton;
  let clip: Clip;
  beforeAll(async () => {
    clip = (await loadSource(path.join(DEFAULT, 'default-walk.bvh'))).clip;
    src = clip.skeleton;
    tgt = (await loadAvatar(path.join(DEFAULT, 'default-avatar.glb'))).skeleton;
  });

  it('apiVersion and LAYOUT_VERSION', () => {
    expect(bridge.LAYOUT_VERSION).toBe(1);
    expect(bridge.apiVersion()).toBe('kind-retargeting 0.1.0; layout 1');
    expect(inputFloats(10)).toBe(74);
    expect(outputFloats(10)).toBe(49);
  });

  it('bad setup JSON fields: errors name the field', () => {
    const good = JSON.parse(setupJson('bad', src, tgt));
    const bad = (patch: (s: typeof good) => void) => {
      const s = structuredClone(good);
      patch(s);
      return () => bridge.createHub(JSON.stringify(s));
    };
    expect(() => bridge.createHub('{nope')).toThrow(/^setup: not JSON/);
    expect(bad((s) => (s.layout = 2))).toThrow(/setup\.layout: number 2, expected 1/);
    expect(bad((s) => (s.name = ''))).toThrow(/setup\.name/);
    expect(bad((s) => (s.source.parents[3] = 7))).toThrow(/setup\.source\.parents\[3\].*earlier/);
    expect(bad((s) => s.target.humanoid.pop())).toThrow(/setup\.target\.humanoid: length 54, expected 55/);
    expect(bad((s) => (s.source.restLocalRotations[5] = 'x'))).toThrow(
      /setup\.source\.restLocalRotations\[5\]: need a finite number/,
    );
    expect(bad((s) => (s.target.restLocalPositions = s.target.restLocalPositions.slice(1)))).toThrow(
      /setup\.target\.restLocalPositions: length/,
    );
    expect(bad((s) => (s.options = { ik: 'sometimes' }))).toThrow(
      /setup\.options\.ik: "sometimes" is not one of/,
    );
    expect(bad((s) => (s.extra = 1))).toThrow(/setup\.extra: unknown field/);
    expect(bad((s) => (s.settings = { avatarScale: 9 }))).toThrow(/setup\.settings/);
    const h = bridge.createHub(JSON.stringify(good));
    expect(() => bridge.createHub(JSON.stringify(good))).toThrow(
      /setup\.name: "bad" is already the name of hub/,
    );
    bridge.destroyHub(h);
  });

  it("update returns the hub's own output buffer every frame (PuerTS copies it into C#; no second copy in JS)", () => {
    const h = bridge.createHub(setupJson('no-copy', src, tgt));
    const pack = new InputPacker(src);
    const a = bridge.update(h, pack.packFrame(clip, 0), 0);
    const first = Array.from(new Float32Array(a));
    const b = bridge.update(h, pack.packFrame(clip, 10), clip.frameTime);
    expect(b).toBe(a);
    expect(b.byteLength).toBe(4 * (4 + 4 * tgt.boneCount + 5));
    // the buffer now holds frame 10, not frame 0
    expect(Array.from(new Float32Array(b))).not.toEqual(first);
    bridge.destroyHub(h);
  });

  it('wrong input length, layout version or bone count: clear errors; a NaN frame keeps the last pose', () => {
    const h = bridge.createHub(setupJson('errors', src, tgt));
    const pack = new InputPacker(src);
    const S = src.boneCount;
    expect(() => bridge.update(h, new ArrayBuffer(4 * (inputFloats(S) - 1)), 0)).toThrow(
      new RegExp(
        `input length ${inputFloats(S) - 1} floats .* expected 4 \\+ 7 x ${S} = ${inputFloats(S)} floats`,
      ),
    );
    const first = unpackOutput(bridge.update(h, pack.packFrame(clip, 0), 0), tgt.boneCount);
    const buf = pack.packFrame(clip, 1);
    pack.floats[0] = 2;
    expect(() => bridge.update(h, buf, 0.03)).toThrow(/input\[0\] \(layout version\) is 2, expected 1/);
    pack.floats[0] = 1;
    pack.floats[1] = S + 1;
    expect(() => bridge.update(h, buf, 0.03)).toThrow(
      new RegExp(`input\\[1\\] \\(source bone count\\) is ${S + 1}, expected ${S}`),
    );
    pack.floats[1] = S;
    expect(() => bridge.update(h, buf, Number.NaN)).toThrow(/update: dt/);
    expect(() => bridge.update(99, buf, 0)).toThrow(/update: handle number 99 is not a live hub/);
    pack.floats[4 + 3 * S + 5] = Number.NaN;
    const rejected = unpackOutput(bridge.update(h, buf, 0.03), tgt.boneCount);
    expect(rejected.status).toBe(1);
    expect(rejected.rotations).toEqual(first.rotations);
    expect(rejected.hips).toEqual(first.hips);
    const next = unpackOutput(bridge.update(h, pack.packFrame(clip, 2), 0.03), tgt.boneCount);
    expect(next.status).toBe(0);
    expect(next.rotations.every(Number.isFinite)).toBe(true);
    bridge.destroyHub(h);
  });

  it('before the first frame the output is the rest pose (never garbage)', () => {
    const h = bridge.createHub(setupJson('rest', src, tgt));
    const pack = new InputPacker(src);
    pack.packFrame(clip, 0);
    pack.floats[4] = Number.POSITIVE_INFINITY;
    const out = unpackOutput(bridge.update(h, pack.buffer, 0), tgt.boneCount);
    expect(out.status).toBe(1);
    expect(maxDiff(out.rotations, tgt.restRotations)).toBeLessThan(1e-7);
    bridge.destroyHub(h);
  });

  it('commands: parameters, presets, settings, props; errors name the field', () => {
    const h = bridge.createHub(setupJson('cmd', src, tgt));
    const pack = new InputPacker(src);
    const T = tgt.boneCount;
    const cmd = (m: object) => JSON.parse(bridge.command(h, JSON.stringify(m)));
    // before the first frame, calibrateIPose has no frame
    expect(cmd({ action: 'calibrateIPose' }).ok).toBe(false);
    bridge.update(h, pack.packFrame(clip, 0), 0);
    const r = cmd({ action: 'updateValueRealtime', property: 'avatarScale', value: 1.2 });
    expect(r).toMatchObject({ ok: true, property: 'avatarScale', value: 1.2, characterName: 'cmd' });
    expect(unpackOutput(bridge.update(h, pack.packFrame(clip, 1), 0.03), T).scales[0]).toBeCloseTo(1.2, 6);
    expect(cmd({ action: 'updateValueRealtime', property: 'avatarScale', value: 7 })).toMatchObject({
      ok: false,
      error: { field: 'value' },
    });
    expect(cmd({ action: 'calibrateIPose' }).ok).toBe(true);
    expect(cmd({ action: 'setHandPosePreset', hand: 'left', preset: 'rock' }).ok).toBe(true);
    expect(cmd({ action: 'setHandPosePreset', hand: 'left', preset: 'nope' }).error.field).toBe('preset');
    expect(cmd({ action: 'refresh', characterName: 'other' }).error.field).toBe('characterName');
    const s = cmd({ action: 'exportSettings' });
    expect(s.ok).toBe(true);
    expect(s.settings.avatarScale).toBe(1.2);
    expect(Object.keys(s.settings.rotationOffsets).length).toBeGreaterThan(10);
    expect(cmd({ action: 'applySettings', settings: { ...s.settings, headScale: 1.5 } }).ok).toBe(true);
    expect(cmd({ action: 'exportSettings' }).settings.headScale).toBe(1.5);
    const badApply = cmd({ action: 'applySettings', settings: { ...s.settings, headScale: 'big' } });
    expect(badApply).toMatchObject({ ok: false, error: { field: 'settings' } });
    expect(badApply.error.message).toMatch(/headScale/);
    expect(cmd({ action: 'attachProp', point: 'leftHand', name: 'cup', type: 'Object' })).toMatchObject({
      ok: true,
      prop: { id: 'cup', attachedTo: 'LeftHand', type: 'Object' },
    });
    expect(cmd({ action: 'attachProp', point: 'tail', name: 'x' }).error.field).toBe('point');
    expect(cmd({ action: 'attachProp', point: 'head', name: 'x', type: 'Boat' }).error.field).toBe('type');
    expect(cmd({ action: 'listProps' }).props.map((p: { id: string }) => p.id)).toEqual(['cup']);
    expect(cmd({ action: 'detachProp', name: 'cup' }).ok).toBe(true);
    expect(cmd({ action: 'detachProp', name: 'cup' }).error.field).toBe('name');
    expect(cmd({ action: 'listProps' }).props).toEqual([]);
    expect(JSON.parse(bridge.command(h, 'nope'))).toMatchObject({ ok: false, error: { field: '$' } });
    expect(JSON.parse(bridge.command(12345, '{"action":"listProps"}'))).toMatchObject({
      ok: false,
      error: { field: 'handle' },
    });
    bridge.destroyHub(h);
  });

  it('applySettings before the first frame (a settings file loaded on start): offsets wait for the calibration, nothing lost', () => {
    // a calibrated hub's settings, as a saved file holds them
    const h1 = bridge.createHub(setupJson('saved', src, tgt));
    const pack = new InputPacker(src);
    bridge.update(h1, pack.packFrame(clip, 0), 0);
    const cmd1 = (m: object) => JSON.parse(bridge.command(h1, JSON.stringify(m)));
    expect(cmd1({ action: 'updateValueRealtime', property: 'floorHeight', value: 0.04 }).ok).toBe(true);
    const saved = cmd1({ action: 'exportSettings' }).settings;
    bridge.destroyHub(h1);
    const bone = Object.keys(saved.rotationOffsets)[3];
    saved.rotationOffsets[bone] = [0, Math.SQRT1_2, 0, Math.SQRT1_2];
    // a new hub, no frame yet: applied (the offsets pending), exported as they were given
    const h = bridge.createHub(setupJson('fresh', src, tgt));
    const cmd = (m: object) => JSON.parse(bridge.command(h, JSON.stringify(m)));
    const r = cmd({ action: 'applySettings', settings: saved });
    expect(r.ok).toBe(true);
    expect(r.pendingOffsets).toBe(true);
    expect(r.settings.floorHeight).toBe(0.04);
    expect(r.settings.rotationOffsets[bone]).toEqual([0, Math.SQRT1_2, 0, Math.SQRT1_2]);
    expect(cmd({ action: 'exportSettings' }).settings.rotationOffsets).toEqual(saved.rotationOffsets);
    // a bad bone name: refused, nothing changes
    const bad = cmd({
      action: 'applySettings',
      settings: { ...saved, floorHeight: 0.09, rotationOffsets: { Nope: [0, 0, 0, 1] } },
    });
    expect(bad).toMatchObject({ ok: false, error: { field: 'settings' } });
    expect(bad.error.message).toMatch(/no bone named Nope/);
    expect(cmd({ action: 'exportSettings' }).settings.floorHeight).toBe(0.04);
    // the first frame calibrates, then the saved offsets apply
    bridge.update(h, pack.packFrame(clip, 0), 0);
    const after = cmd({ action: 'exportSettings' }).settings;
    for (let c = 0; c < 4; c++)
      expect(after.rotationOffsets[bone][c]).toBeCloseTo(saved.rotationOffsets[bone][c], 12);
    expect(after.floorHeight).toBe(0.04);
    bridge.destroyHub(h);
  });

  it("handed values cross in Unity's terms: head offset Y/Z and rotation offsets are mirrored, distances not", () => {
    const h = bridge.createHub(setupJson('mirror', src, tgt));
    const pack = new InputPacker(src);
    bridge.update(h, pack.packFrame(clip, 0), 0);
    const cmd = (m: object) => JSON.parse(bridge.command(h, JSON.stringify(m)));
    // Unity Y = +30 is our -30 inside the hub, and reads back as +30
    expect(cmd({ action: 'updateValueRealtime', property: 'headRotationOffsetY', value: 30 })).toMatchObject({
      ok: true,
      value: 30,
    });
    expect(cmd({ action: 'updateValueRealtime', property: 'headRotationOffsetX', value: 10 }).value).toBe(10);
    const data = cmd({ action: 'getCharacterData' });
    const val = (n: string) => data.parameters.find((p: { name: string }) => p.name === n).value;
    expect([val('headRotationOffsetX'), val('headRotationOffsetY'), val('floorHeight')]).toEqual([10, 30, 0]);
    const exported = cmd({ action: 'exportSettings' }).settings;
    expect(exported.headRotationOffset).toEqual([10, 30, 0]);
    // inside, in our right-handed terms
    const ours = JSON.parse(bridge.exportState());
    expect(JSON.stringify(ours)).toContain('"headRotationOffset":[10,-30,0]');
    // settings round trip through the boundary are unchanged (the mirror is its own inverse)
    const back = cmd({ action: 'applySettings', settings: exported }).settings;
    expect(back.headRotationOffset).toEqual(exported.headRotationOffset);
    for (const k of Object.keys(exported.rotationOffsets))
      for (let c = 0; c < 4; c++)
        expect(back.rotationOffsets[k][c]).toBeCloseTo(exported.rotationOffsets[k][c], 12);
    // a remote speaks Unity's terms too
    const r = JSON.parse(
      bridge.remote(
        '{"action":"updateValueRealtime","characterName":"mirror","property":"headRotationOffsetZ","value":-20}',
        'c',
      ),
    );
    expect(JSON.parse(r.reply).value).toBe(-20);
    expect(JSON.parse(r.broadcast).value).toBe(-20);
    expect(JSON.stringify(JSON.parse(bridge.exportState()))).toContain('"headRotationOffset":[10,-30,20]');
    bridge.destroyHub(h);
  });

  it('remote: the protocol over every hub, reply and broadcast', () => {
    const a = bridge.createHub(setupJson('alice', src, tgt));
    const b = bridge.createHub(setupJson('bob', src, tgt));
    const refresh = JSON.parse(bridge.remote('{"action":"refresh"}', 'c1'));
    expect(JSON.parse(refresh.reply).characters).toEqual(['alice', 'bob']);
    expect(refresh.broadcast).toBeNull();
    const set = JSON.parse(
      bridge.remote(
        '{"action":"updateValueRealtime","characterName":"bob","property":"floorHeight","value":0.1}',
        'c1',
      ),
    );
    expect(JSON.parse(set.reply)).toMatchObject({ ok: true, value: 0.1 });
    expect(JSON.parse(set.broadcast)).toMatchObject({ action: 'valueChanged', characterName: 'bob' });
    const bad = JSON.parse(bridge.remote('{"action":"getCharacterData","characterName":"carol"}', 'c1'));
    expect(JSON.parse(bad.reply).error.field).toBe('characterName');
    bridge.destroyHub(a);
    bridge.destroyHub(b);
  });

  it('exportState / importState in one context: handles kept, state restored, bad text named', () => {
    const h = bridge.createHub(setupJson('saved', src, tgt));
    const pack = new InputPacker(src);
    for (let f = 0; f < 5; f++) bridge.update(h, pack.packFrame(clip, f), 0.03);
    const text = bridge.exportState();
    const cont = unpackOutput(bridge.update(h, pack.packFrame(clip, 5), 0.03), tgt.boneCount);
    bridge.importState(text);
    expect(bridge.hubHandles()).toEqual([h]);
    const again = unpackOutput(bridge.update(h, pack.packFrame(clip, 5), 0.03), tgt.boneCount);
    expect(maxDiff(again.rotations, cont.rotations)).toBe(0);
    expect(() => bridge.importState('{"version":7,"hubs":[]}')).toThrow(
      /importState: version number 7, expected 1/,
    );
    const st = JSON.parse(text);
    st.hubs[0].state.version = 3;
    expect(() => bridge.importState(JSON.stringify(st))).toThrow(
      /importState: hubs\[0\]\.state: hub state\.version: 3/,
    );
    expect(bridge.hubHandles()).toEqual([h]);
    expect(bridge.createHub(setupJson('after', src, tgt))).toBeGreaterThan(h);
    for (const k of bridge.hubHandles()) bridge.destroyHub(k);
  });
});
