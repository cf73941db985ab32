/**
 * NatNet decoders over the real captured packets in /work/shared/data/natnet-packets (SOURCES.md §c):
 * python_natnet (NatNet 3.0, Motive 2.1) and natnet-decode (NatNet 2.5 / 2.7 / 2.9).
 */
import * as fs from 'node:fs';
import {
  decodeConnect,
  decodeEchoRequest,
  decodeEchoResponse,
  decodeFrame,
  decodeModelDef,
  decodePacket,
  decodeServerInfo,
  NatNetFrame,
  readHeader,
} from '../src/live/natnet';
import { dataPath, describeWithData } from './helpers/data';

const pn = (f: string) => new Uint8Array(fs.readFileSync(dataPath('natnet-packets/python_natnet', f)));
const nd = (f: string) => new Uint8Array(fs.readFileSync(dataPath('natnet-packets/natnet-decode', f)));
const V3 = { major: 3, minor: 0 };

describeWithData('NatNet 3.0 fixtures (python_natnet)', () => {
  test('SERVERINFO: Motive 2.1.0.0, NatNet 3.0.0.0, data port and multicast group', () => {
    const s = decodeServerInfo(pn('serverinfo_packet_v3.bin'));
    expect(s.appName).toBe('Motive');
    expect(s.appVersion).toEqual([2, 1, 0, 0]);
    expect(s.natNetVersion).toEqual([3, 0, 0, 0]);
    expect(s.dataPort).toBe(1511);
    expect(s.multicastAddress).toBe('239.255.42.99');
    expect(typeof s.isMulticast).toBe('boolean');
    expect(s.highResClockFrequency).toBeGreaterThan(1e6);
  });

  test('MODELDEF: rigid body RaceQuad id 2 with 5 markers, marker sets RaceQuad and all', () => {
    const m = decodeModelDef(pn('modeldef_packet_v3.bin'), V3);
    expect(m.undecoded).toBe(0);
    expect(m.descriptions).toHaveLength(3);
    expect(m.rigidBodies).toHaveLength(1);
    const rb = m.rigidBodies[0];
    expect(rb.name).toBe('RaceQuad');
    expect(rb.id).toBe(2);
    expect(rb.parentId).toBe(-1);
    expect(rb.markers).toHaveLength(5);
    for (const mk of rb.markers) for (const c of mk.position) expect(Math.abs(c)).toBeLessThan(0.5);
    expect(m.markerSets.map((s) => s.name)).toEqual(['RaceQuad', 'all']);
    expect(m.markerSets[0].markerNames).toEqual(['Marker1', 'Marker2', 'Marker3', 'Marker4', 'Marker5']);
    expect(m.markerSets[1].markerNames).toHaveLength(5);
  });

  test('FRAMEOFDATA 162734: rigid body 2 at (0.17, 1.45, -0.73), timestamp 1356.12, 6 labeled markers', () => {
    const f = decodeFrame(pn('mocapframe_packet_v3.bin'), V3);
    expect(f.frameNumber).toBe(162734);
    expect(f.otherMarkerCount).toBe(5);
    expect(f.rigidBodyCount).toBe(1);
    expect(f.rigidBodyIds[0]).toBe(2);
    expect(f.rigidBodyPose[0]).toBeCloseTo(0.17, 2);
    expect(f.rigidBodyPose[1]).toBeCloseTo(1.45, 2);
    expect(f.rigidBodyPose[2]).toBeCloseTo(-0.73, 2);
    const q = f.rigidBodyPose.subarray(3, 7);
    expect(Math.hypot(...q)).toBeCloseTo(1, 5);
    expect(f.timestamp).toBeCloseTo(1356.12, 2);
    expect(f.skeletonCount).toBe(0);
    expect(f.labeledMarkerCount).toBe(6);
    expect(f.stampTransmit).toBeGreaterThan(f.stampCameraMidExposure);
    expect(f.hasPrecisionTimestamp).toBe(false);
    // the decoder consumed the payload exactly up to the 4-byte end tag
    const bytes = pn('mocapframe_packet_v3.bin');
    expect(readHeader(bytes).payloadBytes + 4).toBe(bytes.length);
    expect(Array.from(bytes.subarray(bytes.length - 4))).toEqual([0, 0, 0, 0]);
  });

  test('the occluded frame decodes; occluded labeled markers have param bit 0', () => {
    const f = decodeFrame(pn('mocapframe_packet_occluded_v3.bin'), V3, new NatNetFrame());
    expect(f.frameNumber).toBe(269007);
    expect(f.rigidBodyCount).toBe(1);
    let occluded = 0;
    for (let i = 0; i < f.labeledMarkerCount; i++) if (f.labeledMarkerParams[i] & 1) occluded++;
    expect(f.labeledMarkerCount).toBeGreaterThan(0);
    expect(occluded).toBeGreaterThan(0);
  });

  test('echo request and response', () => {
    const rq = decodeEchoRequest(pn('echorequest_packet_v3.bin'));
    const rs = decodeEchoResponse(pn('echoresponse_packet_v3.bin'));
    expect(rq.stamp).toBeGreaterThan(0);
    expect(rs.requestStamp).toBeGreaterThan(0);
    expect(rs.serverStamp).toBeGreaterThan(0);
  });

  test('connect and discovery: NatNetLib 3.0.0.0', () => {
    for (const f of ['connect_packet_v3.bin', 'discovery_packet_v3.bin']) {
      const c = decodeConnect(pn(f));
      expect(c.appName).toBe('NatNetLib');
      expect(c.natNetVersion).toEqual([3, 0, 0, 0]);
      expect(c.requestedVersion).toBeUndefined();
    }
    expect(decodePacket(pn('requestmodeldef_packet_v3.bin'), V3)).toEqual({ messageId: 4, kind: 'empty' });
  });
});

describeWithData('NatNet 2.x fixtures (natnet-decode)', () => {
  for (const motive of ['1.5.0', '1.7.2', '1.9.0']) {
    test(`Motive ${motive}: serverinfo gives the version, frames decode with consistent counts`, () => {
      const s = decodeServerInfo(nd(`frame-motive-${motive}-000.bin`));
      expect(s.natNetVersion[0]).toBe(2);
      expect(s.highResClockFrequency).toBeUndefined();
      const v = { major: s.natNetVersion[0], minor: s.natNetVersion[1] };
      expect(v.minor).toBe({ '1.5.0': 5, '1.7.2': 7, '1.9.0': 9 }[motive]);
      let prev = -1;
      for (const k of ['001', '002']) {
        const f = decodeFrame(nd(`frame-motive-${motive}-${k}.bin`), v);
        expect(f.markerSetCount).toBe(2);
        // 1.9.0's captures carry no legacy markers (verified by hand against the hex dump)
        expect(f.otherMarkerCount).toBe(motive === '1.9.0' ? 0 : 2);
        expect(f.rigidBodyCount).toBe(1);
        expect(f.skeletonCount).toBe(0);
        expect(f.labeledMarkerCount).toBe(3);
        expect(Math.hypot(...f.rigidBodyPose.subarray(3, 7))).toBeCloseTo(1, 4);
        expect(f.softwareLatency).not.toBeNaN();
        // Suffix alignment check: in these 2.x captures the software-latency field tracks the timestamp
        // (both ~seconds of the take), so a misplaced field would show as a mismatch here.
        if (v.minor >= 7) expect(Math.abs(f.softwareLatency - f.timestamp)).toBeLessThan(0.01);
        else expect(f.timestamp).toBeNaN();
        expect(f.frameNumber).toBeGreaterThan(prev);
        prev = f.frameNumber;
      }
    });
  }
});
