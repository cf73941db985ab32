/**
 * The import graph of src (DESIGN.md, rules of the house): the hosts (cli, web, unity, live/node) do not
 * import each other, and nothing below a host imports one. File loading that cli and live both need lives
 * in src/io/node, and the viewer's pose-message layout that the server and the browser share in src/live/viewer.
 * Every `import ... from`, `export ... from`, `import('...')` and `require('...')` with a
 * relative path is resolved to the folder it lands in.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '../src');
const HOSTS = ['cli', 'web', 'unity', 'live/node'] as const;
/**
 * The one allowed crossing: `kind live` (cli/live.ts) is the command line's way to start the live host, so
 * it calls `startLive`; live/node itself never reaches back into cli.
 */
const ALLOWED = new Set(['cli/live.ts -> live/node/live']);

/** The host a path under src belongs to ('' when it is no host). */
function hostOf(rel: string): string {
  const p = rel.split(path.sep).join('/');
  return HOSTS.find((h) => p === h || p.startsWith(`${h}/`)) ?? '';
}

/** Relative module specifiers of a TypeScript source. */
function importsOf(text: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]*)['"]/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1]);
  return out;
}

/** `file -> target` lines for every import that crosses from one host into another, or from below into a host. */
function violations(files: Map<string, string>): string[] {
  const bad: string[] = [];
  for (const [rel, text] of files) {
    const from = hostOf(rel);
    for (const spec of importsOf(text)) {
      const target = path.relative(SRC, path.resolve(SRC, path.dirname(rel), spec));
      const to = hostOf(target);
      if (to && to !== from && !ALLOWED.has(`${rel} -> ${target}`))
        bad.push(`${rel} -> ${target} (${from || 'below the hosts'} imports host ${to})`);
    }
  }
  return bad.sort();
}

function sources(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (/\.(ts|mts|tsx)$/.test(e.name)) out.set(path.relative(SRC, p), fs.readFileSync(p, 'utf8'));
  }
  return out;
}

describe('import graph of src', () => {
  it('the checker sees static, re-export, dynamic and require imports, and flags host-to-host and upward ones', () => {
    expect(
      importsOf(
        "import { a } from '../cli/files';\nexport * from './x';\nconst m = await import('../../cli/load');\nimport './side';\nrequire(\"../web/y\");\nimport * as fs from 'node:fs';",
      ),
    ).toEqual(['../cli/files', './x', '../../cli/load', './side', '../web/y']);
    const bad = violations(
      new Map([
        ['live/node/live.ts', "import { loadAvatar } from '../../cli/load';"],
        ['cli/main.ts', "import { runLive } from './live';\nimport { x } from '../io/node';"],
        ['cli/live.ts', "import { startLive } from '../live/node/live';"],
        ['cli/qa.ts', "import { startLive } from '../live/node/live';"],
        ['io/node/load.ts', "import { y } from '../../cli/files';"],
        ['web/viewer/main.ts', "import { z } from '../../live/remote';"],
        ['unity/main.ts', "const w = require('../live/node/live');"],
      ]),
    );
    expect(bad).toEqual([
      'cli/qa.ts -> live/node/live (cli imports host live/node)',
      'io/node/load.ts -> cli/files (below the hosts imports host cli)',
      'live/node/live.ts -> cli/load (live/node imports host cli)',
      'unity/main.ts -> live/node/live (unity imports host live/node)',
    ]);
  });

  it('no host imports another host, and nothing below the hosts imports one', () => {
    const files = sources(SRC);
    expect(files.size).toBeGreaterThan(50);
    expect(files.has('live/node/live.ts')).toBe(true);
    expect(violations(files)).toEqual([]);
  });
});
