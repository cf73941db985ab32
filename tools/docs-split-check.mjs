#!/usr/bin/env node
// One-off check of the README split (issue 25, item 3): every heading and every fenced block of the README
// at <rev> (default: the commit before the split) appears in README.md or docs/*.md now; headings compared
// by their text (any level, links reduced to their text), fenced blocks byte for byte. Also lists the
// README's prose lines that appear nowhere verbatim (links rewritten for docs/, reworded references), for
// a person to read. Usage, from the repository root: node tools/docs-split-check.mjs [rev]
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const rev = process.argv[2] ?? 'd4aa3f4';
const old = execFileSync('git', ['show', `${rev}:README.md`], { cwd: ROOT, encoding: 'utf8' });
const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const now = files.map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8')).join('\n');

/** Headings (outside fences) and fenced blocks of a Markdown text. */
function parse(text) {
  const headings = [];
  const blocks = [];
  let fence = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) {
      if (fence) {
        fence.push(line);
        blocks.push(fence.join('\n'));
        fence = null;
      } else fence = [line];
    } else if (fence) fence.push(line);
    else if (/^#{1,6} /.test(line)) headings.push(norm(line.replace(/^#+ /, '')));
  }
  return { headings, blocks };
}
const norm = (h) => h.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim();
/** Lines of fenced blocks edited on purpose: old line -> new line (the layout block's docs/ line). */
const EDITED_LINES = {
  'docs/cleanup.md   kind cleanup in depth: how it works, the measurements of each change, the per-take table':
    'docs/             these pages (docs/README.md lists them); cleanup.md has kind cleanup in depth too',
};
const edit = (block) => block.split('\n').map((l) => EDITED_LINES[l] ?? l).join('\n');
/** Headings renamed on purpose: old text -> new text, with the reason. */
const RENAMED = {
  'What the cleanup does (details in docs/cleanup.md)': 'What the cleanup does', // the details are on the same page now
};
const o = parse(old);
const n = parse(now);
const nowHeadings = new Set(n.headings);
const lostHeadings = o.headings.filter((h) => !nowHeadings.has(h) && !nowHeadings.has(RENAMED[h]));
const lostBlocks = o.blocks.filter((b) => !now.includes(edit(b)));
let fence = false;
const prose = [];
for (const line of old.split('\n')) {
  if (line.startsWith('```')) fence = !fence;
  else if (!fence && line.trim() && !/^#{1,6} /.test(line) && !now.includes(line)) prose.push(line);
}
console.log(`${rev}:README.md: ${o.headings.length} headings, ${o.blocks.length} fenced blocks; now in ${files.length} files`);
console.log(`headings missing: ${lostHeadings.length}${lostHeadings.map((h) => `\n  ${h}`).join('')}`);
console.log(`fenced blocks missing: ${lostBlocks.length}${lostBlocks.map((b) => `\n  ${b.split('\n')[1]}`).join('')}`);
console.log(`prose lines not found verbatim (read them): ${prose.length}${prose.map((l) => `\n  ${l}`).join('')}`);
process.exit(lostHeadings.length || lostBlocks.length ? 1 : 0);
