/**
 * The bridge's inspector actions ({@link command}, one hub) in the remote-control protocol's message
 * shapes, plus the bridge-only actions, and the registry as the remote-control protocol sees it. The
 * remote call itself (every hub, its scope and saves) is in src/unity/bridge.ts.
 */
import { HUMAN_BONE_NAMES, humanBoneIndex } from '../core';
import { type LiveCharacters, RemoteControl } from '../live/remote';
import {
  HipsOutput,
  LimbCondition as LC,
  PROP_TYPE_NAMES,
  type PropPointName,
  type PropTypeName,
  type Settings,
  validateSettings,
} from '../rig';
import { type Entry, entryOf, hubs } from './bridgeRegistry';
import { isObject, mirrorMessage, mirrorText, neg, show } from './bridgeSetup';
import { mirrorPositions, mirrorRotations } from './layout';

// -----------------------------------------------------------------------------------------------
// Commands and remote control

/** The registry as the remote-control protocol sees it (every hub, or one). */
export function characters(only: Entry | null): LiveCharacters {
  const list = () => (only ? [only] : [...hubs.values()]);
  return {
    names: () => list().map((e) => e.name),
    hub: (name) => list().find((e) => e.name === name)?.hub,
    currentFrame: (name) => {
      const e = list().find((x) => x.name === name);
      return e?.hasFrame ? e.frame : undefined;
    },
  };
}

export function failReply(action: unknown, field: string, message: string): string {
  return JSON.stringify({
    action: typeof action === 'string' ? action : null,
    ok: false,
    error: { field, message: message.replace(/\s*\n\s*/g, ' ') },
  });
}

/** The limbs of `ikState`, in the hub's order. */
const IK_LIMBS = ['leftArm', 'rightArm', 'leftLeg', 'rightLeg'] as const;

const POINTS: Record<string, PropPointName> = { leftHand: 'LeftHand', rightHand: 'RightHand', head: 'Head' };

/**
 * `applySettings` on a hub that has not calibrated yet (no frame so far, e.g. a settings file loaded when
 * the Unity component starts): its rotation offsets cannot be applied before the calibration, so the
 * rest is applied now and the whole settings wait as the pending offsets, applied right after the first
 * frame's calibration (as setup's `settings` are). Bone names are checked now. Calibrated: applied at once.
 */
function applyOrDefer(e: Entry, s: Settings): void {
  const hub = e.hub;
  if (hub.isCalibrated || !isObject(s) || !isObject(s.rotationOffsets)) {
    hub.applySettings(s);
    return;
  }
  const names = Object.keys(s.rotationOffsets);
  if (names.length === 0) {
    hub.applySettings(s);
    e.pendingOffsets = null;
    return;
  }
  // checked in full before anything changes: on error nothing changes
  const valid = validateSettings(s, 'settings');
  const bad = names.filter((nm) => !e.target.names.includes(nm));
  if (bad.length > 0)
    throw new Error(`settings.rotationOffsets: no bone named ${bad.slice(0, 5).join(', ')} on this avatar`);
  hub.applySettings({ ...valid, rotationOffsets: Object.create(null) });
  e.pendingOffsets = valid;
}

/** exportSettings, with the pending rotation offsets (and hips height) while they wait for the first calibration. */
function exportWithPending(e: Entry): Settings {
  const s = e.hub.exportSettings();
  const p = e.pendingOffsets;
  if (p && !e.hub.isCalibrated) {
    s.rotationOffsets = p.rotationOffsets;
    s.initialHipsHeight = p.initialHipsHeight;
  }
  return s;
}

/**
 * An inspector action for one hub (module docs). Replies `{"ok":true,...}` or
 * `{"ok":false,"error":{"field","message"}}`; never throws. Bridge-only actions:
 * - `{"action":"exportSettings"}` -> `{"ok":true,"settings":{...}}` (the project's settings format);
 * - `{"action":"applySettings","settings":{...}}` (validated; nothing changes on error; before the first
 *   frame the rotation offsets wait for the first calibration, reply `"pendingOffsets":true`, and
 *   exportSettings gives them back meanwhile);
 * - `{"action":"attachProp","point":"leftHand"|"rightHand"|"head","name":s,"type":"Object"|"Chair"|"Hand"}`
 *   registers the prop when new and attaches it at the point (its origin on the point);
 * - `{"action":"detachProp","name":s}` detaches it and removes it from the registry;
 * - `{"action":"listProps"}` -> `{"ok":true,"props":[{id,type,slot,attachedTo,position,rotation}]}`;
 * - `{"action":"sourcePose","bone":"LeftHand"}` (a HumanBodyBones name) ->
 *   `{"ok":true,"bone":"LeftHand","raw":{"position":[x,y,z],"rotation":[x,y,z,w]},"filtered":{...}}`:
 *   the source bone's world pose of the last accepted frame as it came in (raw) and after the source
 *   stage's One-Euro filter (what the hub read), in Unity's coordinates (metres, left-handed; the raw
 *   one is the input's, normalised, to float32-to-double rounding); `ok:false` with field `bone` for
 *   an unknown name, a bone the source does not map, or no frame yet. Allocates (a JSON reply): for
 *   the inspector and tools, not per frame.
 * - `{"action":"ikState"}` -> `{"ok":true,"limbs":[{limb:"leftArm"|"rightArm"|"leftLeg"|"rightLeg",
 *   target,reached,bendGoal:[x,y,z]|null (legs: LegIK has none),weight}],"props":[{name,type,attachedTo,position}]}` for the
 *   IKTargetGizmo: the last frame's IK targets, where the end bones got to, the bend goals (metres,
 *   Unity's axes, in the frame of the output: the target root's) and the IK position weights (0..1).
 * - `{"action":"autoFloorHeight","comfortRatio":r}` (0 < r <= 1, default 0.98) -> `{"ok":true,
 *   "floorHeight":h}`: the hub's automatic floor height from the last frame's pose (RetargetHub.
 *   autoFloorHeight), set as its floorHeight (the original's TwoBoneIKSolver.CalculateAutoFloorHeight);
 * - `{"action":"ikWeights","limbs":[[position,rotation,bendGoal] | null, x4]}` (leftArm, rightArm,
 *   leftLeg, rightLeg; each weight a number in [0, 1] or null) -> `{"ok":true,"limbs":[...]}`: the
 *   IK weights the host sets (the original's TwoBoneIKSolver.LimbIK positionWeight, rotationWeight,
 *   bendGoalWeight), replacing the hub's own from the next update; null gives a weight back to the hub
 *   (RetargetHub.ikWeightOverride). Checked in full first: on error nothing changes;
 * - `{"action":"ikGoals","limbs":[{"target":[x,y,z]|null,"bendGoal":[x,y,z]|null,"rotation"?:[x,y,z,w]|null}
 *   | null, x4]}` -> `{"ok":true}`: IK targets and bend goals set by the host (the original's LimbIK.target
 *   and bendGoal Transforms; metres, Unity's axes, in the frame of the output as `ikState` gives them),
 *   replacing the hub's own from the next update; null or absent gives them back
 *   (RetargetHub.ikGoalOverride). `rotation`: the end bone's (hand/foot) world rotation in that frame,
 *   Unity's axes (LimbIK.target's rotation), normalised; the solver turns the end bone to it by the
 *   limb's rotation weight (RetargetHub.ikRotationOverride). Checked in full first: on error nothing
 *   changes;
 * - `{"action":"limbWeightState","footHeight":[near,far]?}` -> `{"ok":true,"leftArmEndWeights":[a,b],
 *   "rightArmEndWeights","leftLegEndWeights","rightLegEndWeights","hipsWeights","hipsWeightOffset",
 *   "footHeight":[near,far]}`: the limb weights' layers of the last frame in the original's table
 *   (arms [hand-to-hand, nearest prop], legs [seated foot distance, foot height], hips [chair,
 *   hips height]; each layer's target weight 0..1), the smoothed hips-correction weight, and the
 *   foot-height ramp (metres; `footHeight` given: set first, near < far, validated).
 * Everything else goes to the remote-control protocol (src/live/remote) with `characterName` set to
 * this hub's name.
 */
export function command(handle: number, json: string): string {
  let msg: unknown;
  try {
    msg = JSON.parse(json);
  } catch (err) {
    return failReply(null, '$', `not JSON: ${(err as Error)?.message ?? String(err)}`);
  }
  if (!isObject(msg)) return failReply(null, '$', `need a JSON object with an "action", got ${show(msg)}`);
  mirrorMessage(msg); // Unity's terms -> ours
  const action = msg.action;
  let e: Entry;
  try {
    e = entryOf(handle, 'command');
  } catch (err) {
    return failReply(action, 'handle', (err as Error).message);
  }
  const hub = e.hub;
  const ok = (fields: Record<string, unknown>) => mirrorText(JSON.stringify({ action, ok: true, ...fields }));
  const only = (fields: string[]) => {
    for (const k of Object.keys(msg as object))
      if (!['action', 'id', ...fields].includes(k)) throw new Fail(k, `unknown field for ${String(action)}`);
  };
  try {
    switch (action) {
      case 'exportSettings':
        only([]);
        return ok({ settings: exportWithPending(e) });
      case 'applySettings': {
        only(['settings']);
        try {
          applyOrDefer(e, msg.settings as Settings);
        } catch (err) {
          throw new Fail('settings', (err as Error).message);
        }
        return ok({ settings: exportWithPending(e), pendingOffsets: e.pendingOffsets !== null });
      }
      case 'attachProp': {
        only(['point', 'name', 'type']);
        const point = POINTS[msg.point as string];
        if (typeof msg.point !== 'string' || !point)
          throw new Fail('point', `${show(msg.point)} is not one of "leftHand", "rightHand", "head"`);
        if (typeof msg.name !== 'string' || msg.name.length === 0)
          throw new Fail('name', `need a non-empty prop name, got ${show(msg.name)}`);
        const type = msg.type === undefined ? 'Object' : msg.type;
        if (!(PROP_TYPE_NAMES as readonly unknown[]).includes(type))
          throw new Fail('type', `${show(type)} is not one of ${PROP_TYPE_NAMES.join(', ')}`);
        const props = hub.props;
        if (props.has(msg.name)) props.setType(msg.name, type as PropTypeName);
        else props.add(msg.name, type as PropTypeName);
        props.attach(msg.name, point);
        return ok({ prop: props.get(msg.name) });
      }
      case 'detachProp': {
        only(['name']);
        const name = msg.name;
        if (typeof name !== 'string' || !hub.props.has(name))
          throw new Fail(
            'name',
            `no prop named ${show(name)} (registered: ${
              hub.props
                .list()
                .map((p) => p.id)
                .join(', ') || 'none'
            })`,
          );
        if (hub.props.get(name).attachedTo !== null) hub.props.detach(name);
        hub.props.remove(name);
        return ok({ name });
      }
      case 'listProps':
        only([]);
        return ok({ props: hub.props.list() });
      case 'sourcePose': {
        only(['bone']);
        const b = typeof msg.bone === 'string' ? humanBoneIndex(msg.bone) : -1;
        if (b < 0) throw new Fail('bone', `${show(msg.bone)} is not a HumanBodyBones name`);
        const st = hub.sourceStage;
        const p = new Float64Array(3);
        const q = new Float64Array(4);
        const pose = (pos: boolean, rot: boolean) => {
          const up = new Float64Array(3);
          const uq = new Float64Array(4);
          if (!pos || !rot) return null;
          mirrorPositions(up, 0, p, 0, 1);
          mirrorRotations(uq, 0, q, 0, 1);
          return { position: Array.from(up), rotation: Array.from(uq) };
        };
        const raw = pose(st.tryGetRawWorldPosition(b, p), st.tryGetRawWorldRotation(b, q));
        const filtered = pose(st.tryGetWorldPosition(b, p), st.tryGetWorldRotation(b, q));
        if (!raw || !filtered)
          throw new Fail(
            'bone',
            st.hasFrame ? `the source has no ${HUMAN_BONE_NAMES[b]}` : 'no frame yet (update first)',
          );
        return ok({ bone: HUMAN_BONE_NAMES[b], raw, filtered });
      }
      case 'ikState': {
        only([]);
        // Unity's terms: positions mirrored (x -> -x), in the frame the output is in (the target root's)
        const m = (v: ArrayLike<number>): number[] => [neg(v[0]), v[1], v[2]];
        const limbs = [];
        const g = [0, 0, 0];
        for (let l = 0; l < 4; l++) {
          const t = hub.ikTargets.subarray(3 * l, 3 * l + 3);
          const r = hub.ikReached.subarray(3 * l, 3 * l + 3);
          const hasGoal = hub.ikBendGoal(l, g);
          limbs.push({
            limb: IK_LIMBS[l],
            target: m(t),
            reached: m(r),
            bendGoal: hasGoal ? m(g) : null,
            weight: hub.ikWeights[l],
          });
        }
        const props = hub.props.list().map((p) => ({
          name: p.id,
          type: p.type,
          attachedTo: p.attachedTo,
          position: m(p.position),
        }));
        return ok({ limbs, props });
      }
      case 'autoFloorHeight': {
        only(['comfortRatio']);
        const r = msg.comfortRatio === undefined ? 0.98 : msg.comfortRatio;
        if (typeof r !== 'number') throw new Fail('comfortRatio', `need a number in (0, 1], got ${show(r)}`);
        try {
          return ok({ floorHeight: hub.autoFloorHeight(r) });
        } catch (err) {
          throw new Fail('comfortRatio', (err as Error).message);
        }
      }
      case 'ikWeights': {
        only(['limbs']);
        const limbs = fourLimbs(msg.limbs);
        const next = Float64Array.from(hub.ikWeightOverride);
        for (let l = 0; l < 4; l++) {
          const e = limbs[l];
          if (e === null) {
            next.fill(Number.NaN, 3 * l, 3 * l + 3);
            continue;
          }
          if (!Array.isArray(e) || e.length !== 3)
            throw new Fail(`limbs[${l}]`, `need [position, rotation, bendGoal] or null, got ${show(e)}`);
          for (let k = 0; k < 3; k++) {
            const v = e[k];
            if (v === null) next[3 * l + k] = Number.NaN;
            else if (typeof v === 'number' && v >= 0 && v <= 1) next[3 * l + k] = v;
            else throw new Fail(`limbs[${l}][${k}]`, `need a weight in [0, 1] or null, got ${show(v)}`);
          }
        }
        hub.ikWeightOverride.set(next);
        const out = [];
        for (let l = 0; l < 4; l++)
          out.push(Array.from(next.subarray(3 * l, 3 * l + 3), (v) => (Number.isNaN(v) ? null : v)));
        return ok({ limbs: out });
      }
      case 'ikGoals': {
        only(['limbs']);
        const limbs = fourLimbs(msg.limbs);
        const next = Float64Array.from(hub.ikGoalOverride);
        const nextRot = Float64Array.from(hub.ikRotationOverride);
        const point = (v: unknown, f: string, at: number) => {
          if (v === null || v === undefined) {
            next.fill(Number.NaN, at, at + 3);
            return;
          }
          if (
            !Array.isArray(v) ||
            v.length !== 3 ||
            v.some((x) => typeof x !== 'number' || !Number.isFinite(x))
          )
            throw new Fail(f, `need [x, y, z] (metres) or null, got ${show(v)}`);
          // Unity's axes -> ours (x mirrored), as ikState's inverse
          next[at] = neg(v[0]);
          next[at + 1] = v[1];
          next[at + 2] = v[2];
        };
        const rotation = (v: unknown, f: string, at: number) => {
          if (v === null || v === undefined) {
            nextRot.fill(Number.NaN, at, at + 4);
            return;
          }
          const bad = () =>
            new Fail(f, `need a rotation [x, y, z, w] (a non-zero quaternion) or null, got ${show(v)}`);
          if (
            !Array.isArray(v) ||
            v.length !== 4 ||
            v.some((x) => typeof x !== 'number' || !Number.isFinite(x))
          )
            throw bad();
          const len = Math.hypot(v[0], v[1], v[2], v[3]);
          if (!(len > 1e-6)) throw bad();
          // Unity's axes -> ours: (x, y, z, w) -> (x, -y, -z, w), normalised
          nextRot[at] = v[0] / len;
          nextRot[at + 1] = neg(v[1] / len);
          nextRot[at + 2] = neg(v[2] / len);
          nextRot[at + 3] = v[3] / len;
        };
        for (let l = 0; l < 4; l++) {
          const e = limbs[l];
          if (e === null) {
            next.fill(Number.NaN, 6 * l, 6 * l + 6);
            nextRot.fill(Number.NaN, 4 * l, 4 * l + 4);
            continue;
          }
          if (!isObject(e))
            throw new Fail(`limbs[${l}]`, `need {"target", "bendGoal", "rotation"} or null, got ${show(e)}`);
          for (const k of Object.keys(e))
            if (k !== 'target' && k !== 'bendGoal' && k !== 'rotation')
              throw new Fail(`limbs[${l}].${k}`, 'unknown field');
          point(e.target, `limbs[${l}].target`, 6 * l);
          point(e.bendGoal, `limbs[${l}].bendGoal`, 6 * l + 3);
          rotation(e.rotation, `limbs[${l}].rotation`, 4 * l);
        }
        hub.ikGoalOverride.set(next);
        hub.ikRotationOverride.set(nextRot);
        return ok({});
      }
      case 'limbWeightState': {
        only(['footHeight']);
        const lw = hub.weights;
        if (msg.footHeight !== undefined) {
          const fh = msg.footHeight;
          if (!Array.isArray(fh) || fh.length !== 2 || fh.some((v) => typeof v !== 'number'))
            throw new Fail('footHeight', `need [near, far] in metres, got ${show(fh)}`);
          try {
            lw.configure({ footHeight: { near: fh[0], far: fh[1] } });
          } catch (err) {
            throw new Fail('footHeight', (err as Error).message);
          }
        }
        const c = lw.conditions;
        return ok({
          leftArmEndWeights: [c[LC.HandToHand], c[LC.LeftProp]],
          rightArmEndWeights: [c[LC.HandToHand], c[LC.RightProp]],
          leftLegEndWeights: [c[LC.LeftSeatedFoot], c[LC.LeftFootHeight]],
          rightLegEndWeights: [c[LC.RightSeatedFoot], c[LC.RightFootHeight]],
          hipsWeights: [c[LC.Chair], c[LC.HipsHeight]],
          hipsWeightOffset: lw.hips[HipsOutput.Correction],
          footHeight: [lw.settings.footHeight.near, lw.settings.footHeight.far],
        });
      }
      default: {
        if (msg.characterName !== undefined && msg.characterName !== e.name)
          throw new Fail('characterName', `this hub is "${e.name}", not ${show(msg.characterName)}`);
        if (!e.control) e.control = new RemoteControl(characters(e));
        const needsName = action !== 'refresh';
        const text = JSON.stringify(needsName ? { ...msg, characterName: e.name } : msg);
        return mirrorText(e.control.handle(text).reply);
      }
    }
  } catch (err) {
    if (err instanceof Fail) return failReply(action, err.field, err.message);
    return failReply(action, '$', (err as Error)?.message ?? String(err));
  }
}

export class Fail {
  constructor(
    readonly field: string,
    readonly message: string,
  ) {}
}

/** The `limbs` of ikWeights / ikGoals: one entry per limb, leftArm, rightArm, leftLeg, rightLeg. */
function fourLimbs(limbs: unknown): unknown[] {
  if (!Array.isArray(limbs) || limbs.length !== 4)
    throw new Fail('limbs', `need 4 entries (leftArm, rightArm, leftLeg, rightLeg), got ${show(limbs)}`);
  return limbs;
}
