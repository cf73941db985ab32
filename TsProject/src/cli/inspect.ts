/**
 * `kind inspect <file>`: the skeleton as a tree, the humanoid map found, and what is missing.
 */
import * as path from 'node:path';
import { clipDuration, clipFps, HUMAN_BONE_NAMES, type Skeleton } from '../core';
import { formatHumanoidMap, type HumanoidMapResult } from '../io/humanoidMap';
import { loadAvatar, loadSource, requireNotFolder } from '../io/node';
import { overrideArgument } from './jsonArgument';

function tree(s: Skeleton, mapping: HumanoidMapResult): string {
  const human = new Map<number, string>();
  mapping.humanoid.forEach((b, h) => {
    if (b >= 0) human.set(b, HUMAN_BONE_NAMES[h]);
  });
  const depth = new Int32Array(s.boneCount);
  const lines: string[] = [];
  // depth-first order: bones are topological; print children under parents
  const children: number[][] = Array.from({ length: s.boneCount }, () => []);
  const roots: number[] = [];
  for (let i = 0; i < s.boneCount; i++) {
    const p = s.parents[i];
    if (p < 0) roots.push(i);
    else children[p].push(i);
  }
  const visit = (b: number, d: number) => {
    depth[b] = d;
    const h = human.get(b);
    lines.push(`${'  '.repeat(d)}${s.names[b]}${h ? `  [${h}]` : ''}`);
    for (const c of children[b]) visit(c, d + 1);
  };
  for (const r of roots) visit(r, 0);
  return lines.join('\n');
}

/** Inspect a BVH or glTF/VRM file and return the report text. */
export async function runInspect(file: string, options: { map?: string } = {}): Promise<string> {
  requireNotFolder(file);
  const ext = path.extname(file).toLowerCase();
  const override = overrideArgument('--map', options.map);
  const out: string[] = [];
  if (ext === '.bvh') {
    const src = await loadSourceLenient(file, override);
    const c = src.clip;
    out.push(
      `${file}: BVH, ${c.skeleton.boneCount} joints, ${c.frameCount} frames at ${clipFps(c).toFixed(4)} fps (${clipDuration(c).toFixed(3)} s), units: ${src.unit}`,
    );
    out.push('', 'skeleton:', tree(c.skeleton, src.mapping));
    out.push('', formatHumanoidMap(c.skeleton, src.mapping));
    out.push(...reportMissing(src.mapping));
    return out.join('\n');
  }
  if (!['.glb', '.gltf', '.vrm'].includes(ext)) {
    throw new Error(
      `${file}: kind inspect reads .bvh, .glb, .gltf or .vrm files (got '${ext || 'no extension'}')`,
    );
  }
  const avatar = await loadAvatar(file, override);
  out.push(
    `${file}: ${avatar.format === 'gltf' ? 'glTF' : avatar.format === 'vrm0' ? 'VRM 0.x' : 'VRM 1.0'}, ${avatar.skeleton.boneCount} bones, clips: ${avatar.clipNames.length > 0 ? avatar.clipNames.join(', ') : 'none'}`,
  );
  out.push('', 'skeleton:', tree(avatar.skeleton, avatar.mapping));
  out.push('', formatHumanoidMap(avatar.skeleton, avatar.mapping));
  out.push(...reportMissing(avatar.mapping));
  for (const w of avatar.warnings) if (!avatar.mapping.warnings.includes(w)) out.push(`note: ${w}`);
  return out.join('\n');
}

/** The verdict on required bones (formatHumanoidMap already lists optional gaps and warnings). */
function reportMissing(m: HumanoidMapResult): string[] {
  return [
    '',
    m.missingRequired.length > 0
      ? `MISSING REQUIRED: ${m.missingRequired.join(', ')} (name them with --map <json>)`
      : 'all 15 required humanoid bones found',
  ];
}

/** Like loadSource for BVH, but reports a missing required bone instead of failing. */
async function loadSourceLenient(file: string, override: ReturnType<typeof overrideArgument>) {
  try {
    return await loadSource(file, { override });
  } catch (e) {
    // re-read without the requirement so inspect can show what is there
    const { parseBvh } = await import('../io/bvh');
    const { autoMapHumanoid } = await import('../io/humanoidMap');
    const { readInput } = await import('../io/node');
    const parsed = parseBvh(readInput(file), { fileName: path.basename(file) });
    const mapping = autoMapHumanoid(parsed.clip.skeleton, { override, fileName: path.basename(file) });
    if (mapping.missingRequired.length === 0) throw e;
    return { clip: parsed.clip, mapping, unit: parsed.unitGuess };
  }
}
