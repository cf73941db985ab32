/**
 * Test fixture for the remote control: a registry of real hubs on synthetic humanoids (makeHumanoid),
 * with source frames, and a snapshot of everything the protocol can change on a hub.
 */
import { quat } from 'gl-matrix';
import { HumanBodyBones as H, quat64, type Skeleton } from '../src/core';
import type { LiveCharacters, LiveFrame } from '../src/live/remote';
import { PARAMETERS } from '../src/live/remote';
import { RetargetHub } from '../src/rig';
import { makeHumanoid } from './helpers/humanoid';

/** The rest frame of a skeleton (local rotations and translations). */
export function restFrame(s: Skeleton): LiveFrame {
  return {
    rotations: Float64Array.from(s.restRotations),
    translations: Float64Array.from(s.restTranslations),
  };
}

/** A seeded random pose: every bone turned from its rest by up to `maxAngle` radians, hips moved. */
export function randomFrame(s: Skeleton, seed: number, maxAngle = 0.4): LiveFrame {
  let x = seed >>> 0 || 1;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const f = restFrame(s);
  const q = quat64();
  const r = quat64();
  for (let i = 0; i < s.boneCount; i++) {
    const axis = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
    const l = Math.hypot(axis[0], axis[1], axis[2]) || 1;
    quat.setAxisAngle(q, [axis[0] / l, axis[1] / l, axis[2] / l], (rnd() - 0.5) * 2 * maxAngle);
    (r as Float64Array).set(s.restRotations.subarray(4 * i, 4 * i + 4));
    quat.multiply(q, r, q);
    f.rotations.set(q as Float64Array, 4 * i);
  }
  const h = 3 * s.humanoid[H.Hips];
  f.translations[h] += (rnd() - 0.5) * 0.5;
  f.translations[h + 2] += (rnd() - 0.5) * 0.5;
  return f;
}

export interface Fixture {
  characters: LiveCharacters;
  source: Skeleton;
  hubs: Map<string, RetargetHub>;
  frames: Map<string, LiveFrame | undefined>;
}

/**
 * Characters: `Alice` (A-pose, long legs) and `Bob` (the source's proportions at 0.9 scale), calibrated on the source's rest frame
 * and updated once, with that frame as current; `Carol` never calibrated and without a frame.
 */
export function makeFixture(): Fixture {
  const source = makeHumanoid({ spineBones: 4 });
  const hubs = new Map<string, RetargetHub>();
  const frames = new Map<string, LiveFrame | undefined>();
  const specs: [string, Skeleton, boolean][] = [
    ['Alice', makeHumanoid({ pose: 'A', legs: 1.1 }), true],
    ['Bob', makeHumanoid({ spineBones: 4, scale: 0.9 }), true],
    ['Carol', makeHumanoid({ arms: 1.1 }), false],
  ];
  for (const [name, target, calibrated] of specs) {
    const hub = new RetargetHub(source, target);
    if (calibrated) {
      const f = restFrame(source);
      hub.calibrate(f);
      hub.update(f.rotations, f.translations, 0);
      frames.set(name, f);
    } else frames.set(name, undefined);
    hubs.set(name, hub);
  }
  const characters: LiveCharacters = {
    names: () => [...hubs.keys()],
    hub: (name) => hubs.get(name),
    currentFrame: (name) => frames.get(name),
  };
  return { characters, source, hubs, frames };
}

/** Everything the protocol can change on a hub, as one comparable string. */
export function hubState(hub: RetargetHub): string {
  return JSON.stringify({
    settings: hub.exportSettings(),
    muscles: Array.from(hub.fingers.muscles),
    params: PARAMETERS.map((p) => p.get(hub)),
    calibrated: hub.isCalibrated,
  });
}
