/**
 * `kind puppet render` killed and interrupted in a child process (a private build, test/helpers/builtCli.ts),
 * the moments chosen by what appears (an output line, a staged folder), never by time:
 * - SIGKILL while frames are being written leaves `<out>/frames.<pid>.tmp`; the next run into that folder
 *   removes it (one line naming it and the dead process) and leaves a live process's temporary alone;
 * - SIGINT after the run has made a new output folder (its staged frames folder appeared) and before it
 *   wrote anything: exit 130 and the new folder is gone, not left empty;
 * - SIGTERM while a big drawing is being set up (after the line saying it is scaled down): exit 143, one
 *   line, the previous outputs byte for byte.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PNG } from 'pngjs';
import { type BuiltCli, buildCli, removeBuiltCli } from './helpers/builtCli';
import { dataPath, describeWithData } from './helpers/data';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-puppet-robust-sig-'));
let cli: BuiltCli;
beforeAll(() => {
  cli = buildCli('puppet-robust');
});
afterAll(() => {
  removeBuiltCli(cli);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const DEFAULT_REC = path.resolve(__dirname, '../assets/default/puppet/recording.json');

interface Run {
  child: ChildProcess;
  out: string[];
  err: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [cli.bin, 'puppet', 'render', ...args], { stdio: 'pipe' });
  const out: string[] = [];
  const err: string[] = [];
  child.stdout?.on('data', (d) => out.push(String(d)));
  child.stderr?.on('data', (d) => err.push(String(d)));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, out, err, exit };
}

/** Resolve once `test()` holds (checked on each output chunk and file-system poll), or the child exits. */
async function until(r: Run, test: () => boolean): Promise<boolean> {
  let exited = false;
  void r.exit.then(() => {
    exited = true;
  });
  while (!exited) {
    if (test()) return true;
    await new Promise((res) => setTimeout(res, 20));
  }
  return test();
}

describeWithData('kind puppet render: temporaries and signals (child process)', () => {
  it('a run killed by SIGKILL leaves frames.<pid>.tmp; the next run removes it and says so, a live pid kept', async () => {
    const out = path.join(tmp, 'killed');
    const r = start(['--landmarks', DEFAULT_REC, '-o', out, '--no-preview']);
    const staged = path.join(out, `frames.${r.child.pid}.tmp`);
    // the staged folder holds a frame: the run is writing
    expect(await until(r, () => fs.existsSync(staged) && fs.readdirSync(staged).length > 0)).toBe(true);
    r.child.kill('SIGKILL');
    expect((await r.exit).signal).toBe('SIGKILL');
    expect(fs.existsSync(staged)).toBe(true);
    // a temporary of a process that is alive (this test's) is not touched
    const live = path.join(out, `frames.${process.pid}.tmp`);
    fs.mkdirSync(live);
    const short = path.join(tmp, 'short.json');
    const rec = JSON.parse(fs.readFileSync(DEFAULT_REC, 'utf8'));
    rec.frames = rec.frames.slice(20, 26);
    fs.writeFileSync(short, JSON.stringify(rec));
    const again = start(['--landmarks', short, '-o', out, '--no-preview']);
    expect((await again.exit).code).toBe(0);
    const lines = again.out.join('').split('\n');
    expect(lines[0]).toBe(
      `note: removed frames.${r.child.pid}.tmp (process ${r.child.pid}) from ${out}: left by an earlier run that was killed before it could clean up`,
    );
    expect(fs.existsSync(staged)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
    expect(fs.readdirSync(path.join(out, 'frames'))).toHaveLength(6);
    fs.rmdirSync(live);
  });

  it('SIGINT before anything is written: exit 130 and the output folder this run made is gone', async () => {
    const parent = path.join(tmp, 'new');
    const out = path.join(parent, 'sub');
    const r = start(['--landmarks', DEFAULT_REC, '-o', out]);
    const staged = path.join(out, `frames.${r.child.pid}.tmp`);
    expect(await until(r, () => fs.existsSync(staged))).toBe(true);
    r.child.kill('SIGINT');
    const e = await r.exit;
    expect(e.code).toBe(130);
    expect(r.err.join('').trim()).toBe(
      `kind puppet render: interrupted (SIGINT); nothing written (temporary files removed), there were no previous outputs and the new folder ${parent} was removed`,
    );
    expect(fs.existsSync(parent)).toBe(false);
  });

  it('SIGTERM while a big drawing is set up: exit 143, the previous outputs unchanged', async () => {
    // char1 drawn 4x (2032x2408, 4.9 MP): scaled down, then meshed
    const src = dataPath('animated-drawings', 'characters', 'char1');
    const big = path.join(tmp, 'char1x4');
    fs.mkdirSync(big);
    for (const f of ['texture.png', 'mask.png']) {
      const s = PNG.sync.read(fs.readFileSync(path.join(src, f)));
      const d = new PNG({ width: s.width * 4, height: s.height * 4 });
      for (let y = 0; y < d.height; y++)
        for (let x = 0; x < d.width; x++) {
          const i = 4 * (Math.floor(y / 4) * s.width + Math.floor(x / 4));
          s.data.copy(d.data, 4 * (y * d.width + x), i, i + 4);
        }
      fs.writeFileSync(path.join(big, f), PNG.sync.write(d, { filterType: 1 }));
    }
    fs.writeFileSync(
      path.join(big, 'char_cfg.yaml'),
      fs
        .readFileSync(path.join(src, 'char_cfg.yaml'), 'utf8')
        .replace(/^(width|height): (\d+)/gm, (_, a, b) => `${a}: ${Number(b) * 4}`)
        .replace(/^ {2}- (\d+)$/gm, (_, a) => `  - ${Number(a) * 4}`),
    );
    const out = path.join(tmp, 'previous');
    fs.mkdirSync(path.join(out, 'frames'), { recursive: true });
    fs.writeFileSync(path.join(out, 'puppet.json'), '{"previous": true}\n');
    fs.writeFileSync(path.join(out, 'frames', '0000.png'), 'previous frame');
    const r = start([big, '--landmarks', DEFAULT_REC, '-o', out]);
    expect(await until(r, () => r.out.join('').includes('scaled down 1/2 to 1016x1204'))).toBe(true);
    r.child.kill('SIGTERM');
    const e = await r.exit;
    expect(e.code).toBe(143);
    expect(r.err.join('').trim()).toBe(
      'kind puppet render: interrupted (SIGTERM); nothing written, the previous outputs are unchanged',
    );
    expect(r.out.join('')).not.toMatch(/rendered/);
    expect(fs.readFileSync(path.join(out, 'puppet.json'), 'utf8')).toBe('{"previous": true}\n');
    expect(fs.readdirSync(out).sort()).toEqual(['frames', 'puppet.json']);
    expect(fs.readdirSync(path.join(out, 'frames'))).toEqual(['0000.png']);
  });
});
