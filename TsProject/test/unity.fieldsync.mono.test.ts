/**
 * Public fields written at runtime reach the hub on the next frame (issue 21 review, finding 3), as in the
 * original KindRetargeting, which reads its fields every frame:
 * 1. Runtime/Bridge/KindSentValues.cs (Unity-free), compiled with mcs and run under Mono with
 *    test/fixtures/KindSentValuesHost.cs: a per-frame compare of the original's fields sends exactly what a
 *    script changed, once, and allocates nothing when nothing changed;
 * 2. the shells' sources (Unity-only, compile-checked by tools/check-csharp.mjs): CustomRetargetingScript,
 *    FingerShapedController and LimbWeightController compare every public value field every frame in
 *    Update (no `dirty` flag left to forget), each through KindSentValues.
 * Part 1 is skipped with a printed reason without mcs/mono.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monoAvailable, runMonoProgram } from './helpers/mono';

const HAS = monoAvailable('KindSentValues');
const PKG = path.resolve(__dirname, '../../Packages/com.kind.retargeting');
const SHELLS = path.join(PKG, 'Runtime/Shells');

(HAS ? describe : describe.skip)('KindSentValues under Mono: the per-frame compare', () => {
  it('sends what a script wrote, once, on the next frame; nothing (and no allocation) otherwise', () => {
    const out = runMonoProgram([
      path.join(PKG, 'Runtime/Bridge/KindSentValues.cs'),
      path.join(__dirname, 'fixtures/KindSentValuesHost.cs'),
    ]);
    expect(out).toEqual([
      'frame 0: avatarScale=1 headScale=1 headRotationOffsetY=0 floorHeight=0 leftFootFrontBack=0 leftArmIKForcedOff=false ikMode=0',
      'frame 1: nothing',
      // the float fields widen exactly: 0.05f is 0.05000000074505806
      'frame 2: floorHeight=0.05000000074505806 leftFootFrontBack=0.019999999552965164',
      'frame 3: headRotationOffsetY=15 leftArmIKForcedOff=true',
      'frame 4: nothing',
      'frame 5: avatarScale=NaN ikMode=2',
      'frame 6: nothing',
      'frame 7: floorHeight=0.30000001192092896',
      'frame 8: avatarScale=NaN headScale=1 headRotationOffsetY=15 floorHeight=0.30000001192092896 leftFootFrontBack=0.019999999552965164 leftArmIKForcedOff=true ikMode=2',
      'alloc 0',
    ]);
  });
});

/** C# without comments and string contents. */
const code = (file: string): string =>
  fs
    .readFileSync(path.join(SHELLS, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/\/\/[^\n]*/g, '');

/** The body of the first method matching `signature`. */
function body(src: string, signature: RegExp): string {
  const m = signature.exec(src);
  if (!m) throw new Error(`no ${signature}`);
  const open = src.indexOf('{', m.index + m[0].length - 1);
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    if (src[i] === '{') depth++;
    else if (src[i] === '}' && --depth === 0) return src.slice(open, i + 1);
  }
  throw new Error('unbalanced braces');
}

/** The public float/bool/enum fields a class declares (`public float a, b = 1f;`). */
function valueFields(src: string, enums: string[]): string[] {
  const names: string[] = [];
  const re = new RegExp(`public\\s+(?:float|bool|${enums.join('|')})\\s+([\\w\\s,=.\\-]+);`, 'g');
  for (let m = re.exec(src); m; m = re.exec(src)) {
    for (const part of m[1].split(',')) names.push(part.split('=')[0].trim());
  }
  return names;
}

describe('the shells compare every public value field every frame (source)', () => {
  it('CustomRetargetingScript: Update pushes unconditionally; every value field but the setup and file options is compared', () => {
    const src = code('CustomRetargetingScript.cs');
    expect(src).not.toMatch(/\bdirty\b/);
    const update = body(src, /void Update\(\)\s*/);
    expect(update).toMatch(/\n\s*PushInspectorValues\(\);/);
    expect(update.indexOf('PushInspectorValues();')).toBeLessThan(update.indexOf('driver.Step('));
    const push = body(src, /void PushInspectorValues\(\)\s*/);
    const fields = valueFields(src, ['KindIKMode', 'KindHipsMode', 'FingerCopyMode']);
    // applied when the hub is created (README "Execution order"), and the settings file's options
    const setup = ['ikMode', 'hipsMode', 'loadSettingsOnStart', 'autoSaveOnQuit'];
    expect(fields).toEqual(
      expect.arrayContaining([...setup, 'floorHeight', 'footFrontBackOffset', 'headRotationOffsetY']),
    );
    for (const f of fields.filter((n) => !setup.includes(n)))
      expect([f, push.includes(f)]).toEqual([f, true]);
    expect(src).toMatch(/readonly KindSentValues sent = new KindSentValues\(11\);/);
    expect(body(src, /void Push\(int slot, string property, float value\)\s*/)).toMatch(
      /if \(!sent\.Changed\(slot, value\)\) return;/,
    );
  });

  it('FingerShapedController: every curl, spread and enable compared in Update', () => {
    const src = code('FingerShapedController.cs');
    expect(src).not.toMatch(/\bdirty\b/);
    const update = body(src, /void Update\(\)\s*/) + body(src, /void PushHand\([^)]*\)\s*/);
    const fields = valueFields(src, []);
    expect(fields).toHaveLength(14);
    for (const f of fields) expect([f, update.includes(f)]).toEqual([f, true]);
    expect(update.match(/sent\.Changed\(/g)).toHaveLength(7);
  });

  it('LimbWeightController: enableLeftArmIK, enableRightArmIK, weightSmoothSpeed, ikMode and the thresholds compared in Update', () => {
    const src = code('LimbWeightController.cs');
    expect(src).not.toMatch(/\bdirty\b/);
    const update = body(src, /void Update\(\)\s*/);
    const fields = valueFields(src, ['KindIKMode']);
    expect(fields.sort()).toEqual(
      [
        'enableLeftArmIK',
        'enableRightArmIK',
        'weightSmoothSpeed',
        'ikMode',
        'footHeightMinThreshold',
        'footHeightMaxThreshold',
      ].sort(),
    );
    for (const f of fields) expect([f, update.includes(f)]).toEqual([f, true]);
    expect(update.match(/sent\.Changed\(/g)).toHaveLength(4);
  });
});
