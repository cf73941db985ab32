/**
 * The buffer layout is documented in one place per side: TsProject/src/unity/layout.ts and
 * Packages/com.kind.retargeting/Runtime/Bridge/KindBridgeLayout.cs. This reads the C# file and checks
 * that its constants and offset formulas give the same numbers as the TypeScript ones.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as L from '../src/unity/layout';

const CS = path.resolve(__dirname, '../../Packages/com.kind.retargeting/Runtime/Bridge/KindBridgeLayout.cs');

describe('the C# and TypeScript buffer layouts agree', () => {
  const text = fs.readFileSync(CS, 'utf8');
  const consts = new Map<string, number>();
  for (const m of text.matchAll(/public const int ([^;]+);/g))
    for (const part of m[1].split(',')) {
      const [k, v] = part.split('=').map((x) => x.trim());
      consts.set(k, Number(v));
    }
  const formulas = new Map<string, (n: number) => number>();
  for (const m of text.matchAll(/public static int (\w+)\(int (\w+)\) \{ return ([^;]+); \}/g)) {
    const names = [...consts.keys()];
    // the formulas use only the constants above and the parameter: evaluate them as JavaScript
    const f = new Function(m[2], ...names, `return ${m[3]};`) as (...a: number[]) => number;
    formulas.set(m[1], (n: number) => f(n, ...names.map((k) => consts.get(k)!)));
  }

  it('constants', () => {
    expect(consts.get('Version')).toBe(L.LAYOUT_VERSION);
    expect(consts.get('HeaderFloats')).toBe(L.HEADER_FLOATS);
    expect(consts.get('InVersion')).toBe(L.H_VERSION);
    expect(consts.get('InBoneCount')).toBe(L.H_COUNT);
    expect(consts.get('InFrame')).toBe(L.H_FRAME);
    expect(consts.get('OutStatus')).toBe(L.H_STATUS);
    expect(consts.get('StatusOk')).toBe(L.STATUS_OK);
    expect(consts.get('StatusInputRejected')).toBe(L.STATUS_REJECTED);
    expect(consts.get('HumanBoneCount')).toBe(55);
    expect(consts.get('InTailFlag')).toBe(L.H_TAIL);
    expect(consts.get('TailNone')).toBe(L.TAIL_NONE);
    expect(consts.get('TailConfidence')).toBe(L.TAIL_CONFIDENCE);
  });

  it('offsets and lengths for many bone counts', () => {
    for (const n of [1, 21, 22, 34, 67, 200]) {
      expect(formulas.get('InputFloatCount')!(n)).toBe(L.inputFloats(n));
      expect(formulas.get('InputPositionOffset')!(n)).toBe(L.inputPositionsOffset());
      expect(formulas.get('InputRotationOffset')!(n)).toBe(L.inputRotationsOffset(n));
      expect(formulas.get('InputFloatCountWithConfidence')!(n)).toBe(L.inputFloatsWithConfidence(n));
      expect(formulas.get('InputConfidenceOffset')!(n)).toBe(L.inputConfidenceOffset(n));
      expect(formulas.get('OutputFloatCount')!(n)).toBe(L.outputFloats(n));
      expect(formulas.get('OutputHipsPositionOffset')!(n)).toBe(L.outputHipsPositionOffset(n));
      expect(formulas.get('OutputScaleOffset')!(n)).toBe(L.outputScalesOffset(n));
    }
  });

  it('the mirror is the same on both sides', () => {
    expect(text).toMatch(/MirrorPosition\(Vector3 p\) \{ return new Vector3\(-p\.x, p\.y, p\.z\); \}/);
    expect(text).toMatch(
      /MirrorRotation\(Quaternion q\) \{ return new Quaternion\(q\.x, -q\.y, -q\.z, q\.w\); \}/,
    );
    const p = new Float64Array([1, 2, 3]);
    const q = new Float64Array([0.1, 0.2, 0.3, 0.9]);
    const po = new Float64Array(3);
    const qo = new Float64Array(4);
    L.mirrorPositions(po, 0, p, 0, 1);
    L.mirrorRotations(qo, 0, q, 0, 1);
    expect(Array.from(po)).toEqual([-1, 2, 3]);
    expect(Array.from(qo)).toEqual([0.1, -0.2, -0.3, 0.9]);
  });
});
