/**
 * A link checker for the project's Markdown (README.md and docs/*.md), with no network: every relative
 * link must name a file or folder that exists (relative to the Markdown file), and every `#anchor` a
 * heading of the target Markdown file, slugged as GitHub does (lower case; characters other than letters,
 * digits, `_`, `-` and spaces dropped; spaces to `-`; a repeated slug gets `-1`, `-2`, ...; source: the
 * github-slugger package GitHub's renderer follows). Links inside fenced blocks and inline code are not
 * links. External links (`http:`, `https:`, `mailto:`) are not fetched.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** One broken link: the Markdown file, its 1-based line, the link target and why it is broken. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** GitHub's anchor of a heading's text (inline code and link syntax reduced to their text first). */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '').replace(/ /g, '-');
}

/** The lines of a Markdown text outside fenced blocks, with inline code blanked (line numbers kept). */
function proseLines(text: string): string[] {
  let fence = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fence = !fence;
      return '';
    }
    return fence ? '' : line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
  });
}

/** The anchors of a Markdown file: its headings' slugs (with GitHub's `-n` suffixes) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    if (fence) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = githubSlug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  }
  return out;
}

/** Broken relative links and anchors of the given Markdown files (absolute paths). */
export function checkMarkdownLinks(files: string[]): BrokenLink[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let a = anchorCache.get(file);
    if (!a) {
      a = anchorsOf(fs.readFileSync(file, 'utf8'));
      anchorCache.set(file, a);
    }
    return a;
  };
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const lines = proseLines(fs.readFileSync(file, 'utf8'));
    lines.forEach((line, i) => {
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const hash = target.indexOf('#');
        const rel = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
        const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
        const dest = rel === '' ? file : path.resolve(path.dirname(file), rel);
        const where = { file, line: i + 1, target };
        if (!fs.existsSync(dest)) {
          broken.push({ ...where, reason: `no such file: ${path.relative(path.dirname(file), dest)}` });
          continue;
        }
        if (anchor === null || anchor === '') continue;
        if (!dest.endsWith('.md')) {
          broken.push({ ...where, reason: 'an anchor into a file that is not Markdown' });
          continue;
        }
        if (!anchors(dest).has(anchor))
          broken.push({
            ...where,
            reason: `no heading with the anchor #${anchor} in ${path.basename(dest)}`,
          });
      }
    });
  }
  return broken;
}
