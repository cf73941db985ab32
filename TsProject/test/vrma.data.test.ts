/**
 * VRM Animation (`.vrma`) checked from outside (issue 25 item 4): `kind retarget <take> --vrma` writes
 * a file that @pixiv/three-vrm-animation (the VRM consortium's three.js loader, an independent reader)
 * plays on the VRM avatars of ../shared/data, in Node; the avatar's limb directions (world, upper arm ->
 * lower arm, lower arm -> hand, thigh -> calf, calf -> foot, hips -> neck) are compared with our own
 * retarget of the same take onto the same avatar (`retargetClip`, as `kind retarget`) at the same frames.
 * The same for `kind mocap <landmarks> --vrma` (the squat recording, against our retarget of the BVH
 * it writes beside). Also the round trip: the `.vrma` read back by our reader (src/io/node loadSource), retargeted onto the
 * avatar, against the direct retarget.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type VRM, VRMLoaderPlugin, VRMUtils } from '@pixiv/three-vrm';
import {
  createVRMAnimationClip,
  type VRMAnimation,
  VRMAnimationLoaderPlugin,
} from '@pixiv/three-vrm-animation';
import { AnimationMixer, LoopOnce, Vector3 } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { runRetargetVrma } from '../src/cli/retargetVrma';
import {
  type Clip,
  forwardKinematics,
  HumanBodyBones as H,
  readFrame,
  type Skeleton,
  vrotate,
} from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { canonicalPose, poseGeometry, retargetClip } from '../src/retarget';
import { dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const TAKES = [
  'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh',
  'threejs/pirouette.bvh',
  'animated-drawings/rokoko/jesse_dance.bvh',
];
/** Recorded MediaPipe landmarks: `kind mocap <landmarks> --vrma`. */
const MOCAP = 'pose-landmarks/pose_squats.full.json';
const VRMS = [
  'vrm-samples-madjin/cryptovoxels.vrm',
  'vrm-specification/VRMC_materials_mtoon_UV_Animation_Test/VRMC_materials_mtoon_UV_Animation_Test.vrm',
];
/** Frames compared per take: evenly spread, first and last included. */
const SAMPLES = 12;

/** The segments compared: [name, from bone, to bone] (VRM names for three-vrm, HumanBodyBones for ours). */
const SEGMENTS: [string, number, number][] = [
  ['leftUpperArm', H.LeftUpperArm, H.LeftLowerArm],
  ['leftLowerArm', H.LeftLowerArm, H.LeftHand],
  ['rightUpperArm', H.RightUpperArm, H.RightLowerArm],
  ['rightLowerArm', H.RightLowerArm, H.RightHand],
  ['leftUpperLeg', H.LeftUpperLeg, H.LeftLowerLeg],
  ['leftLowerLeg', H.LeftLowerLeg, H.LeftFoot],
  ['rightUpperLeg', H.RightUpperLeg, H.RightLowerLeg],
  ['rightLowerLeg', H.RightLowerLeg, H.RightFoot],
  ['spine (hips -> neck)', H.Hips, H.Neck],
];
const VRM_NAME: Record<number, string> = {
  [H.Hips]: 'hips',
  [H.Neck]: 'neck',
  [H.LeftUpperArm]: 'leftUpperArm',
  [H.LeftLowerArm]: 'leftLowerArm',
  [H.LeftHand]: 'leftHand',
  [H.RightUpperArm]: 'rightUpperArm',
  [H.RightLowerArm]: 'rightLowerArm',
  [H.RightHand]: 'rightHand',
  [H.LeftUpperLeg]: 'leftUpperLeg',
  [H.LeftLowerLeg]: 'leftLowerLeg',
  [H.LeftFoot]: 'leftFoot',
  [H.RightUpperLeg]: 'rightUpperLeg',
  [H.RightLowerLeg]: 'rightLowerLeg',
  [H.RightFoot]: 'rightFoot',
  [H.LeftToes]: 'leftToes',
  [H.RightToes]: 'rightToes',
};
/** Reported, not compared: foot -> toes (a VRM player turns the avatar's own rest foot). */
const FEET: [number, number][] = [
  [H.LeftFoot, H.LeftToes],
  [H.RightFoot, H.RightToes],
];

// three's GLTFLoader reads `self` (a browser global) for its texture loaders; textures then fail
// quietly in Node (no image decoder), which the bones do not need.
(globalThis as { self?: unknown }).self ??= globalThis;

function arrayBufferOf(file: string): ArrayBuffer {
  const b = fs.readFileSync(file);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

/** Parse a GLB with three's GLTFLoader and the given plugin (no DOM: textures fail quietly, bones load). */
function parseGltf(
  bytes: ArrayBuffer,
  plugin: 'vrm' | 'vrma',
): Promise<{ userData: { vrm?: VRM; vrmAnimations?: VRMAnimation[] } }> {
  const loader = new GLTFLoader();
  loader.register((parser) =>
    plugin === 'vrm' ? new VRMLoaderPlugin(parser) : new VRMAnimationLoaderPlugin(parser),
  );
  return new Promise((resolve, reject) => {
    loader.parse(bytes, '', resolve as never, reject);
  });
}

/** Unit direction a -> b of 3-vectors. */
function direction(a: ArrayLike<number>, b: ArrayLike<number>): [number, number, number] {
  const v: [number, number, number] = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const l = Math.hypot(...v);
  return [v[0] / l, v[1] / l, v[2] / l];
}

function angleDeg(u: ArrayLike<number>, v: ArrayLike<number>): number {
  const d = Math.min(1, Math.max(-1, u[0] * v[0] + u[1] * v[1] + u[2] * v[2]));
  return (Math.acos(d) * 180) / Math.PI;
}

/** World positions of the humanoid bones of `clip` (on `sk`) at frame f, by HumanBodyBones. */
function ourPositions(sk: Skeleton, clip: Clip, f: number): Map<number, number[]> {
  const n = sk.boneCount;
  const lr = new Float64Array(4 * n);
  const lp = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  readFrame(clip, f, lr, lp);
  forwardKinematics(sk, lr, lp, wr, wp);
  const out = new Map<number, number[]>();
  for (const h of Object.keys(VRM_NAME).map(Number)) {
    const b = sk.humanoid[h];
    out.set(h, [wp[3 * b], wp[3 * b + 1], wp[3 * b + 2]]);
  }
  return out;
}

/** Per segment angles (degrees) between two sets of positions, pooled into a list. */
function segmentAngles(a: Map<number, number[]>, b: Map<number, number[]>): number[] {
  return SEGMENTS.map(([, from, to]) =>
    angleDeg(direction(a.get(from)!, a.get(to)!), direction(b.get(from)!, b.get(to)!)),
  );
}

const figures: string[] = [];

describeWithData(
  'VRM Animation: three-vrm-animation plays our .vrma as our retarget poses the avatar',
  () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-vrma-'));
    afterAll(() => {
      fs.rmSync(tmp, { recursive: true, force: true });
      console.log(`VRM Animation figures (limb directions, degrees):\n${figures.join('\n')}`);
    });

    for (const take of [...TAKES, MOCAP]) {
      describe(path.basename(take), () => {
        const vrmaFile = path.join(tmp, `${path.basename(take, '.bvh')}.vrma`);
        /** The take the .vrma was made from: a shared BVH, or the BVH kind mocap wrote. */
        let takeFile = dataPath(take);
        let written: { bytes: number; humanBones: string[] };
        beforeAll(async () => {
          if (take !== MOCAP) {
            written = await runRetargetVrma({ source: takeFile, vrma: vrmaFile, outDir: tmp });
            return;
          }
          // kind mocap --vrma: the .vrma next to the BVH, in the same set
          const dir = path.join(tmp, 'mocap');
          const r = await runKind([
            'mocap',
            dataPath(take),
            '--image-size',
            '720x1280',
            '--fps',
            '5',
            '--vrma',
            '-o',
            dir,
            '-q',
          ]);
          expect(r.code).toBe(0);
          takeFile = path.join(dir, 'pose_squats.bvh');
          fs.copyFileSync(path.join(dir, 'pose_squats.vrma'), vrmaFile);
          const s = await loadSource(vrmaFile);
          written = { bytes: fs.statSync(vrmaFile).size, humanBones: [...s.clip.skeleton.names] };
        });

        it.each(VRMS)(
          'onto %s: three-vrm-animation vs our retarget, and our reader round trip: mean <= 1 deg',
          async (vrmPath) => {
            const source = await loadSource(takeFile);
            const avatar = await loadAvatar(dataPath(vrmPath));
            const opts = { hipsMode: 'scaled', referencePose: 'T', groundContact: true } as const;
            const direct = retargetClip(source.clip, avatar.skeleton, opts).clip;
            // the avatar's rest taken as its T-pose, as VRM players take it (RetargetOptions.targetReference)
            const atRest = retargetClip(source.clip, avatar.skeleton, {
              ...opts,
              targetReference: 'rest',
            }).clip;
            // no upperChest ever (jesse_dance maps one): the spine goes onto spine + chest
            expect(written.humanBones).not.toContain('upperChest');
            const back = await loadSource(vrmaFile);
            expect(back.format).toBe('vrma');
            const viaVrma = retargetClip(back.clip, avatar.skeleton, opts).clip;
            expect(back.clip.frameCount).toBe(source.clip.frameCount);

            const gltfVrm = await parseGltf(arrayBufferOf(dataPath(vrmPath)), 'vrm');
            const vrm = gltfVrm.userData.vrm!;
            // VRM 0.x faces -Z; three-vrm's own examples turn it to face +Z as VRM 1.0 does (our retarget
            // faces the avatar the way the take faces, whatever the avatar's rest facing)
            VRMUtils.rotateVRM0(vrm);
            const gltfAnim = await parseGltf(arrayBufferOf(vrmaFile), 'vrma');
            const anim = gltfAnim.userData.vrmAnimations![0];
            const clip = createVRMAnimationClip(anim, vrm);
            const mixer = new AnimationMixer(vrm.scene);
            // play once and hold the last key (LoopRepeat would wrap the last frame's time to the first)
            mixer.clipAction(clip).setLoop(LoopOnce, 1).play().clampWhenFinished = true;

            const F = source.clip.frameCount;
            const three: number[] = [];
            const perSegment: number[][] = [];
            const atRestAngles: number[] = [];
            const rest: number[] = [];
            const feet: number[] = [];
            const round: number[] = [];
            // The avatar's own rest against our canonical T-pose of it (src/retarget/referencePose.ts):
            // a VRM player turns the avatar's rest as the T-pose, kind retarget its straightened T-pose
            const ref = canonicalPose(avatar.skeleton, { kind: 'T' });
            const restGeo = poseGeometry(
              avatar.skeleton,
              avatar.skeleton.restRotations,
              avatar.skeleton.restTranslations,
            );
            const restPos = new Map<number, number[]>();
            const canonPos = new Map<number, number[]>();
            const q = ref.bodyToCanonical;
            for (const h of Object.keys(VRM_NAME).map(Number)) {
              const b = 3 * avatar.skeleton.humanoid[h];
              const p = [restGeo.positions[b], restGeo.positions[b + 1], restGeo.positions[b + 2]];
              const r = new Float64Array(3);
              vrotate(r, 0, q, 0, p, 0);
              restPos.set(h, [...r]);
              canonPos.set(h, [
                ref.world.positions[b],
                ref.world.positions[b + 1],
                ref.world.positions[b + 2],
              ]);
            }
            const restDeviation = segmentAngles(restPos, canonPos);
            const tmpV = new Vector3();
            for (let k = 0; k < SAMPLES; k++) {
              const f = Math.round((k * (F - 1)) / (SAMPLES - 1));
              mixer.setTime(f * source.clip.frameTime);
              vrm.update(0);
              vrm.scene.updateMatrixWorld(true);
              const theirs = new Map<number, number[]>();
              for (const [h, name] of Object.entries(VRM_NAME)) {
                const node = vrm.humanoid.getRawBoneNode(name as never)!;
                node.getWorldPosition(tmpV);
                theirs.set(Number(h), [tmpV.x, tmpV.y, tmpV.z]);
              }
              const ours = ourPositions(avatar.skeleton, direct, f);
              three.push(...segmentAngles(theirs, ours));
              perSegment.push(segmentAngles(theirs, ours));
              atRestAngles.push(...segmentAngles(theirs, ourPositions(avatar.skeleton, atRest, f)));
              rest.push(...segmentAngles(theirs, ourPositions(avatar.skeleton, atRest, f)));
              for (const [a, b] of FEET)
                feet.push(
                  angleDeg(direction(theirs.get(a)!, theirs.get(b)!), direction(ours.get(a)!, ours.get(b)!)),
                );
              round.push(...segmentAngles(ourPositions(avatar.skeleton, viaVrma, f), ours));
            }
            const stat = (a: number[]) => ({
              mean: a.reduce((s, x) => s + x, 0) / a.length,
              max: Math.max(...a),
            });
            const t = stat(three);
            const r = stat(round);
            // how far each segment's gap strays from its own mean over the frames (0: a constant offset)
            const segMean = SEGMENTS.map(
              (_, i) => perSegment.reduce((a, row) => a + row[i], 0) / perSegment.length,
            );
            const g = stat(perSegment.flatMap((row) => row.map((a, i) => Math.abs(a - segMean[i]))));
            const d = stat(restDeviation);
            const ft = stat(feet);
            const ar = stat(atRestAngles);
            figures.push(
              `${path.basename(take)} (${F} frames, ${written.bytes} bytes .vrma, ${written.humanBones.length} bones) onto ${path.basename(vrmPath)}: three-vrm-animation vs ours mean ${t.mean.toFixed(3)} max ${t.max.toFixed(3)}; vs ours with the avatar's rest as its T-pose (targetReference 'rest') mean ${ar.mean.toFixed(3)} max ${ar.max.toFixed(3)}; avatar rest vs its T-pose mean ${d.mean.toFixed(3)} max ${d.max.toFixed(3)}; per-segment gap off its own mean over the frames: mean ${g.mean.toFixed(3)} max ${g.max.toFixed(3)}; per segment ${segMean.map((a) => a.toFixed(1)).join(' ')} vs rest ${restDeviation.map((a) => a.toFixed(1)).join(' ')}; feet (foot -> toes, not compared) mean ${ft.mean.toFixed(1)} max ${ft.max.toFixed(1)}; our reader round trip mean ${r.mean.toFixed(3)} max ${r.max.toFixed(3)} (${SAMPLES} frames x ${SEGMENTS.length} segments)`,
            );
            // the gap is a constant offset per segment (the avatars' rest against our T-pose of them), not motion
            expect(g.mean).toBeLessThanOrEqual(0.1);
            expect(g.max).toBeLessThanOrEqual(2);
            if (d.max < 0.1) {
              // the avatar's rest is the T-pose (VRM 1.0 sample): the player and our retarget agree
              expect(t.mean).toBeLessThanOrEqual(1);
            } else {
              // cryptovoxels (VRM 0.x): its rest is up to 3.9 degrees off the T-pose; a VRM player turns the
              // rest, kind retarget its straightened T-pose, so they differ by about that, never more
              expect(t.mean).toBeLessThanOrEqual(d.max);
              expect(t.max).toBeLessThanOrEqual(d.max + 1);
            }
            expect(r.mean).toBeLessThanOrEqual(1);
            // with the avatar's rest as its T-pose, as the player takes it: the same pose within 1 degree
            expect(ar.mean).toBeLessThanOrEqual(1);
          },
        );
      });
    }
  },
);
