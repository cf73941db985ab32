/**
 * The npm package (TsProject/package.json) and the Unity package (Packages/com.kind.retargeting) carry the
 * same version, and each CHANGELOG has a section for it (issue 25 item 1).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const TS = path.resolve(__dirname, '..');
const UNITY = path.resolve(TS, '../Packages/com.kind.retargeting');
const readJson = (f: string) =>
  JSON.parse(fs.readFileSync(f, 'utf8')) as { version: string; private?: boolean };

it('the npm and Unity packages have the same version, and both changelogs name it', () => {
  const npm = readJson(path.join(TS, 'package.json'));
  const unity = readJson(path.join(UNITY, 'package.json'));
  expect(npm.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  expect(unity.version).toBe(npm.version);
  expect(npm.private).toBeUndefined();
  for (const log of [path.join(TS, 'CHANGELOG.md'), path.join(UNITY, 'CHANGELOG.md')]) {
    const text = fs.readFileSync(log, 'utf8');
    expect(text).toContain(`## ${npm.version}`);
  }
});
