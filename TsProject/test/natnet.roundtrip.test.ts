/** Encode/decode round trips of every NatNet message the server and client send, over random inputs. */
import * as path from 'node:path';
import fc from 'fast-check';
import { HumanBodyBones as H } from '../src/core';
import {
  decodeConnect,
  decodeEchoRequest,
  decodeEchoResponse,
  decodeFrame,
  decodeModelDef,
  decodePacket,
  decodeRequestText,
  decodeResponse,
  decodeServerInfo,
  encodeConnect,
  encodeEchoRequest,
  encodeEchoResponse,
  encodeFrame,
  encodeKeepAlive,
  encodeModelDef,
  encodeRequest,
  encodeRequestModelDef,
  encodeResponse,
  encodeServerInfo,
  humanToMotiveBone,
  MOTIVE_BODY_BONES,
  motiveBoneToHuman,
  NatNetFrame,
  type NatNetVersion,
  parseVersion,
  type SkeletonDescription,
  skeletonFromDescription,
  stripMotivePrefix,
} from '../src/live/natnet';
import { runAllocProbe } from './helpers/allocProbe';

const VERSIONS = ['2.6', '2.9', '2.11', '3.0', '3.1', '4.0', '4.1', '4.2', '4.3'].map(parseVersion);
const f32 = (x: number) => Math.fround(x);
const finite = fc.double({ min: -100, max: 100, noNaN: true });

const frameArb = fc.record({
  frameNumber: fc.integer({ min: 0, max: 0x7fffffff }),
  rigidBodies: fc.array(
    fc.record({
      id: fc.integer({ min: 0, max: 1000 }),
      pose: fc.array(finite, { minLength: 7, maxLength: 7 }),
      err: finite,
      params: fc.integer({ min: -32768, max: 32767 }),
    }),
    { maxLength: 5 },
  ),
  skeletons: fc.array(
    fc.record({
      id: fc.integer({ min: 1, max: 255 }),
      bones: fc.array(
        fc.record({
          id: fc.integer({ min: 1, max: 0xffff }),
          pose: fc.array(finite, { minLength: 7, maxLength: 7 }),
        }),
        { maxLength: 60 },
      ),
    }),
    { maxLength: 3 },
  ),
  labeled: fc.array(
    fc.record({
      id: fc.integer(),
      pos: fc.array(finite, { minLength: 3, maxLength: 3 }),
      size: finite,
      params: fc.integer({ min: -32768, max: 32767 }),
      residual: finite,
    }),
    { maxLength: 8 },
  ),
  timecode: fc.integer({ min: 0, max: 0xffffffff }),
  timestamp: fc.double({ min: 0, max: 1e6, noNaN: true }),
  stamp: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  params: fc.integer({ min: 0, max: 7 }),
});

type FrameIn = typeof frameArb extends fc.Arbitrary<infer T> ? T : never;

function buildFrame(x: FrameIn): NatNetFrame {
  const f = new NatNetFrame();
  f.frameNumber = x.frameNumber;
  f.setRigidBodyCount(x.rigidBodies.length);
  x.rigidBodies.forEach((r, i) => {
    f.rigidBodyIds[i] = r.id;
    f.rigidBodyPose.set(r.pose, 7 * i);
    f.rigidBodyError[i] = r.err;
    f.rigidBodyParams[i] = r.params;
  });
  f.setSkeletonCount(x.skeletons.length);
  let b = 0;
  x.skeletons.forEach((s, i) => {
    f.skeletonIds[i] = s.id;
    f.skeletonBoneStart[i] = b;
    f.skeletonBoneCount[i] = s.bones.length;
    f.setBoneCount(b + s.bones.length);
    for (const bone of s.bones) {
      f.boneIds[b] = (s.id << 16) | bone.id;
      f.bonePose.set(bone.pose, 7 * b);
      f.boneParams[b] = 1;
      b++;
    }
  });
  f.setLabeledMarkerCount(x.labeled.length);
  x.labeled.forEach((m, i) => {
    f.labeledMarkerIds[i] = m.id;
    f.labeledMarkerPos.set(m.pos, 3 * i);
    f.labeledMarkerSize[i] = m.size;
    f.labeledMarkerParams[i] = m.params;
    f.labeledMarkerResidual[i] = m.residual;
  });
  f.timecode = x.timecode;
  f.timestamp = x.timestamp;
  f.stampCameraMidExposure = x.stamp;
  f.stampDataReceived = x.stamp;
  f.stampTransmit = x.stamp;
  f.precisionTimestampSeconds = x.timecode;
  f.precisionTimestampFraction = x.timecode ^ 0x5a5a;
  f.params = x.params;
  return f;
}

const ge = (v: NatNetVersion, a: number, b: number) => v.major > a || (v.major === a && v.minor >= b);

test.each(VERSIONS.map((v) => [`${v.major}.${v.minor}`, v] as const))(
  'FRAMEOFDATA %s: encode -> decode gives the frame back (float32 fields exact)',
  (_name, v) => {
    const out = new NatNetFrame();
    fc.assert(
      fc.property(frameArb, (x) => {
        const f = buildFrame(x);
        const bytes = encodeFrame(f, v);
        const g = decodeFrame(bytes, v, out);
        expect(g.frameNumber).toBe(x.frameNumber);
        expect(g.rigidBodyCount).toBe(x.rigidBodies.length);
        x.rigidBodies.forEach((r, i) => {
          expect(g.rigidBodyIds[i]).toBe(r.id);
          for (let k = 0; k < 7; k++) expect(g.rigidBodyPose[7 * i + k]).toBe(f32(r.pose[k]));
          expect(g.rigidBodyError[i]).toBe(f32(r.err));
          expect(g.rigidBodyParams[i]).toBe(r.params);
        });
        expect(g.skeletonCount).toBe(x.skeletons.length);
        x.skeletons.forEach((s, i) => {
          expect(g.skeletonIds[i]).toBe(s.id);
          expect(g.skeletonBoneCount[i]).toBe(s.bones.length);
          s.bones.forEach((bone, k) => {
            const b = g.skeletonBoneStart[i] + k;
            expect(g.boneIds[b] >>> 16).toBe(s.id);
            expect(g.boneIds[b] & 0xffff).toBe(bone.id);
            for (let c = 0; c < 7; c++) expect(g.bonePose[7 * b + c]).toBe(f32(bone.pose[c]));
          });
        });
        expect(g.labeledMarkerCount).toBe(x.labeled.length);
        x.labeled.forEach((m, i) => {
          expect(g.labeledMarkerIds[i]).toBe(m.id);
          expect(g.labeledMarkerPos[3 * i + 2]).toBe(f32(m.pos[2]));
          expect(g.labeledMarkerResidual[i]).toBe(ge(v, 3, 0) ? f32(m.residual) : 0);
        });
        expect(g.timecode).toBe(x.timecode);
        expect(g.timestamp).toBe(ge(v, 2, 7) ? x.timestamp : f32(x.timestamp));
        expect(g.stampTransmit).toBe(ge(v, 3, 0) ? x.stamp : 0);
        expect(g.hasPrecisionTimestamp).toBe(ge(v, 4, 1));
        if (ge(v, 4, 1)) expect(g.precisionTimestampFraction).toBe((x.timecode ^ 0x5a5a) >>> 0);
        expect(g.params).toBe(x.params);
        expect(g.assetCount).toBe(0);
      }),
      { numRuns: 150 },
    );
  },
);

const boneNames = fc.constantFrom(...MOTIVE_BODY_BONES, 'LThumb1', 'RPinky3', 'Extra', 'Ünïcode');
const descArb = fc.record({
  name: fc.constantFrom('Skeleton', 'Actor1', 'A'),
  id: fc.integer({ min: 1, max: 100 }),
  bones: fc.uniqueArray(
    fc.record({
      name: boneNames,
      id: fc.integer({ min: 1, max: 500 }),
      offset: fc.array(finite, { minLength: 3, maxLength: 3 }),
      rot: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
    }),
    { selector: (b) => b.id, minLength: 1, maxLength: 40 },
  ),
});

test.each(VERSIONS.map((v) => [`${v.major}.${v.minor}`, v] as const))(
  'MODELDEF %s with skeletons: encode -> decode, and skeletonFromDescription keeps the parent links',
  (_name, v) => {
    fc.assert(
      fc.property(descArb, (x) => {
        const desc: SkeletonDescription = {
          type: 'skeleton',
          name: x.name,
          id: x.id,
          bones: x.bones.map((b, i) => ({
            type: 'rigidBody',
            name: `${x.name}_${b.name}`,
            id: b.id,
            parentId: i === 0 ? 0 : x.bones[Math.floor(i / 2)].id,
            offset: b.offset as [number, number, number],
            rotationOffset:
              Math.hypot(...b.rot) > 0.1 ? (b.rot as [number, number, number, number]) : [0, 0, 0, 1],
            markers: [],
          })),
        };
        const m = decodeModelDef(encodeModelDef({ skeletons: [desc] }, v), v);
        expect(m.skeletons).toHaveLength(1);
        const d = m.skeletons[0];
        expect(d.name).toBe(x.name);
        expect(d.id).toBe(x.id);
        expect(d.bones.map((b) => b.name)).toEqual(desc.bones.map((b) => b.name));
        d.bones.forEach((b, i) => {
          expect(b.parentId).toBe(desc.bones[i].parentId);
          for (let k = 0; k < 3; k++) expect(b.offset[k]).toBe(f32(desc.bones[i].offset[k]));
          const want = ge(v, 4, 2) ? desc.bones[i].rotationOffset.map(f32) : [0, 0, 0, 1];
          expect(b.rotationOffset).toEqual(want);
        });
        const { skeleton, mapping } = skeletonFromDescription(d);
        for (let k = 0; k < skeleton.boneCount; k++) {
          const id = mapping.boneIds[k];
          const bi = d.bones.findIndex((b) => b.id === id);
          const p = skeleton.parents[k];
          if (bi === 0) expect(p).toBe(-1);
          else expect(mapping.boneIds[p]).toBe(d.bones[bi].parentId);
          expect(mapping.boneIdToIndex[id]).toBe(k);
        }
      }),
      { numRuns: 100 },
    );
  },
);

test('MODELDEF 4.1+: an unknown descriptor type is skipped by its size', () => {
  const v = parseVersion('4.1');
  const base = encodeModelDef(
    { markerSets: [{ type: 'markerSet', name: 'all', markerNames: ['a', 'b'] }] },
    v,
  );
  // splice an unknown type 99 of 6 bytes before the marker set
  const extra = [99, 0, 0, 0, 6, 0, 0, 0, 1, 2, 3, 4, 5, 6];
  const bytes = new Uint8Array(base.length + extra.length);
  bytes.set(base.subarray(0, 8));
  bytes.set(extra, 8);
  bytes.set(base.subarray(8), 8 + extra.length);
  bytes[4] = 2;
  const payload = bytes.length - 4;
  bytes[2] = payload & 0xff;
  bytes[3] = payload >> 8;
  const m = decodeModelDef(bytes, v);
  expect(m.descriptions.map((d) => d.type)).toEqual(['unknown', 'markerSet']);
  expect(m.markerSets[0].markerNames).toEqual(['a', 'b']);
  // before 4.1 the same unknown type stops decoding and is counted
  const old = decodeModelDef(bytes.slice(), parseVersion('3.0'));
  expect(old.undecoded).toBe(2);
});

test('SERVERINFO, CONNECT, REQUEST, RESPONSE, ECHO and empty requests round-trip', () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 40 }).filter((s) => !s.includes('\0')),
      fc.integer({ min: 0, max: 65535 }),
      fc.boolean(),
      fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      (name, port, multicast, stamp) => {
        const s = decodeServerInfo(
          encodeServerInfo({
            appName: name,
            appVersion: [3, 1, 2, 3],
            natNetVersion: [4, 1, 0, 0],
            highResClockFrequency: stamp,
            dataPort: port,
            isMulticast: multicast,
            multicastAddress: '239.1.2.3',
          }),
        );
        expect(s).toEqual({
          appName: name,
          appVersion: [3, 1, 2, 3],
          natNetVersion: [4, 1, 0, 0],
          highResClockFrequency: stamp,
          dataPort: port,
          isMulticast: multicast,
          multicastAddress: '239.1.2.3',
        });
        const c = decodeConnect(
          encodeConnect({ appName: name, subscribedDataOnly: multicast, requestedVersion: [4, 2, 0, 0] }),
        );
        expect(c.appName).toBe(name);
        expect(c.subscribedDataOnly).toBe(multicast);
        expect(c.requestedVersion).toEqual([4, 2, 0, 0]);
        expect(decodeRequestText(encodeRequest(name))).toBe(name);
        expect(decodeResponse(encodeResponse({ kind: 'text', text: `${name}!` }))).toEqual({
          kind: 'text',
          text: `${name}!`,
        });
        expect(decodeResponse(encodeResponse({ kind: 'int', value: port - 1 }))).toEqual({
          kind: 'int',
          value: port - 1,
        });
        expect(decodeEchoRequest(encodeEchoRequest(stamp)).stamp).toBe(stamp);
        expect(decodeEchoResponse(encodeEchoResponse(stamp, port))).toEqual({
          requestStamp: stamp,
          serverStamp: port,
        });
      },
    ),
  );
  const v = parseVersion('4.1');
  expect(decodePacket(encodeKeepAlive(), v)).toEqual({ messageId: 10, kind: 'empty' });
  expect(decodePacket(encodeRequestModelDef(), v)).toEqual({ messageId: 4, kind: 'empty' });
  // a 2.x server info is the bare 264-byte sender block
  const two = encodeServerInfo({
    appName: 'NatNetLib',
    appVersion: [2, 9, 0, 0],
    natNetVersion: [2, 9, 0, 0],
  });
  expect(two.length).toBe(268);
  expect(decodeServerInfo(two).dataPort).toBeUndefined();
});

test('Motive names <-> HumanBodyBones, with asset prefixes and the asset as root', () => {
  expect(motiveBoneToHuman('Hip')).toBe(H.Hips);
  expect(motiveBoneToHuman('Skeleton1_LUArm')).toBe(H.LeftUpperArm);
  expect(motiveBoneToHuman('Actor:RFArm')).toBe(H.RightLowerArm);
  expect(motiveBoneToHuman('Skeleton', 'Skeleton')).toBe(H.Hips);
  expect(motiveBoneToHuman('LToe')).toBe(H.LeftToes);
  expect(motiveBoneToHuman('RPinky2')).toBe(H.RightLittleIntermediate);
  expect(motiveBoneToHuman('LThumb1')).toBe(H.LeftThumbProximal);
  expect(motiveBoneToHuman('Ab')).toBe(H.Spine);
  expect(motiveBoneToHuman('UpperChest')).toBe(-1);
  expect(motiveBoneToHuman('LeftShoulder')).toBe(-1); // BVH-convention name, not Motive's
  expect(stripMotivePrefix('My_Actor_LHand', 'My_Actor')).toBe('LHand');
  for (const m of MOTIVE_BODY_BONES) expect(humanToMotiveBone(motiveBoneToHuman(m))).toBe(m);
  expect(humanToMotiveBone(H.UpperChest)).toBeUndefined();
});

test('steady-state frame decode and frameSkeletonToPose allocate nothing (plain Node process)', () => {
  const v = parseVersion('4.1');
  const x = fc.sample(frameArb, { numRuns: 1, seed: 7 })[0];
  x.skeletons = [
    { id: 1, bones: Array.from({ length: 21 }, (_, i) => ({ id: i + 1, pose: [0, 1, 0, 0, 0, 0, 1] })) },
  ];
  const bytes = encodeFrame(buildFrame(x), v);
  const desc: SkeletonDescription = {
    type: 'skeleton',
    name: 'S',
    id: 1,
    bones: MOTIVE_BODY_BONES.map((n, i) => ({
      type: 'rigidBody',
      name: n,
      id: i + 1,
      parentId: i,
      offset: [0, 0.1, 0],
      rotationOffset: [0, 0, 0, 1],
      markers: [],
    })),
  };
  const r = runAllocProbe(`
    import { decodeFrame, frameSkeletonToPose, NatNetFrame, parseVersion, skeletonFromDescription } from ${JSON.stringify(
      path.resolve(__dirname, '../src/live/natnet'),
    )};
    const v = parseVersion('4.1');
    const bytes = new Uint8Array(${JSON.stringify(Array.from(bytes))});
    const { skeleton, mapping } = skeletonFromDescription(${JSON.stringify(desc)});
    const rot = new Float64Array(4 * skeleton.boneCount);
    const pos = new Float64Array(3 * skeleton.boneCount);
    const out = new NatNetFrame();
    decodeFrame(bytes, v, out);
    result.perCall = bytesPerCall(() => {
      decodeFrame(bytes, v, out);
      frameSkeletonToPose(out, 0, mapping, rot, pos);
    });
    result.mapped = frameSkeletonToPose(out, 0, mapping, rot, pos);
  `);
  expect(r.perCall).toBeLessThan(16);
  expect(r.mapped).toBe(21);
});
