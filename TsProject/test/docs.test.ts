/**
 * The docs (issue 25, item 3): the links of README.md and docs/*.md resolve (files and #anchors; no
 * network), and the TypeScript API reference builds from the TSDoc with TypeDoc's validation as errors
 * (typedoc.json: every exported class, function, interface, type, variable and method documented; no
 * link to a name the reference leaves out; no exported name whose type refers to one it does not export).
 * TypeDoc skips the type check (`skipErrorChecking`: `npm run typecheck` does it) so this stays near 20 s.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { anchorsOf, checkMarkdownLinks, githubSlug } from './helpers/markdownLinks';

const TS = path.resolve(__dirname, '..');
const ROOT = path.resolve(TS, '..');
const DOCS = path.join(ROOT, 'docs');

describe('Markdown links', () => {
  it('slugs headings as GitHub does', () => {
    expect(githubSlug('`kind cleanup`: foot-slide cleanup of BVH takes')).toBe(
      'kind-cleanup-foot-slide-cleanup-of-bvh-takes',
    );
    expect(githubSlug('`kind retarget --ik`: the hub over a clip')).toBe(
      'kind-retarget---ik-the-hub-over-a-clip',
    );
    expect(githubSlug('Who may connect (remote control, viewer, puppet page)')).toBe(
      'who-may-connect-remote-control-viewer-puppet-page',
    );
    expect([...anchorsOf('# A\n## A\n```\n# B\n```\n<a id="x"></a>')]).toEqual(['a', 'a-1', 'x']);
  });

  it('finds a missing file and a missing anchor, and ignores code and external links', () => {
    const dir = fs.mkdtempSync(path.join(TS, 'test-output', 'links-'));
    try {
      fs.writeFileSync(path.join(dir, 'b.md'), '# Here\n');
      fs.writeFileSync(
        path.join(dir, 'a.md'),
        '[ok](b.md#here) [self](#top) [gone](c.md) [bad](b.md#there) [web](https://example.com/x#y)\n' +
          '`[code](nothing.md)`\n```\n[fenced](nothing.md)\n```\n# Top\n',
      );
      const broken = checkMarkdownLinks([path.join(dir, 'a.md')]);
      expect(broken.map((b) => [b.line, b.target])).toEqual([
        [1, 'c.md'],
        [1, 'b.md#there'],
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('README.md, docs/*.md and the pages they link to have no broken relative link or anchor', () => {
    const files = [
      path.join(ROOT, 'README.md'),
      // linked from the docs: the Unity package's README and the design notes beside the code
      path.join(ROOT, 'Packages/com.kind.retargeting/README.md'),
      ...[
        'mocap/MOCAP.md',
        'mocap/STREAM.md',
        'puppet/POSE.md',
        'puppet/DRAWING.md',
        'contact/model/MODEL_CARD.md',
      ].map((f) => path.join(TS, 'src', f)),
      ...fs
        .readdirSync(DOCS)
        .filter((f) => f.endsWith('.md'))
        .map((f) => path.join(DOCS, f)),
    ];
    expect(files.length).toBeGreaterThan(10);
    const broken = checkMarkdownLinks(files).map(
      (b) => `${path.relative(ROOT, b.file)}:${b.line}: ${b.target}: ${b.reason}`,
    );
    expect(broken).toEqual([]);
  });
});

describe('the API reference (TypeDoc)', () => {
  it('builds from the TSDoc with no warning (missing docs, broken links, names left out)', () => {
    const r = spawnSync(
      process.execPath,
      [path.join(TS, 'node_modules/typedoc/bin/typedoc'), '--emit', 'none'],
      {
        cwd: TS,
        encoding: 'utf8',
      },
    );
    const text = stripVTControlCharacters(`${r.stdout}${r.stderr}`); // no colours in the failure message
    const warnings = text.split('\n').filter((l) => /^\[(warning|error)\]/.test(l));
    expect(warnings).toEqual([]);
    expect(r.status).toBe(0);
  }, 180_000);
});
