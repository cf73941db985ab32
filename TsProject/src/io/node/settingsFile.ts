/**
 * Settings files on disk for the Node hosts (issue 21 part 1, "a user's settings are never lost"), the
 * counterpart of the Unity package's KindSettingsFile.cs (KindSettingsImport / KindSettingsLoader /
 * KindSettingsSaver), with the same rules:
 * - a file in this project's format (src/rig/settings.ts; `schemaVersion` optional, as the Unity package
 *   saves exportSettings without it) is validated; its members that are not settings (e.g. the original
 *   KindRetargeting's fields a Unity save kept) are reported and kept;
 * - a file in the original KindRetargeting's shape (a JsonUtility object of CustomRetargetingScript's
 *   fields, none of ours but the four shared names) has its fields imported by name onto `base`
 *   (footFrontBackOffset, footInOutOffset -> both feet; floorHeight, avatarScale, headScale,
 *   initialHipsHeight (0 or less: null); chairSeatHeightOffset -> chairSeatOffset;
 *   headRotationOffsetX/Y/Z -> headRotationOffset), values out of our ranges are not imported; the rest
 *   (the rotation offset cache among them) is reported and kept;
 * - a file that is not one JSON object, or has a wrong type or a value our validator refuses (this
 *   project's format), is unreadable: {@link loadSettingsFile} moves it aside to
 *   `{name}.unreadable-{yyyyMMdd-HHmmss}.json` (UTC; `-2`, `-3`... when taken) and
 *   {@link saveSettingsFile} does the same before it puts a new file in its place;
 * - saving is atomic (a temporary file in the same folder, then rename) and keeps every member of the
 *   file on disk that the settings do not have (values kept; their JSON is re-written compactly, one line
 *   each), the original's mapped numbers following the new values.
 * No Node host wrote a settings file before this module; the CLI and the live tools take settings as
 * options (src/cli/main.ts) and the remote control keeps them in memory.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  defaultSettings,
  type Settings,
  serializeSettings,
  TOP_FIELDS,
  validateSettings,
} from '../../rig/settings';

/** What reading a settings file found (compare the Unity package's KindSettingsReport). */
export interface SettingsFileReport {
  /** `kind`: this project's format; `original`: the original KindRetargeting's; `unreadable`; `missing`. */
  format: 'kind' | 'original' | 'unreadable' | 'missing';
  /** The settings read (null when unreadable or missing). */
  settings: Settings | null;
  /** One line per value taken, e.g. `footFrontBackOffset = 0.03 -> footOffsets.left/right.frontBack`. */
  imported: string[];
  /** One line per member not taken, with the reason; kept in the file on save. */
  notImported: string[];
  /** Why the file cannot be read, else null. */
  problem: string | null;
  /** Where an unreadable file was moved, else null. */
  movedTo: string | null;
}

const KIND_KEYS: readonly string[] = TOP_FIELDS;
const SHARED = new Set(['avatarScale', 'headScale', 'floorHeight', 'initialHipsHeight']);

interface Target {
  ours: string;
  min: number;
  max: number;
  set(s: Settings, x: number): void;
  /** The value to write back under the original's name on save (null: none). */
  get(s: Settings): number | null;
}

const feet = (field: 'frontBack' | 'inOut'): Target => ({
  ours: `footOffsets.left/right.${field}`,
  min: -0.5,
  max: 0.5,
  set: (s, x) => {
    s.footOffsets.left[field] = x;
    s.footOffsets.right[field] = x;
  },
  get: (s) => (s.footOffsets.left[field] + s.footOffsets.right[field]) / 2,
});
const head = (i: 0 | 1 | 2): Target => ({
  ours: `headRotationOffset[${i}]`,
  min: -180,
  max: 180,
  set: (s, x) => {
    s.headRotationOffset[i] = x;
  },
  get: (s) => s.headRotationOffset[i],
});
const same = (
  k: 'avatarScale' | 'headScale' | 'floorHeight' | 'initialHipsHeight',
  min: number,
  max: number,
): Target => ({
  ours: k,
  min,
  max,
  set: (s, x) => {
    s[k] = x;
  },
  get: () => null,
});

/** The original's fields (the design document's "저장 항목") mapped onto ours. */
const ORIGINAL: Record<string, Target> = {
  footFrontBackOffset: feet('frontBack'),
  footInOutOffset: feet('inOut'),
  floorHeight: same('floorHeight', -10, 10),
  avatarScale: same('avatarScale', 0.1, 3),
  headScale: same('headScale', 0.1, 3),
  initialHipsHeight: same('initialHipsHeight', 0, 10),
  chairSeatHeightOffset: {
    ours: 'chairSeatOffset',
    min: -1,
    max: 1,
    set: (s, x) => {
      s.chairSeatOffset = x;
    },
    get: (s) => s.chairSeatOffset,
  },
  headRotationOffsetX: head(0),
  headRotationOffsetY: head(1),
  headRotationOffsetZ: head(2),
};

function describe(v: unknown): string {
  if (typeof v === 'string') return `a string ${JSON.stringify(v)}`;
  if (Array.isArray(v)) return 'an array';
  if (v !== null && typeof v === 'object') return 'an object';
  return String(v);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Reads settings from `text` (see the module docs); never throws for a bad file (format `unreadable`
 * with the problem). `base`: what the original's format is imported over (default: the defaults).
 */
export function readSettingsText(text: string, base: Settings = defaultSettings()): SettingsFileReport {
  const r: SettingsFileReport = {
    format: 'kind',
    settings: null,
    imported: [],
    notImported: [],
    problem: null,
    movedTo: null,
  };
  const bad = (problem: string): SettingsFileReport => ({
    ...r,
    format: 'unreadable',
    imported: [],
    notImported: [],
    problem,
  });
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (e) {
    return bad(`not valid JSON: ${(e as Error).message}`);
  }
  if (!isObject(root)) return bad('not a JSON object');
  const keys = Object.keys(root);
  if (keys.some((k) => KIND_KEYS.includes(k) && !SHARED.has(k))) {
    const ours: Record<string, unknown> = {};
    for (const k of keys) {
      if (KIND_KEYS.includes(k)) {
        ours[k] = root[k];
        r.imported.push(k);
      } else r.notImported.push(`${k}: not a setting of this project`);
    }
    try {
      r.settings = validateSettings(ours, 'settings file');
    } catch (e) {
      return bad((e as Error).message);
    }
    return r;
  }
  r.format = 'original';
  const s = validateSettings(base, 'base settings');
  for (const k of keys) {
    const t = ORIGINAL[k];
    const v = root[k];
    if (!t) {
      r.notImported.push(`${k}: no matching setting in this project`);
      continue;
    }
    if (typeof v !== 'number') return bad(`${k}: need a number, got ${describe(v)}`);
    if (k === 'initialHipsHeight' && v <= 0) {
      s.initialHipsHeight = null;
      r.imported.push(`initialHipsHeight = ${v} -> initialHipsHeight null (not measured)`);
      continue;
    }
    if (v < t.min || v > t.max) {
      r.notImported.push(`${k} = ${v}: out of this project's range ${t.min}..${t.max}`);
      continue;
    }
    t.set(s, v);
    r.imported.push(`${k} = ${v} -> ${t.ours}`);
  }
  r.settings = validateSettings(s, 'imported settings');
  return r;
}

/** `{dir}/{name}.unreadable-{yyyyMMdd-HHmmss}.json` (UTC), `-2`, `-3`... when taken. */
export function unreadableName(file: string, now: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const t = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  const stem = path.join(path.dirname(file), `${path.basename(file, path.extname(file))}.unreadable-${t}`);
  let candidate = `${stem}.json`;
  for (let n = 2; fs.existsSync(candidate); n++) candidate = `${stem}-${n}.json`;
  return candidate;
}

/**
 * Reads a settings file (see the module docs). A missing file gives format `missing`; an unreadable one
 * is moved aside (`movedTo`) so no later save overwrites it.
 */
export function loadSettingsFile(file: string, base?: Settings, now = new Date()): SettingsFileReport {
  if (!fs.existsSync(file))
    return { format: 'missing', settings: null, imported: [], notImported: [], problem: null, movedTo: null };
  const r = readSettingsText(fs.readFileSync(file, 'utf8'), base);
  if (r.format === 'unreadable') {
    r.movedTo = unreadableName(file, now);
    fs.renameSync(file, r.movedTo);
  }
  return r;
}

/** One line for a log: the format, what was imported and what was not (or the problem and the backup). */
export function describeSettingsReport(file: string, r: SettingsFileReport): string {
  if (r.format === 'missing') return `settings file ${file}: none yet`;
  if (r.format === 'unreadable')
    return `settings file ${file} cannot be read (${r.problem})${r.movedTo ? `; moved aside to ${r.movedTo} (nothing is lost)` : ''}`;
  const fmt = r.format === 'original' ? "the original KindRetargeting's format" : "this project's format";
  return `settings file ${file} (${fmt}): imported ${r.imported.length ? r.imported.join('; ') : 'nothing'}. Not imported (kept in the file on save): ${r.notImported.length ? r.notImported.join('; ') : 'none'}`;
}

/**
 * Saves `settings` to `file` atomically (see the module docs): every member of the file on disk that
 * the settings do not have is kept; an unreadable file on disk is moved aside first (once the new text is
 * written in full to the temporary file). @returns where an unreadable file went (null: none) and why.
 * @throws the file-system error (the previous file stays as it was; no temporary file is left).
 */
export function saveSettingsFile(
  file: string,
  settings: Settings,
  now = new Date(),
): { movedAside: string | null; reason: string | null } {
  let text = serializeSettings(settings);
  let reason: string | null = null;
  if (fs.existsSync(file)) {
    const old = fs.readFileSync(file, 'utf8');
    const r = readSettingsText(old);
    if (r.format === 'unreadable') reason = r.problem;
    else {
      const root = JSON.parse(old) as Record<string, unknown>;
      const keep = Object.keys(root).filter((k) => !KIND_KEYS.includes(k));
      if (keep.length > 0) {
        const v = validateSettings(settings);
        const lines = keep.map((k) => {
          const t = ORIGINAL[k];
          const now = t && typeof root[k] === 'number' ? t.get(v) : null;
          return `  ${JSON.stringify(k)}: ${JSON.stringify(now ?? root[k])}`;
        });
        const end = text.lastIndexOf('}');
        text = `${text.slice(0, end).trimEnd()},\n${lines.join(',\n')}\n}\n`;
      }
    }
  }
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  let movedAside: string | null = null;
  try {
    fs.writeFileSync(tmp, text);
    if (reason !== null) {
      movedAside = unreadableName(file, now);
      fs.renameSync(file, movedAside);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  return { movedAside, reason };
}
