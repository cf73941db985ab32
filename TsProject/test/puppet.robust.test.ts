/**
 * `kind puppet render` on the inputs of the fresh-user review of issue 22 (in process, real files):
 * - a big drawing (char1 drawn 4x, 2032x2408 = 4.9 MP) is scaled down 1/2 before meshing, with one line
 *   saying so: its frames are byte for byte those of char1 drawn 2x (1016x1204, under the limit, not scaled);
 *   a PNG whose header claims 12000x12000 is refused naming the file and size, before decoding;
 * - `--image-size` on normalised keypoints without world landmarks (nothing can check it) says so;
 * - degenerate characters: an all-white mask, a one-joint char_cfg, all joints on one point, a zero-length
 *   bone, limb-like names no rule maps, a second root, a retarget config's empty depth drivers: a one-line
 *   error (exit 1, nothing written) or a `warning:` line naming the file and joint or field;
 * - wording: a text file named mask.png, Python's bare NaN, a one-frame recording (no rate, "1 frame");
 * - `--layers on|off`: puppet.json stats.layers and the summary line; off draws the single mesh in its static
 *   order exactly as a PuppetSession without layers rasterised here.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PNG } from 'pngjs';
import { decodePng, loadCharacter, loadLandmarkRecording } from '../src/io/node';
import { type PuppetFile, PuppetSession, type RgbaImage, rasterize } from '../src/puppet';
import { downscaleImage, PUPPET_WORK_PIXELS, workScale } from '../src/puppet/downscale';
import { dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-puppet-robust-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const DEFAULT_REC = path.resolve(__dirname, '../assets/default/puppet/recording.json');
const SQUAT = () => dataPath('pose-landmarks', 'pose_squats.full.json');
const CHAR1 = () => dataPath('animated-drawings', 'characters', 'char1');

/** The embedded recording's frames 20..29 (a person in each): a short run. */
function shortRecording(): string {
  const file = path.join(tmp, 'short.json');
  if (!fs.existsSync(file)) {
    const r = JSON.parse(fs.readFileSync(DEFAULT_REC, 'utf8'));
    r.frames = r.frames.slice(20, 30);
    fs.writeFileSync(file, JSON.stringify(r));
  }
  return file;
}

const readPuppet = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, 'puppet.json'), 'utf8')) as PuppetFile;

/** char1 copied into `name` with its char_cfg.yaml changed by `cfg` and optionally another mask.png. */
function char1Variant(name: string, cfg: (text: string) => string, mask?: Uint8Array | string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(CHAR1(), 'texture.png'), path.join(dir, 'texture.png'));
  if (mask === undefined) fs.copyFileSync(path.join(CHAR1(), 'mask.png'), path.join(dir, 'mask.png'));
  else fs.writeFileSync(path.join(dir, 'mask.png'), mask);
  fs.writeFileSync(
    path.join(dir, 'char_cfg.yaml'),
    cfg(fs.readFileSync(path.join(CHAR1(), 'char_cfg.yaml'), 'utf8')),
  );
  return dir;
}

/** A PNG of one grey level, opaque. */
function solidPng(w: number, h: number, v: number): Uint8Array {
  const p = new PNG({ width: w, height: h });
  p.data.fill(v);
  for (let i = 3; i < p.data.length; i += 4) p.data[i] = 255;
  return PNG.sync.write(p);
}

/** char1 enlarged k times (each pixel a k x k block; the joints' loc times k) into `dir`. */
function enlargedChar1(k: number, dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of ['texture.png', 'mask.png']) {
    const src = PNG.sync.read(fs.readFileSync(path.join(CHAR1(), f)));
    const W = src.width * k;
    const H = src.height * k;
    const dst = new PNG({ width: W, height: H });
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const s = 4 * (Math.floor(y / k) * src.width + Math.floor(x / k));
        src.data.copy(dst.data, 4 * (y * W + x), s, s + 4);
      }
    fs.writeFileSync(path.join(dir, f), PNG.sync.write(dst, { filterType: 1 }));
  }
  const cfg = fs
    .readFileSync(path.join(CHAR1(), 'char_cfg.yaml'), 'utf8')
    .replace(/^(width|height): (\d+)/gm, (_, a, b) => `${a}: ${Number(b) * k}`)
    .replace(/^ {2}- (\d+)$/gm, (_, a) => `  - ${Number(a) * k}`);
  fs.writeFileSync(path.join(dir, 'char_cfg.yaml'), cfg);
  return dir;
}

describe('downscale (known answers)', () => {
  it('workScale is the least whole factor that brings the drawing to the limit', () => {
    expect(PUPPET_WORK_PIXELS).toBe(2_000_000);
    expect(workScale(508, 602)).toBe(1);
    expect(workScale(2032, 2408)).toBe(2); // 4.9 MP -> 1016x1204
    expect(workScale(8128, 9632)).toBe(7); // the review's 78 MP photo -> 1162x1376
    expect(Math.ceil(8128 / 7) * Math.ceil(9632 / 7)).toBeLessThanOrEqual(PUPPET_WORK_PIXELS);
    expect(Math.ceil(8128 / 6) * Math.ceil(9632 / 6)).toBeGreaterThan(PUPPET_WORK_PIXELS);
  });

  it('averages k x k blocks, the colour weighted by alpha, the edge blocks cut', () => {
    // 3x1: red opaque, blue transparent | green opaque
    const img: RgbaImage = {
      width: 3,
      height: 1,
      data: Uint8Array.from([255, 0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 255]),
    };
    expect(Array.from(downscaleImage(img, 2).data)).toEqual([255, 0, 0, 128, 0, 255, 0, 255]);
    // a mask image: plain means
    expect(Array.from(downscaleImage(img, 2, false).data)).toEqual([128, 0, 128, 128, 0, 255, 0, 255]);
  });
});

describeWithData('kind puppet render: robustness (real files)', () => {
  it('scales a 4.9 MP drawing down 1/2 with one line, and draws exactly what the drawing at half size draws', async () => {
    const big = enlargedChar1(4, path.join(tmp, 'char1x4'));
    const half = enlargedChar1(2, path.join(tmp, 'char1x2'));
    const rec = shortRecording();
    const a = await runKind([
      'puppet',
      'render',
      big,
      '--landmarks',
      rec,
      '-o',
      path.join(tmp, 'o-x4'),
      '--no-preview',
    ]);
    expect(a.code).toBe(0);
    const lines = a.out.split('\n');
    expect(lines[0]).toBe(
      `note: ${big}/texture.png is 2032x2408 px (4.9 MP), more than the 2 MP the puppet works at: scaled down 1/2 to 1016x1204; the frames and puppet.json are in those pixels`,
    );
    expect(lines.filter((l) => l.includes('scaled down'))).toHaveLength(1);
    const b = await runKind([
      'puppet',
      'render',
      half,
      '--landmarks',
      rec,
      '-o',
      path.join(tmp, 'o-x2'),
      '--no-preview',
    ]);
    expect(b.code).toBe(0);
    expect(b.out).not.toMatch(/scaled down/);
    const pa = readPuppet(path.join(tmp, 'o-x4'));
    const pb = readPuppet(path.join(tmp, 'o-x2'));
    expect(pa.image).toEqual({ width: 1016, height: 1204 });
    expect(pa.character.scaledFrom).toEqual({
      file: `${big}/texture.png`,
      width: 2032,
      height: 2408,
      factor: 2,
    });
    expect(pb.character.scaledFrom).toBeUndefined();
    expect(pa.frames).toEqual(pb.frames);
    expect(pa.character.restJoints).toEqual(pb.character.restJoints);
    const names = fs.readdirSync(path.join(tmp, 'o-x2', 'frames'));
    expect(names).toHaveLength(10);
    for (const n of names)
      expect(
        fs
          .readFileSync(path.join(tmp, 'o-x4', 'frames', n))
          .equals(fs.readFileSync(path.join(tmp, 'o-x2', 'frames', n))),
      ).toBe(true);
  });

  it('refuses a drawing above 120 MP from its header, naming the file and size, before decoding it', async () => {
    const dir = path.join(tmp, 'huge');
    fs.mkdirSync(dir, { recursive: true });
    // signature and an IHDR of 12000x12000 RGBA, no image data: only the header is read
    const ihdr = Buffer.alloc(25);
    ihdr.writeUInt32BE(13, 0);
    ihdr.write('IHDR', 4, 'latin1');
    ihdr.writeUInt32BE(12000, 8);
    ihdr.writeUInt32BE(12000, 12);
    ihdr[16] = 8;
    ihdr[17] = 6;
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
    fs.writeFileSync(path.join(dir, 'texture.png'), png);
    fs.writeFileSync(path.join(dir, 'mask.png'), png);
    fs.writeFileSync(path.join(dir, 'char_cfg.yaml'), 'width: 12000\nheight: 12000\nskeleton: []\n');
    const out = path.join(tmp, 'o-huge');
    const r = await runKind(['puppet', 'render', dir, '--landmarks', shortRecording(), '-o', out]);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe(
      `kind: ${dir}/texture.png: 12000x12000 px (144 MP) is more than the 120 MP the puppet reads; scale the drawing down first (it is drawn at most 2 MP anyway)`,
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it('says --image-size was not checked for normalised keypoints without world landmarks, and not for pixels', async () => {
    const px = (JSON.parse(fs.readFileSync(SQUAT(), 'utf8')) as number[][][]).slice(0, 12);
    const names = [
      'nose',
      'left_eye',
      'right_eye',
      'left_ear',
      'right_ear',
      'left_shoulder',
      'right_shoulder',
      'left_elbow',
      'right_elbow',
      'left_wrist',
      'right_wrist',
      'left_hip',
      'right_hip',
      'left_knee',
      'right_knee',
      'left_ankle',
      'right_ankle',
    ];
    const blaze = [0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28];
    const norm = px.map((f) =>
      Object.fromEntries(names.map((n, k) => [n, { x: f[blaze[k]][0] / 720, y: f[blaze[k]][1] / 1280 }])),
    );
    const pix = px.map((f) => ({
      score: 0.8,
      keypoints: names.map((n, k) => ({ name: n, x: f[blaze[k]][0], y: f[blaze[k]][1], score: 0.8 })),
    }));
    const nf = path.join(tmp, 'squat_named.json');
    const pf = path.join(tmp, 'squat_movenet.json');
    fs.writeFileSync(nf, JSON.stringify(norm));
    fs.writeFileSync(pf, JSON.stringify(pix));
    const a = await runKind([
      'puppet',
      'render',
      CHAR1(),
      '--landmarks',
      nf,
      '--image-size',
      '720x1280',
      '-o',
      path.join(tmp, 'o-named'),
      '--no-preview',
    ]);
    expect(a.code).toBe(0);
    expect(a.out).toContain(
      `  note: --image-size 720x1280 not checked: ${nf} has normalised landmarks and no world landmarks, which say nothing of the image's aspect; a wrong size bends the bones (give the video's size in pixels)`,
    );
    expect(loadLandmarkRecording(nf, { imageSize: { width: 720, height: 1280 } }).imageCheck?.kind).toBe(
      'none',
    );
    const b = await runKind([
      'puppet',
      'render',
      CHAR1(),
      '--landmarks',
      pf,
      '--image-size',
      '720x1280',
      '-o',
      path.join(tmp, 'o-movenet'),
      '--no-preview',
    ]);
    expect(b.code).toBe(0);
    expect(b.out).not.toMatch(/not checked/);
  });

  describe('degenerate characters', () => {
    const render = (dir: string, extra: string[] = []) =>
      runKind([
        'puppet',
        'render',
        dir,
        '--landmarks',
        shortRecording(),
        '-o',
        `${dir}-out`,
        '--no-preview',
        ...extra,
      ]);

    it('an all-white mask renders with a warning naming mask.png', async () => {
      const dir = char1Variant('white', (t) => t, solidPng(508, 602, 255));
      const r = await render(dir);
      expect(r.code).toBe(0);
      expect(r.out).toContain(
        `  warning: ${dir}/mask.png: 100.0% of the pixels are marked as the character (an all-white mask?): the background is drawn as part of the figure and moves with it; the mask should be white on the character only`,
      );
      // char1's own mask: no warning at all
      const ok = await render(char1Variant('plain', (t) => t));
      expect(ok.out).not.toMatch(/warning:/);
    });

    it('a one-joint char_cfg and a skeleton with every joint on one point are refused (exit 1, nothing written)', async () => {
      const one = char1Variant(
        'onejoint',
        () => 'width: 508\nheight: 602\nskeleton:\n- loc: [264, 397]\n  name: root\n  parent: null\n',
      );
      const a = await render(one);
      expect(a.code).toBe(1);
      expect(a.err.trim()).toBe(
        `kind: ${one}/char_cfg.yaml: skeleton: none of the 1 joint(s) (root) follows the person, so the drawing would stay at rest in every frame; a bone needs two joints, named as AnimatedDrawings names them (root, hip, torso, neck, left_elbow ...; DRAWING.md "Any AnimatedDrawings skeleton") or mapped by --retarget-cfg`,
      );
      expect(fs.existsSync(`${one}-out`)).toBe(false);
      const flat = char1Variant('allzero', (t) =>
        t.replace(/- loc:\n {2}- \d+\n {2}- \d+/g, '- loc:\n  - 264\n  - 397'),
      );
      const b = await render(flat);
      expect(b.code).toBe(1);
      expect(b.err.trim()).toMatch(
        new RegExp(
          `^kind: ${flat}/char_cfg\\.yaml: skeleton: every joint lies on its parent \\(torso, neck, right_shoulder, right_elbow, right_hand, left_shoulder and 8 more\\): no bone has a length`,
        ),
      );
      expect(fs.existsSync(`${flat}-out`)).toBe(false);
    });

    it('a zero-length bone and a parent the standard rig does not use are warned, naming the line', async () => {
      const dir = char1Variant('zero', (t) =>
        t
          .replace(
            /- loc:\n {2}- \d+\n {2}- \d+\n {2}name: right_elbow/,
            '- loc:\n  - 151\n  - 245\n  name: right_elbow',
          )
          .replace(/(name: right_hip\n {2}parent: )root/, '$1null'),
      );
      const r = await render(dir);
      expect(r.code).toBe(0);
      const cfg = fs.readFileSync(path.join(dir, 'char_cfg.yaml'), 'utf8').split('\n');
      // the line each warning names is the joint's entry (`- loc:`), two lines above its loc's numbers
      const entry = (name: string) =>
        cfg.findIndex((l, i) => l === `  name: ${name}` && cfg[i - 3] === '- loc:') - 2;
      expect(r.out).toContain(
        `  warning: ${dir}/char_cfg.yaml:${entry('right_elbow')}: joint 'right_elbow' lies on its parent 'right_shoulder' (both at [151, 245]): a bone of length 0 cannot show a turn; place it where the limb bends`,
      );
      expect(r.out).toContain(
        `  warning: ${dir}/char_cfg.yaml:${entry('right_hip')}: joint 'right_hip' has parent null, but the 16 AnimatedDrawings joints are rigged with their own parents (right_hip's is root): the file's parent is not used`,
      );
    });

    it('CamelCase names half recognised: the rigid limb-like joints are named, and are those puppet.json maps rigid', async () => {
      // the right side keeps AnimatedDrawings' names, the left side abbreviated CamelCase no rule knows
      const names: Record<string, string> = {
        left_shoulder: 'LShoulder',
        left_elbow: 'LElbow',
        left_hand: 'LHand',
        left_hip: 'LHip',
        left_knee: 'LKnee',
        left_foot: 'LFoot',
      };
      const dir = char1Variant('camel', (t) =>
        t.replace(/\b(left_(?:shoulder|elbow|hand|hip|knee|foot))\b/g, (m) => names[m]),
      );
      const r = await render(dir);
      expect(r.code).toBe(0);
      const w = r.out.split('\n').filter((l) => l.startsWith('  warning:'));
      expect(w).toEqual([
        `  warning: ${dir}/char_cfg.yaml: 6 of 16 joints are named like a limb but match no name the puppet knows, so they follow their parent rigidly: LShoulder, LElbow, LHand, LHip, LKnee, LFoot (names: DRAWING.md "Any AnimatedDrawings skeleton"; or map them with --retarget-cfg)`,
      ]);
      const mapping = readPuppet(`${dir}-out`).character.mapping.joints;
      const driver = (n: string) => mapping.find((j) => j.name === n)?.driver ?? '';
      for (const n of Object.values(names)) expect(driver(n)).toMatch(/^rigid/);
      // the other half is recognised
      for (const n of ['right_elbow', 'right_hand', 'right_knee', 'right_foot'])
        expect(driver(n)).not.toMatch(/^rigid/);
    });

    it('a second root of a named skeleton is warned', async () => {
      // six-arms sample with right_shoulder3 detached from the torso
      const dir = path.join(tmp, 'six');
      execFileSync(
        process.execPath,
        [path.resolve(__dirname, '../../tools/make-puppet-sample.mjs'), '--out', dir, '--figure', 'six-arms'],
        { stdio: 'pipe' },
      );
      const cfgFile = path.join(dir, 'char_cfg.yaml');
      const text = fs.readFileSync(cfgFile, 'utf8');
      fs.writeFileSync(cfgFile, text.replace(/(name: right_shoulder3\n {2}parent: )torso/, '$1null'));
      const r = await render(dir);
      expect(r.code).toBe(0);
      const lines = fs.readFileSync(cfgFile, 'utf8').split('\n');
      const line = (n: string) => lines.indexOf(`  name: ${n}`) - 2;
      expect(r.out).toContain(
        `  warning: ${cfgFile}: 2 roots ('root' line ${line('root')}, 'right_shoulder3' line ${line('right_shoulder3')} have parent null): 'right_shoulder3' and its joints move with the body but do not turn with 'root'; give it a parent`,
      );
    });

    it("a retarget config's group without depth drivers is warned, and named so in puppet.json", async () => {
      const dir = path.join(tmp, 'six-groups');
      execFileSync(
        process.execPath,
        [path.resolve(__dirname, '../../tools/make-puppet-sample.mjs'), '--out', dir, '--figure', 'six-arms'],
        { stdio: 'pipe' },
      );
      const cfg = path.join(tmp, 'empty_groups.yaml');
      fs.writeFileSync(
        cfg,
        [
          'char_bodypart_groups:',
          '- bvh_depth_drivers: []',
          '  char_joints:',
          '  - right_elbow2',
          '  - right_hand2',
          'char_joint_bvh_joints_mapping:',
          '  right_elbow2: [RightArm, RightForeArm]',
          '  right_hand2: [RightForeArm, RightHand]',
          '',
        ].join('\n'),
      );
      const r = await render(dir, ['--retarget-cfg', cfg]);
      expect(r.code).toBe(0);
      expect(r.out).toContain(
        `  warning: ${cfg}: char_bodypart_groups[0].bvh_depth_drivers is empty: the group (right_elbow2, right_hand2) has no depth of its own and is layered at the landmarks' z origin (the hips' centre); name the BVH joint whose depth it takes`,
      );
      expect(readPuppet(`${dir}-out`).stats.layers.groups.map((g) => g.name)).toEqual([
        'group 0 (no depth drivers)',
      ]);
    });
  });

  describe('wording', () => {
    it('a text file named mask.png: "<path>: not a PNG (...)"', async () => {
      const dir = char1Variant('textmask', (t) => t, 'this is not a png\n');
      const r = await runKind([
        'puppet',
        'render',
        dir,
        '--landmarks',
        shortRecording(),
        '-o',
        path.join(tmp, 'o-textmask'),
      ]);
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe(
        `kind: ${dir}/mask.png: not a PNG (it starts with "this is not a pn...": a text file?)`,
      );
    });

    it("Python's bare NaN: the file, line and column, NaN named and null suggested", async () => {
      const text = JSON.stringify(JSON.parse(fs.readFileSync(shortRecording(), 'utf8')), null, 1).replace(
        /"z": [-0-9.e]+/,
        '"z": NaN',
      );
      const file = path.join(tmp, 'nan.json');
      fs.writeFileSync(file, text);
      const lines = text.split('\n');
      const line = lines.findIndex((l) => l.includes('NaN')) + 1;
      const column = lines[line - 1].indexOf('NaN') + 1;
      const r = await runKind(['puppet', 'render', '--landmarks', file, '-o', path.join(tmp, 'o-nan')]);
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe(
        `kind: ${file}:${line}:${column}: not valid JSON: NaN is not a JSON value (Python's json.dump writes a nan or inf float so); write null for a missing number`,
      );
    });

    it('a one-frame tfjs recording: "1 frame", no rate', async () => {
      const file = path.join(tmp, 'one.json');
      fs.writeFileSync(file, JSON.stringify(JSON.parse(fs.readFileSync(SQUAT(), 'utf8')).slice(0, 1)));
      const r = await runKind([
        'puppet',
        'render',
        CHAR1(),
        '--landmarks',
        file,
        '--image-size',
        '720x1280',
        '-o',
        path.join(tmp, 'o-one'),
        '--no-preview',
      ]);
      expect(r.code).toBe(0);
      const lines = r.out.split('\n');
      expect(lines[0]).toContain(
        `driven by ${file} (1 frame, rate unknown, camera 720x1280, image landmarks)`,
      );
      expect(lines[1]).toMatch(/^ {2}person in 1\/1 frame; /);
      expect(r.out).not.toMatch(/\b1 frames\b|Hz|read at 30 fps/);
      expect(r.out).toContain(`wrote ${path.join(tmp, 'o-one', 'frames', '0000.png')} (1 frame, `);
    });
  });

  describe('--layers', () => {
    it('on: stats.layers and one summary line; off: the single mesh in its static order, as rasterised here', async () => {
      const on = path.join(tmp, 'o-layers-on');
      const off = path.join(tmp, 'o-layers-off');
      const args = [
        'puppet',
        'render',
        CHAR1(),
        '--landmarks',
        SQUAT(),
        '--image-size',
        '720x1280',
        '--no-preview',
      ];
      const a = await runKind([...args, '-o', on]);
      const b = await runKind([...args, '-o', off, '--layers', 'off']);
      expect([a.code, b.code]).toEqual([0, 0]);
      const la = readPuppet(on).stats.layers;
      expect(la.enabled).toBe(true);
      expect(la.margin).toBe(0.1);
      expect(la.groups.map((g) => g.name)).toEqual([
        'trunk',
        'left leg',
        'right leg',
        'left arm',
        'right arm',
      ]);
      // every triangle in one group; every frame in one order; the changes are the frames whose order differs
      expect(la.groups.reduce((s, g) => s + g.triangles, 0)).toBe(readPuppet(on).mesh.triangles);
      expect(la.orders.reduce((s, o) => s + o.frames, 0)).toBe(65);
      expect(la.orders[0].order).toEqual(['trunk', 'left leg', 'right leg', 'left arm', 'right arm']);
      // the squat's arms come forward past the legs in each squat (depthOrder.ts DEPTH_MARGIN: 14 changes)
      expect(la.orderChanges).toBe(14);
      expect(la.orders.length).toBeLessThanOrEqual(la.orderChanges + 1);
      const longest = la.orders.reduce((x, o) => (o.frames > x.frames ? o : x));
      expect(a.out).toContain(
        `  layers: 5 body-part groups by depth (trunk, left leg, right leg, left arm, right arm); the order changed 14 times in 65 frames (${la.orders.length} orders; held longest, back to front: ${longest.order.join(' < ')}, ${longest.frames} frames)`,
      );
      expect(readPuppet(off).stats.layers).toEqual({
        enabled: false,
        margin: 0,
        groups: [],
        orders: [],
        orderChanges: 0,
      });
      expect(b.out).toContain('  layers: off (one mesh, limbs over the body: --layers off)');

      // off = a session without layers rasterised with the mesh's own order, frame by frame, here
      const file = readPuppet(off);
      const character = loadCharacter(CHAR1());
      const rec = loadLandmarkRecording(SQUAT(), { imageSize: { width: 720, height: 1280 } }).recording;
      const s = new PuppetSession(character, { image: rec.image, layers: false });
      expect(s.drawOrder).toBeNull();
      const { width, height, originX, originY } = file.frame;
      const target: RgbaImage = { width, height, data: new Uint8Array(width * height * 4) };
      const shifted = new Float32Array(s.skinned.length);
      let differ = 0;
      rec.frames.forEach((f, i) => {
        s.step(f);
        for (let k = 0; k < shifted.length; k += 2) {
          shifted[k] = s.skinned[k] + originX;
          shifted[k + 1] = s.skinned[k + 1] + originY;
        }
        rasterize(character, s.mesh, shifted, target, {
          background: [255, 255, 255, 255],
          parents: s.rig.skeleton.parents,
        });
        const name = `${String(i).padStart(4, '0')}.png`;
        const got = decodePng(fs.readFileSync(path.join(off, 'frames', name)));
        expect(Buffer.from(got.data).equals(Buffer.from(target.data))).toBe(true);
        const layered = decodePng(fs.readFileSync(path.join(on, 'frames', name)));
        if (!Buffer.from(layered.data).equals(Buffer.from(got.data))) differ++;
      });
      // the layers change what covers what in some frames
      expect(differ).toBeGreaterThan(0);
    });
  });

  describe('fresh-user fixes', () => {
    it('refuses an existing frames folder holding a file that is not a frame, before any work', async () => {
      const out = path.join(tmp, 'o-foreign');
      fs.mkdirSync(path.join(out, 'frames'), { recursive: true });
      fs.writeFileSync(path.join(out, 'frames', '0000.png'), 'an earlier frame');
      fs.writeFileSync(path.join(out, 'frames', 'notes.txt'), 'mine\n');
      const r = await runKind([
        'puppet',
        'render',
        CHAR1(),
        '--landmarks',
        shortRecording(),
        '-o',
        out,
        '--no-preview',
      ]);
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe(
        `kind: ${out}/frames/notes.txt: not a frame of an earlier render; a render replaces the whole frames folder, so move it or choose another -o`,
      );
      expect(fs.readFileSync(path.join(out, 'frames', 'notes.txt'), 'utf8')).toBe('mine\n');
      expect(fs.readdirSync(out)).toEqual(['frames']);
      expect(fs.readdirSync(path.join(out, 'frames')).sort()).toEqual(['0000.png', 'notes.txt']);
    });

    it('a four-legged figure: only the groups with triangles, in the summary, the orders and puppet.json', async () => {
      const dir = path.join(tmp, 'four-legs');
      execFileSync(
        process.execPath,
        [
          path.resolve(__dirname, '../../tools/make-puppet-sample.mjs'),
          '--out',
          dir,
          '--figure',
          'four-legs',
        ],
        { stdio: 'pipe' },
      );
      const out = `${dir}-out`;
      const r = await runKind([
        'puppet',
        'render',
        dir,
        '--landmarks',
        shortRecording(),
        '-o',
        out,
        '--no-preview',
      ]);
      expect(r.code).toBe(0);
      const file = readPuppet(out);
      const la = file.stats.layers;
      expect(la.groups.map((g) => g.name)).toEqual(['trunk', 'left leg', 'right leg']);
      expect(la.groups.every((g) => g.triangles > 0)).toBe(true);
      expect(la.groups.reduce((s, g) => s + g.triangles, 0)).toBe(file.mesh.triangles);
      for (const o of la.orders) expect([...o.order].sort()).toEqual(['left leg', 'right leg', 'trunk']);
      expect(la.orders.reduce((s, o) => s + o.frames, 0)).toBe(10);
      const line = r.out.split('\n').find((l) => l.startsWith('  layers: '));
      expect(line).toMatch(/^ {2}layers: 3 body-part groups by depth \(trunk, left leg, right leg\);/);
      expect(line).not.toMatch(/arm/);
      // the skeleton printout's scale line names the pose bones it is measured over (it ended "pose's")
      expect(r.out).toContain(
        '    root translation scale: legs: mean drawn length of right_knee_f, right_foot_f, left_knee_f, left_foot_f, right_knee_b, right_foot_b, left_knee_b, left_foot_b over the mean length in the reference pose of RightUpperLeg -> RightLowerLeg, RightLowerLeg -> RightFoot, LeftUpperLeg -> LeftLowerLeg, LeftLowerLeg -> LeftFoot\n',
      );
    });

    it("a dead run's .bak is removed only beside a complete output set, else left and named", async () => {
      // a process id that is no longer running: a child that has exited
      const dead = execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
        encoding: 'utf8',
      });
      const args = (out: string) => [
        'puppet',
        'render',
        CHAR1(),
        '--landmarks',
        shortRecording(),
        '-o',
        out,
        '--no-preview',
      ];
      const done = path.join(tmp, 'o-bak-done');
      expect((await runKind(args(done))).code).toBe(0);
      fs.mkdirSync(path.join(done, `frames.${dead}.bak`));
      fs.writeFileSync(path.join(done, `frames.${dead}.bak`, '0000.png'), 'old');
      fs.writeFileSync(path.join(done, `puppet.json.${dead}.bak`), '{}');
      const a = await runKind(args(done));
      expect(a.code).toBe(0);
      expect(a.out).toContain(
        `note: removed frames.${dead}.bak, puppet.json.${dead}.bak from ${done}: a previous output an earlier run moved aside and could not delete (the outputs beside it are complete)`,
      );
      expect(fs.readdirSync(done).sort()).toEqual(['frames', 'puppet.json']);

      // killed between moving the outputs aside and placing the new ones: the .bak is the only copy
      const cut = path.join(tmp, 'o-bak-cut');
      fs.mkdirSync(path.join(cut, `frames.${dead}.bak`), { recursive: true });
      fs.writeFileSync(path.join(cut, `frames.${dead}.bak`, '0000.png'), 'only copy');
      const b = await runKind(args(cut));
      expect(b.code).toBe(0);
      expect(b.out).toContain(
        `note: left ${cut}/frames.${dead}.bak: moved aside by an earlier run that did not finish, and the outputs beside it are not a complete set, so it may be the only copy; delete it yourself once you have checked`,
      );
      expect(fs.readFileSync(path.join(cut, `frames.${dead}.bak`, '0000.png'), 'utf8')).toBe('only copy');
    });

    it('a truncated mask.png: "<path>: truncated or damaged PNG (...)", not pngjs\'s sentence', async () => {
      const cut = fs.readFileSync(path.join(CHAR1(), 'mask.png')).subarray(0, 3000);
      const dir = char1Variant('cutmask', (t) => t, cut);
      const r = await runKind([
        'puppet',
        'render',
        dir,
        '--landmarks',
        shortRecording(),
        '-o',
        path.join(tmp, 'o-cutmask'),
      ]);
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe(
        `kind: ${dir}/mask.png: truncated or damaged PNG (its data ends early, after 3000 bytes: an interrupted copy or download?)`,
      );
    });

    it('world landmarks (metres) given as --landmarks with --image-size: a warning naming the file', async () => {
      const world = dataPath('pose-landmarks', 'pose_squats_3d.full.json');
      const args = (file: string, out: string) => [
        'puppet',
        'render',
        CHAR1(),
        '--landmarks',
        file,
        '--image-size',
        '720x1280',
        '--fps',
        '5',
        '-o',
        path.join(tmp, out),
        '--no-preview',
      ];
      const a = await runKind(args(world, 'o-metres'));
      expect(a.code).toBe(0);
      // the squat's world landmarks reach 0.86 m from the hips' centre
      expect(a.out).toContain(
        `\n  warning: ${world}: every x and y is within 0.86 of 0 with --image-size 720x1280: these look like world landmarks in metres, not pixels (the person would be a dot in the image's corner); give the image landmarks file (pixels) as --landmarks\n`,
      );
      const b = await runKind(args(SQUAT(), 'o-pixels'));
      expect(b.code).toBe(0);
      expect(b.out).not.toMatch(/metres/);
    });
  });
});
