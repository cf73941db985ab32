/**
 * The two outputs of one `kind retarget`, `<clip>.glb` and `<clip>.bvh`, are the same clip on the same
 * skeleton (issue 10, section 5 follow-up): for every avatar in the shared data, a real take retargeted
 * onto it, the BVH read back by the project's own reader
 * - gives the GLB's world joint positions on every frame (within 1e-4 m), and
 * - has the avatar's rest pose as its rest pose (BVH has no rest rotations: its rest is every rotation
 *   channel at zero, so the writer bakes the skeleton's rest rotations out of the joint frames);
 * and `kind qa` passes with errors near zero in both argument orders.
 * Before the writer baked the rest rotations, CesiumMan was refused ("different characters": its BVH
 * rest lay folded) and the VRM 1.0 sample's Spine was 179.9 degrees off.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RetargetSummary } from '../src/cli/retarget';
import { forwardKinematics, readFrame, restWorld } from '../src/core';
import { loadSource } from '../src/io/node';
import { AVATARS, dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const TAKE = 'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh';

interface QaJson {
  clips: { report: { result: string; series: { bone: string; rotDeg: number[]; twistDeg: number[] }[] } }[];
}

/** Largest E_rot and |E_twist| (degrees) over every bone and frame of a one-clip qa.json. */
function qaPeaks(dir: string): { result: string; rot: number; twist: number } {
  const q = JSON.parse(fs.readFileSync(path.join(dir, 'qa.json'), 'utf8')) as QaJson;
  const clip = q.clips[0].report;
  let rot = 0;
  let twist = 0;
  for (const s of clip.series) {
    for (const v of s.rotDeg) rot = Math.max(rot, v);
    for (const v of s.twistDeg) twist = Math.max(twist, Math.abs(v));
  }
  return { result: clip.result, rot, twist };
}

describeWithData('the BVH and the GLB of one retarget are the same clip (every avatar)', () => {
  it.each(AVATARS)(
    '%s',
    async (avatar) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-agree-'));
      try {
        const r = await runKind(['retarget', dataPath(TAKE), dataPath(avatar), '-o', dir, '-q']);
        expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
        const summary = JSON.parse(
          fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'),
        ) as RetargetSummary;
        const glb = (await loadSource(summary.outputs.glb)).clip;
        const bvh = (await loadSource(summary.outputs.bvh, { unitScale: 0.01 })).clip;
        const gs = glb.skeleton;
        const bs = bvh.skeleton;
        expect(bvh.frameCount).toBe(glb.frameCount);
        // the BVH writer keeps the bones in order (a repeated name gets a suffix)
        expect(bs.boneCount).toBe(gs.boneCount);
        expect(Array.from(bs.parents)).toEqual(Array.from(gs.parents));

        // rest pose: the BVH's (zero rotation channels) is the avatar's
        const gr = restWorld(gs).positions;
        const br = restWorld(bs).positions;
        let restErr = 0;
        for (let i = 0; i < gr.length; i++) restErr = Math.max(restErr, Math.abs(gr[i] - br[i]));

        // every frame: the same world joint positions
        const n = gs.boneCount;
        const gL = new Float64Array(4 * n);
        const gT = new Float64Array(3 * n);
        const gW = new Float64Array(4 * n);
        const gP = new Float64Array(3 * n);
        const bL = new Float64Array(4 * n);
        const bT = new Float64Array(3 * n);
        const bW = new Float64Array(4 * n);
        const bP = new Float64Array(3 * n);
        let frameErr = 0;
        for (let f = 0; f < glb.frameCount; f++) {
          readFrame(glb, f, gL, gT);
          forwardKinematics(gs, gL, gT, gW, gP);
          readFrame(bvh, f, bL, bT);
          forwardKinematics(bs, bL, bT, bW, bP);
          for (let i = 0; i < 3 * n; i++) frameErr = Math.max(frameErr, Math.abs(gP[i] - bP[i]));
        }

        // kind qa, both orders
        const peaks = [];
        for (const [golden, observed, name] of [
          [summary.outputs.bvh, summary.outputs.glb, 'qa-bvh-glb'],
          [summary.outputs.glb, summary.outputs.bvh, 'qa-glb-bvh'],
        ]) {
          const q = await runKind(['qa', golden, observed, '-o', path.join(dir, name)]);
          expect({ avatar, name, code: q.code, err: q.err }).toEqual({ avatar, name, code: 0, err: '' });
          expect(q.out).toMatch(/: Pass \(/);
          peaks.push(qaPeaks(path.join(dir, name)));
        }
        console.log(
          `${path.basename(avatar)}: ${n} bones, ${glb.frameCount} frames; rest pose ${restErr.toExponential(2)} m, frames ${frameErr.toExponential(2)} m; qa bvh->glb ${peaks[0].result} max E_rot ${peaks[0].rot.toFixed(4)} deg, |E_twist| ${peaks[0].twist.toFixed(4)} deg; glb->bvh ${peaks[1].result} max E_rot ${peaks[1].rot.toFixed(4)} deg, |E_twist| ${peaks[1].twist.toFixed(4)} deg`,
        );
        expect({ avatar, restErr: restErr < 1e-4 }).toEqual({ avatar, restErr: true });
        expect({ avatar, frameErr: frameErr < 1e-4 }).toEqual({ avatar, frameErr: true });
        for (const p of peaks) {
          expect(p.result).toBe('Pass');
          expect(p.rot).toBeLessThan(0.05);
          expect(p.twist).toBeLessThan(0.05);
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
