/**
 * A newcomer's `npm ci` must install cleanly: every package in the lockfile that has an install script
 * (`hasInstallScript` in package-lock.json) is either approved or denied in package.json's
 * `allowScripts` (npm >= 11.16 warns about each one that is neither; npm 12 skips their scripts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};

/** Package name of a lockfile key such as `node_modules/a/node_modules/@scope/b`. */
function nameOf(key: string): string {
  const at = key.lastIndexOf('node_modules/');
  return key.slice(at + 'node_modules/'.length);
}

describe('install scripts', () => {
  const withScripts = Object.entries(lock.packages)
    .filter(([key, entry]) => key !== '' && entry.hasInstallScript === true)
    .map(([key]) => nameOf(key));

  test('the lockfile is read (it lists packages with install scripts)', () => {
    expect(withScripts.length).toBeGreaterThan(0);
  });

  test('every package with an install script is approved or denied in allowScripts', () => {
    const allow = pkg.allowScripts ?? {};
    const uncovered = withScripts.filter((name) => typeof allow[name] !== 'boolean');
    expect(uncovered).toEqual([]);
  });

  test('allowScripts names no package the lockfile lacks', () => {
    const names = new Set(Object.keys(lock.packages).map(nameOf));
    expect(Object.keys(pkg.allowScripts ?? {}).filter((n) => !names.has(n))).toEqual([]);
  });
});
