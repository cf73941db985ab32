#!/usr/bin/env node
// The `kind` command. The TypeScript sources are bundled to dist/kind.cjs by `npm ci` / `npm run build`.
const path = require('node:path');
const fs = require('node:fs');
const bundle = path.join(__dirname, '..', 'dist', 'kind.cjs');
if (!fs.existsSync(bundle)) {
  console.error('kind: dist/kind.cjs is missing; run `npm run build` in TsProject first');
  process.exit(2);
}
require(bundle)
  .main(process.argv)
  .then((code) => {
    process.exitCode = code;
  });
