/**
 * The Unity package as a drop-in for the original KindRetargeting (issue 14): every public member the
 * original's users call exists with its signature. Two independent checks:
 * 1. a declaration scanner reads the C# sources (comments stripped) and finds each member with its
 *    return type, parameter types, field type and inspector range;
 * 2. the API probe (tools/csharp-check/ApiProbe.cs, a user script using every member through delegates
 *    and `ref`; and SeedProbe.cs, every name the original's design document gives, issue 21) compiles against the package with mcs (tools/check-csharp.mjs, real PuerTS), and fails to
 *    compile when a member is renamed, retyped or turned from a field into a property (planted defects on
 *    a temporary copy of the package).
 * The probe half is skipped with a printed reason without mcs or the PuerTS reference sources.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const PKG = path.join(ROOT, 'Packages/com.kind.retargeting');
const TOOL = path.join(ROOT, 'tools/check-csharp.mjs');
const PUERTS = path.resolve(ROOT, '../shared/reference/puerts-unity-2.2.3');

interface Method {
  ret: string;
  name: string;
  params: string[];
}
interface Field {
  type: string;
  name: string;
  range: string | null;
}

/** C# text without comments and strings' contents (so a commented-out member does not count). */
function stripComments(src: string): string {
  return src
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/\/\/[^\n]*/g, '');
}

/** The public methods and fields declared in a C# file (a small declaration scanner). */
function scanDeclarations(src: string): { methods: Method[]; fields: Field[] } {
  const text = stripComments(src);
  const methods: Method[] = [];
  const fields: Field[] = [];
  const methodRe =
    /public\s+(?:static\s+|override\s+|virtual\s+)*([\w.<>[\],]+)\s+(\w+)\s*\(([^)]*)\)\s*[{=]/g;
  for (let m = methodRe.exec(text); m; m = methodRe.exec(text)) {
    const params = m[3].trim() === '' ? [] : m[3].split(',').map((p) => p.trim().split(/\s+/)[0]);
    methods.push({ ret: m[1], name: m[2], params });
  }
  // fields: optional attributes, `public <type> a, b = 1f, c;` (not properties, not methods)
  const fieldRe =
    /((?:\[[^\]\n]*\][ \t]*)*)public[ \t]+(?!static|const|readonly|sealed|class|enum|abstract|override|event)([\w.<>[\]]+)[ \t]+([\w \t,=.\-+()"[\]]*);/g;
  for (let m = fieldRe.exec(text); m; m = fieldRe.exec(text)) {
    if (/\(/.test(m[3].split('=')[0])) continue;
    const range = /\[Range\(([^)]*)\)\]/.exec(m[1]);
    for (const part of m[3].split(',')) {
      const name = part.split('=')[0].trim();
      if (/^\w+$/.test(name))
        fields.push({ type: m[2], name, range: range ? range[1].replace(/\s+/g, '') : null });
    }
  }
  return { methods, fields };
}

function file(rel: string): string {
  return fs.readFileSync(path.join(PKG, rel), 'utf8');
}

type Expect = [file: string, kind: 'method' | 'field', signature: string, range?: string];

/** The issue's list: `ret Name(ParamType, ...)` for methods, `type name` for fields. */
const API: Expect[] = [
  ...[
    'void I_PoseCalibration()',
    'void ResetPoseAndCache()',
    'void CalibrateHeadToForward()',
    'void SaveSettings()',
    'void LoadSettings()',
    'bool HasCachedSettings()',
    'float GetAvatarScale()',
    'void SetAvatarScale(float)',
    'void ResetScale()',
    'float GetHeadScale()',
    'void SetHeadScale(float)',
    'void ResetHeadScale()',
    'void SetFingerShapedEnabled(bool)',
  ].map((s): Expect => ['Runtime/Shells/CustomRetargetingScript.cs', 'method', s]),
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'float footFrontBackOffset', '-0.5f,0.5f'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'float footInOutOffset', '-0.5f,0.5f'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'float floorHeight', '-10f,10f'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'float headRotationOffsetX', '-180f,180f'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'float headRotationOffsetY', '-180f,180f'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'float headRotationOffsetZ', '-180f,180f'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'float avatarScale', '0.1f,3f'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'float headScale', '0.1f,3f'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'FingerCopyMode fingerCopyMode'],
  ...[
    'void MoveToLeftHand(GameObject)',
    'void MoveToRightHand(GameObject)',
    'void MoveToHead(GameObject)',
    'void DetachProp(GameObject)',
    'Transform GetLeftHandOffset()',
    'Transform GetRightHandOffset()',
    'Transform GetHeadOffset()',
    'GameObject[] GetLeftHandProps()',
    'GameObject[] GetRightHandProps()',
    'GameObject[] GetHeadProps()',
    'void MoveToLeftHand()',
    'void MoveToRightHand()',
    'void MoveToHead()',
    'void DetachProp()',
  ].map((s): Expect => ['Runtime/Shells/PropLocationController.cs', 'method', s]),
  ['Runtime/Shells/SimplePoseTransfer.cs', 'field', 'TargetEntry[] targets'],
  ['Runtime/Shells/SimplePoseTransfer.cs', 'field', 'Animator sourceBone'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'KindPoseSource optitrackSource'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'TwoBoneIKSolver ikSolver'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'LimbWeightController limbWeight'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'FingerShapedController fingerShaped'],
  ['Runtime/Shells/CustomRetargetingScript.cs', 'field', 'PropLocationController propLocation'],
  ...['leftArm', 'rightArm', 'leftLeg', 'rightLeg'].map(
    (n): Expect => ['Runtime/Shells/TwoBoneIKSolver.cs', 'field', `LimbIK ${n}`],
  ),
  ['Runtime/Shells/TwoBoneIKSolver.cs', 'field', 'Transform target'],
  ['Runtime/Shells/TwoBoneIKSolver.cs', 'field', 'Transform bendGoal'],
  ['Runtime/Shells/TwoBoneIKSolver.cs', 'field', 'float positionWeight', '0f,1f'],
  ['Runtime/Shells/TwoBoneIKSolver.cs', 'field', 'float rotationWeight', '0f,1f'],
  ['Runtime/Shells/TwoBoneIKSolver.cs', 'field', 'float bendGoalWeight', '0f,1f'],
  ['Runtime/Shells/TwoBoneIKSolver.cs', 'method', 'float CalculateAutoFloorHeight(float)'],
  ['Runtime/Shells/LimbWeightController.cs', 'field', 'float footHeightMinThreshold', '0f,2f'],
  ['Runtime/Shells/LimbWeightController.cs', 'field', 'float footHeightMaxThreshold', '0f,2f'],
  ['Runtime/Shells/SimplePoseTransfer.cs', 'field', 'Animator animator'],
  ['Runtime/Shells/SimplePoseTransfer.cs', 'field', 'Vector3 hipOffset'],
  ['Runtime/Shells/SimplePoseTransfer.cs', 'field', 'bool syncRootScale'],
  ['Runtime/Shells/SimplePoseTransfer.cs', 'field', 'bool transferHeadScale'],
  ['Runtime/Shells/SimplePoseTransfer.cs', 'method', 'void Init()'],
  ['Runtime/Shells/LimbWeightController.cs', 'field', 'bool enableLeftArmIK'],
  ['Runtime/Shells/LimbWeightController.cs', 'field', 'bool enableRightArmIK'],
  ['Runtime/Shells/LimbWeightController.cs', 'field', 'float weightSmoothSpeed', '0.01f,1000f'],
  ['Runtime/Shells/FingerShapedController.cs', 'field', 'bool leftHandEnabled'],
  ['Runtime/Shells/FingerShapedController.cs', 'field', 'bool rightHandEnabled'],
  ...['left', 'right'].flatMap((h) =>
    ['ThumbCurl', 'IndexCurl', 'MiddleCurl', 'RingCurl', 'PinkyCurl', 'SpreadFingers'].map(
      (n): Expect => ['Runtime/Shells/FingerShapedController.cs', 'field', `float ${h}${n}`, '-1f,1f'],
    ),
  ),
  ['Runtime/Shells/PropTypeController.cs', 'field', 'PropType propType'],
];

function format(m: Method): string {
  return `${m.ret} ${m.name}(${m.params.join(', ')})`;
}

describe('drop-in API: the declaration scanner finds every listed member with its signature', () => {
  const scans = new Map<string, ReturnType<typeof scanDeclarations>>();
  const scan = (rel: string) => {
    if (!scans.has(rel)) scans.set(rel, scanDeclarations(file(rel)));
    return scans.get(rel)!;
  };

  // every row has its 4 cells (a 3-cell row would hand jest's `done` to the 4th parameter)
  const rows = API.map(([rel, kind, sig, range]) => [rel, kind, sig, range ?? null] as const);
  it.each(rows)('%s: %s %s', (rel, kind, sig, range) => {
    const s = scan(rel);
    if (kind === 'method') {
      expect(s.methods.map(format)).toContain(sig);
    } else {
      const name = sig.split(' ')[1];
      const f = s.fields.find((x) => x.name === name);
      expect(f && `${f.type} ${f.name}`).toBe(sig);
      if (range) expect(f!.range).toBe(range);
    }
  });

  it('the scanner itself: finds what is declared, ignores comments and properties', () => {
    const s = scanDeclarations(`
      // public void Commented() { }
      /* public float hidden; */
      [Range(-1f, 1f)] public float a, b = 2f;
      public Vector3 Prop { get { return v; } }
      public List<GameObject> Get(string x, int y) { return null; }
    `);
    expect(s.methods.map(format)).toEqual(['List<GameObject> Get(string, int)']);
    expect(s.fields).toEqual([
      { type: 'float', name: 'a', range: '-1f,1f' },
      { type: 'float', name: 'b', range: '-1f,1f' },
    ]);
  });

  it('SimplePoseTransfer runs at execution order 16001; the editor overloads are Editor-only', () => {
    expect(stripComments(file('Runtime/Shells/SimplePoseTransfer.cs'))).toMatch(
      /\[DefaultExecutionOrder\(16001\)\]\s*\[AddComponentMenu\([^)]*\)\]\s*public class SimplePoseTransfer/,
    );
    const props = stripComments(file('Runtime/Shells/PropLocationController.cs'));
    const editor = /#if UNITY_EDITOR([\s\S]*?)#endif/.exec(props);
    expect(editor?.[1]).toMatch(
      /public void MoveToLeftHand\(\) \{ MoveToLeftHand\(UnityEditor\.Selection\.activeGameObject\); \}/,
    );
  });

  it('every runtime component and source lives in the original namespace KindRetargeting (Editor tools in KindRetargeting.Editor)', () => {
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
        const p = path.join(dir, d.name);
        return d.isDirectory() ? walk(p) : d.name.endsWith('.cs') ? [p] : [];
      });
    const files = [...walk(path.join(PKG, 'Runtime')), ...walk(path.join(PKG, 'Samples~'))];
    expect(files.length).toBeGreaterThan(15);
    for (const f of files) {
      const namespaces = [
        ...stripComments(fs.readFileSync(f, 'utf8')).matchAll(/^namespace\s+([\w.]+)/gm),
      ].map((m) => m[1]);
      expect({
        file: path.relative(PKG, f),
        ok:
          namespaces.length > 0 &&
          namespaces.every((n) => n === 'KindRetargeting' || n === 'KindRetargeting.EnumsList'),
      }).toEqual({ file: path.relative(PKG, f), ok: true });
    }
    for (const f of walk(path.join(PKG, 'Editor'))) {
      const namespaces = [
        ...stripComments(fs.readFileSync(f, 'utf8')).matchAll(/^namespace\s+([\w.]+)/gm),
      ].map((m) => m[1]);
      expect({ file: path.relative(PKG, f), namespaces }).toEqual({
        file: path.relative(PKG, f),
        namespaces: ['KindRetargeting.Editor'],
      });
    }
  });

  it('the enums, in namespace KindRetargeting.EnumsList, in the original order', () => {
    const src = stripComments(file('Runtime/Shells/EnumsList.cs'));
    expect(src).toMatch(/namespace KindRetargeting\.EnumsList\s*\{/);
    expect(src).toMatch(/public enum FingerCopyMode \{ None, MuscleData, Rotation \}/);
    expect(src).toMatch(/public enum PropType \{ None, Object, Chair, Hand \}/);
  });

  it('no component class of the package or its samples is sealed (code for the original may derive from them)', () => {
    const files = [
      'Runtime/Shells',
      'Runtime',
      'Runtime/Sources',
      'Runtime/Humanoid',
      'Samples~/OptiTrack',
      'Samples~/Demo',
    ].flatMap((d) =>
      fs
        .readdirSync(path.join(PKG, d))
        .filter((n) => n.endsWith('.cs'))
        .map((n) => path.join(PKG, d, n)),
    );
    expect(files.length).toBeGreaterThan(10);
    const text = files.map((f) => stripComments(fs.readFileSync(f, 'utf8'))).join('\n');
    // the component classes: MonoBehaviour's subclasses, and theirs (KindPoseSource -> KindOptitrackSource)
    const bases = new Set(['MonoBehaviour']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const m of text.matchAll(/class (\w+)\s*:\s*([\w.]+)/g))
        if (bases.has(m[2].replace(/^.*\./, '')) && !bases.has(m[1])) {
          bases.add(m[1]);
          grew = true;
        }
    }
    expect([...bases]).toEqual(
      expect.arrayContaining(['KindPoseSource', 'KindOptitrackSource', 'CustomRetargetingScript']),
    );
    const sealed = [...text.matchAll(/sealed\s+(?:partial\s+)?class (\w+)\s*:\s*([\w.]+)/g)]
      .filter((m) => bases.has(m[2].replace(/^.*\./, '')))
      .map((m) => m[1]);
    expect(sealed).toEqual([]);
  });

  it('PropLocationController: the original offset defaults, left (-0.039, -0.022, 0), right (0.039, -0.022, 0), head (0, 0.16, 0)', () => {
    const raw = file('Runtime/Shells/PropLocationController.cs');
    expect(raw).toContain('public Vector3 leftHandPositionOffset = new Vector3(-0.039f, -0.022f, 0f);');
    expect(raw).toContain('public Vector3 rightHandPositionOffset = new Vector3(0.039f, -0.022f, 0f);');
    expect(raw).toContain('public Vector3 headPositionOffset = new Vector3(0f, 0.16f, 0f);');
  });

  it('PropLocationController builds the Target/Offset hierarchy with the original names, hands at Euler(90, 0, 0)', () => {
    const src = stripComments(file('Runtime/Shells/PropLocationController.cs'));
    expect(src).toContain('TargetNames = { "", "", "" }'.replace(/""/g, '""')); // strings blanked by stripComments
    const raw = file('Runtime/Shells/PropLocationController.cs');
    expect(raw).toContain('TargetNames = { "Left_Hand_Target", "Right_Hand_Target", "Head_Target" }');
    expect(raw).toContain('OffsetNames = { "Left_Hand_Offset", "Right_Hand_Offset", "Head_Offset" }');
    expect(raw).toContain('public Vector3 leftHandRotation = new Vector3(90f, 0f, 0f);');
    expect(raw).toContain('public Vector3 rightHandRotation = new Vector3(90f, 0f, 0f);');
  });
});

function hasMcs(): boolean {
  try {
    execFileSync('mcs', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const PROBE_OK = hasMcs() && fs.existsSync(path.join(PUERTS, 'Runtime/com.tencent.puerts.core.asmdef'));
if (!PROBE_OK) console.warn('[skip] drop-in API probe: mcs or the PuerTS reference sources are missing');

function checkPlanted(plant: ((dir: string) => void) | null): { status: number | null; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-dropin-'));
  try {
    fs.cpSync(PKG, dir, { recursive: true, filter: (src) => !src.endsWith('.mjs') });
    if (plant) plant(dir);
    const r = spawnSync(process.execPath, [TOOL, '--package', dir, '--only', 'editor'], { encoding: 'utf8' });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function edit(dir: string, rel: string, from: string, to: string): void {
  const p = path.join(dir, rel);
  const s = fs.readFileSync(p, 'utf8');
  if (!s.includes(from)) throw new Error(`${rel}: '${from}' not found`);
  fs.writeFileSync(p, s.replace(from, to));
}

(PROBE_OK ? describe : describe.skip)('drop-in API: the probe compiles against the package (mcs)', () => {
  it('compiles as a user script in the Editor flavour', () => {
    const r = checkPlanted(null);
    if (r.status !== 0) console.log(r.out);
    expect(r.status).toBe(0);
    expect(r.out).toContain('ok   [Editor] API probe ApiProbe.cs as Assembly-CSharp');
    // the seed probe (tools/csharp-check/SeedProbe.cs, issue 21: every name the original's design
    // document gives, with its type) compiles too
    expect(r.out).toContain('ok   [Editor] API probe SeedProbe.cs as Assembly-CSharp');
  });

  it.each([
    [
      'a component sealed again',
      'Runtime/Shells/LimbWeightController.cs',
      'public class LimbWeightController : MonoBehaviour',
      'public sealed class LimbWeightController : MonoBehaviour',
      /cannot derive from sealed type `KindRetargeting\.LimbWeightController'/,
    ],
    [
      'a property renamed',
      'Runtime/Shells/CustomRetargetingScript.cs',
      'public float ChairSeatHeightOffset',
      'public float SeatHeightOffset',
      /ChairSeatHeightOffset/,
    ],
    [
      'a TwoBoneIKSolver method renamed',
      'Runtime/Shells/TwoBoneIKSolver.cs',
      'public float CalculateAutoFloorHeight(',
      'public float AutoFloorHeight(',
      /CalculateAutoFloorHeight/,
    ],
  ])('the seed probe fails on %s', (_what, rel, from, to, named) => {
    const r = checkPlanted((dir) => edit(dir, rel, from, to));
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/FAIL \[Editor\] API probe SeedProbe\.cs as Assembly-CSharp/);
    expect(r.out).toMatch(named);
  });

  it.each([
    [
      'a renamed method',
      'Runtime/Shells/CustomRetargetingScript.cs',
      'public float GetHeadScale()',
      'public float HeadScaleNow()',
      /GetHeadScale/,
    ],
    [
      'a parameter retyped',
      'Runtime/Shells/CustomRetargetingScript.cs',
      'public void SetAvatarScale(float scale) { avatarScale = Mathf.Clamp(scale,',
      'public void SetAvatarScale(double scale) { avatarScale = Mathf.Clamp((float)scale,',
      /SetAvatarScale/,
    ],
    [
      'a field turned into a property',
      'Runtime/Shells/PropTypeController.cs',
      'public PropType propType = PropType.Object;',
      'public PropType propType { get; set; }',
      /error CS0206: A property, indexer or dynamic member access may not be passed as `ref'/,
    ],
    [
      'a return type changed',
      'Runtime/Shells/PropLocationController.cs',
      'public Transform GetHeadOffset()',
      'public Component GetHeadOffset()',
      /GetHeadOffset/,
    ],
  ])('fails on %s', (_what, rel, from, to, named) => {
    const r = checkPlanted((dir) => edit(dir, rel, from, to));
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/FAIL \[Editor\] API probe ApiProbe\.cs as Assembly-CSharp/);
    expect(r.out).toMatch(named);
  });
});
