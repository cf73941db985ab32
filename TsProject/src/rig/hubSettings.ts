/**
 * The hub's settings: the setters (validated, applied at once), and saving and applying whole settings
 * (with the calibrated rotation offsets). Engine-free.
 *
 * The second of the hub's layers: HubRig (hubRig.ts) <- {@link HubSettings} (this file) <-
 * HubCalibration (hubCalibration.ts) <- RetargetHub (hub.ts, the public class).
 */
import { checkChoice, checkRange, HubError } from './hubOptions';
import { HubRig } from './hubRig';
import { SETTINGS_LIMITS, type Settings, type SourceFilterGroup, validateSettings } from './settings';

/** The hub's settings layer; the public class is {@link RetargetHub} (src/rig/hub.ts). */
export abstract class HubSettings extends HubRig {
  /** The current settings (a copy). */
  get settings(): Settings {
    return structuredCloneSettings(this.settingsValue);
  }

  /** Head rotation offset, degrees per axis in -180..180 (Unity's Quaternion.Euler order). */
  setHeadRotationOffset(x: number, y: number, z: number): void {
    for (const [k, v] of [x, y, z].entries())
      checkRange(`headRotationOffset.${'xyz'[k]}`, v, -180, 180, ' degrees');
    this.settingsValue.headRotationOffset = [x, y, z];
    this.updateHeadOffset();
  }

  /** Avatar scale 0.1..3, applied at once without recalibration. */
  setAvatarScale(scale: number): void {
    checkRange('avatarScale', scale, 0.1, 3);
    this.settingsValue.avatarScale = scale;
    this.retargeter.setAvatarScale(scale);
    this.props.scale = scale;
  }

  /** Head scale 0.1..3. */
  setHeadScale(scale: number): void {
    checkRange('headScale', scale, 0.1, 3);
    this.settingsValue.headScale = scale;
    this.retargeter.setHeadScale(scale);
  }

  /** Floor height, metres (added to the hips and the foot IK targets). */
  setFloorHeight(h: number): void {
    checkRange('floorHeight', h, -10, 10, ' m');
    this.settingsValue.floorHeight = h;
  }

  /** Chair seat offset, metres (-1..1): added to a chair prop's seat height when seated. */
  setChairSeatOffset(m: number): void {
    checkRange('chairSeatOffset', m, -1, 1, ' m');
    this.settingsValue.chairSeatOffset = m;
    this.weights.configure({ chairSeatOffset: m });
  }

  /**
   * The source stage's One-Euro parameters for one bone group (`body`, `hands` = hands and fingers,
   * `feet` = feet and toes); ranges as the settings file's (`SETTINGS_LIMITS.filter*`); `minCutoff` 0
   * turns the group's filter off (raw pass-through). Applies from the next {@link RetargetHub.updateLive}.
   * @throws HubError naming the group and field.
   */
  setSourceFilter(group: SourceFilterGroup, minCutoff: number, beta: number, dCutoff: number): void {
    checkChoice('sourceFilter group', group, ['body', 'hands', 'feet'] as const);
    const L = SETTINGS_LIMITS;
    checkRange(
      `sourceFilter.${group}.minCutoff`,
      minCutoff,
      L.filterMinCutoff[0],
      L.filterMinCutoff[1],
      ' Hz',
    );
    checkRange(`sourceFilter.${group}.beta`, beta, L.filterBeta[0], L.filterBeta[1]);
    checkRange(`sourceFilter.${group}.dCutoff`, dCutoff, L.filterDCutoff[0], L.filterDCutoff[1], ' Hz');
    this.settingsValue.sourceFilter[group] = { minCutoff, beta, dCutoff };
    this.sourceStage.configure(this.settingsValue.sourceFilter);
  }

  /** Foot offsets, metres: front/back (toward the toes positive) and in/out (outward positive). */
  setFootOffset(side: 'left' | 'right', frontBack: number, inOut: number): void {
    checkChoice('footOffsets side', side, ['left', 'right'] as const);
    checkRange(`footOffsets.${side}.frontBack`, frontBack, -0.5, 0.5, ' m');
    checkRange(`footOffsets.${side}.inOut`, inOut, -0.5, 0.5, ' m');
    this.settingsValue.footOffsets[side] = { frontBack, inOut };
  }

  /** Apply saved settings (validated first; on error nothing changes). Rotation offsets need a calibration first. */
  applySettings(s: Settings): void {
    try {
      validateSettings(s, 'settings');
    } catch (e) {
      throw new HubError((e as Error).message);
    }
    const names = Object.keys(s.rotationOffsets);
    const bones = names.map((nm) => this.target.names.indexOf(nm));
    const missing = names.filter((_, i) => bones[i] < 0);
    if (missing.length > 0)
      throw new HubError(
        `settings.rotationOffsets: no bone named ${missing.slice(0, 5).join(', ')} on this avatar`,
      );
    if (names.length > 0 && !this.calibrated)
      throw new HubError('settings.rotationOffsets: calibrate before applying saved offsets');
    this.settingsValue = structuredCloneSettings(s);
    this.retargeter.setAvatarScale(s.avatarScale);
    this.props.scale = s.avatarScale;
    this.retargeter.setHeadScale(s.headScale);
    this.weights.configure({ chairSeatOffset: s.chairSeatOffset });
    this.sourceStage.configure(this.settingsValue.sourceFilter);
    bones.forEach((b, i) => {
      this.retargeter.setOffset(b, s.rotationOffsets[names[i]]);
    });
    this.updateHeadOffset();
  }

  /** The settings to save, with the calibrated rotation offsets of every driven bone. */
  exportSettings(): Settings {
    const s = structuredCloneSettings(this.settingsValue);
    s.rotationOffsets = Object.create(null);
    if (this.calibrated) {
      const q = new Float64Array(4);
      this.retargeter.drivers.forEach((src, b) => {
        if (src < 0) return;
        this.retargeter.getOffset(b, q);
        s.rotationOffsets[this.target.names[b]] = [q[0], q[1], q[2], q[3]];
      });
      s.initialHipsHeight = this.retargeter.info?.targetHipsHeight ?? null;
    }
    s.chairSeatOffset = this.weights.settings.chairSeatOffset;
    return s;
  }
}

function structuredCloneSettings(s: Settings): Settings {
  return {
    ...s,
    headRotationOffset: [s.headRotationOffset[0], s.headRotationOffset[1], s.headRotationOffset[2]],
    footOffsets: { left: { ...s.footOffsets.left }, right: { ...s.footOffsets.right } },
    rotationOffsets: Object.assign(Object.create(null), s.rotationOffsets),
    sourceFilter: {
      body: { ...s.sourceFilter.body },
      hands: { ...s.sourceFilter.hands },
      feet: { ...s.sourceFilter.feet },
    },
  };
}
