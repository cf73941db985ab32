#!/usr/bin/env node
// The `kind` command. The TypeScript sources are bundled to dist/kind.cjs by `npm ci` / `npm run build`.
const path = require('node:path');
const fs = require('node:fs');
const bundle = path.join(__dirname, '..', 'dist', 'kind.cjs');
if (!fs.existsSync(bundle)) {
  console.error('kind: dist/kind.cjs is missing; run `npm run build` in TsProject first');
  process.exit(2);
}
// Interrupts: the commands that write handle SIGINT, SIGTERM and SIGHUP themselves while they run
// (src/io/node/interrupt.ts: temporaries removed, previous outputs kept, exit 128 + the signal number),
// and `kind live` stops gracefully. This listener covers the rest of the process's life, so that no
// signal ever meets the default action (death wherever the process is): while the command loads, and
// between steps, it exits 128 + the signal number; once the command has finished, with its exit code.
const CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
let state = 'starting';
const fallback = (signal) => {
  if (process.listenerCount(signal) > 1) return; // the running command handles it
  if (state === 'done') process.exit();
  process.stderr.write(`kind: interrupted (${signal})${state === 'starting' ? ' while starting; nothing written' : ''}\n`);
  process.exit(CODES[signal]);
};
for (const s of Object.keys(CODES)) process.on(s, fallback);
const { main } = require(bundle);
state = 'running';
main(process.argv).then((code) => {
  state = 'done';
  process.exitCode = code;
  // Exit now rather than after Node's own teardown (it frees the heap with the signals' default
  // action back: a signal then killed the finished command, about 0.2 s after a large retarget), once
  // what was written to stdout and stderr has gone out.
  process.stdout.write('', () => process.stderr.write('', () => process.exit()));
});
