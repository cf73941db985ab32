#!/usr/bin/env node
// Unity .meta files for the package Packages/com.kind.retargeting.
//
// Unity imports an immutable package (git URL, tarball, registry: copied into Library/PackageCache) only
// through the .meta files it ships: it cannot write missing ones there, so every asset without a .meta
// is ignored. This tool writes the missing ones and checks the set:
//   node tools/unity-meta.mjs           write a .meta for every file and folder that lacks one (existing
//                                       .meta files are never touched, so their GUIDs never change);
//                                       then check as below
//   node tools/unity-meta.mjs --check   write nothing; exit 1 listing missing metas, orphan metas (no
//                                       asset next to them), malformed or duplicate GUIDs
//   [--package <dir>]                   another package folder (tests)
// Re-run it after adding a file or folder to the package and commit the new .meta with it.
//
// Rules (Unity's asset database): names starting with '.', ending with '~' (Samples~, Documentation~),
// 'cvs' and '*.tmp' are not assets and get no .meta; their contents neither (Unity ignores them; a
// sample gets its .meta files when the Package Manager copies it into Assets). New GUIDs are
// deterministic: md5("<package name>/<path in package>") as 32 lowercase hex digits, so two clones
// that each run the tool agree. The importer block follows the asset type, as Unity writes it:
//   folder         DefaultImporter, folderAsset: yes
//   .cs            MonoImporter
//   .asmdef        AssemblyDefinitionImporter        .asmref  AssemblyDefinitionReferenceImporter
//   package.json   PackageManifestImporter (the package root's only)
//   .uxml          ScriptedImporter with UI Toolkit's built-in UXML importer (script fileID 13804, guid
//                  0000000000000000e000000000000000, type 0)
//   .md .txt .json .xml .html .htm .bytes .csv .yaml .fnt   TextScriptImporter (TextAsset)
//   .mjs / .cjs    ScriptedImporter with PuerTS's MJSImporter / CJSImporter ([ScriptedImporter(1, "mjs")]
//                  in com.tencent.puerts.core Editor/Src; it imports the file as a TextAsset, which
//                  PuerTS's DefaultLoader reads through Resources.Load). The script GUIDs are those of
//                  the OpenUPM package com.tencent.puerts.core 2.0.5-2.2.2 (Editor/Src/MJSImporter.cs.meta,
//                  CJSImporter.cs.meta in github.com/chexiongsheng/puerts_unity_demo package/); a PuerTS
//                  unpacked from a release tarball gets other GUIDs, and Unity still picks the importer
//                  registered for the extension.
//   anything else  DefaultImporter
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const PUERTS_MJS_IMPORTER_GUID = '8d43858c69c697345882dca6cd2254d1';
export const PUERTS_CJS_IMPORTER_GUID = 'a55b3c957abcf784f889ef281a6abd00';
const TEXT_ASSET = new Set(['.md', '.txt', '.json', '.xml', '.html', '.htm', '.bytes', '.csv', '.yaml', '.fnt']);

/** True for names Unity's asset database skips (and everything below them). */
export function unityIgnores(name) {
  return name.startsWith('.') || name.endsWith('~') || name.toLowerCase() === 'cvs' || name.endsWith('.tmp');
}

/** Every asset (file or folder, relative path with '/') Unity imports from `dir`, parents first. */
export function listAssets(dir) {
  const out = [];
  const rec = (abs, rel) => {
    for (const name of readdirSync(abs).sort()) {
      if (unityIgnores(name) || name.endsWith('.meta')) continue;
      const a = path.join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      const isDir = statSync(a).isDirectory();
      out.push({ rel: r, isDir });
      if (isDir) rec(a, r);
    }
  };
  rec(dir, '');
  return out;
}

/** Every .meta file under `dir`, including ones inside folders Unity ignores (those are orphans too). */
export function listMetas(dir) {
  const out = [];
  const rec = (abs, rel) => {
    for (const name of readdirSync(abs).sort()) {
      const a = path.join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(a).isDirectory()) rec(a, r);
      else if (name.endsWith('.meta')) out.push(r);
    }
  };
  rec(dir, '');
  return out;
}

/** Deterministic GUID for an asset: md5 of "<package>/<relative path>", 32 lowercase hex digits. */
export function guidFor(packageName, rel) {
  return createHash('md5').update(`${packageName}/${rel}`).digest('hex');
}

/** The .meta text Unity writes for the asset `rel` (see the table at the top). */
export function metaText(rel, isDir, guid) {
  const head = `fileFormatVersion: 2\nguid: ${guid}\n`;
  const tail = '  userData: \n  assetBundleName: \n  assetBundleVariant: \n';
  if (isDir) return `${head}folderAsset: yes\nDefaultImporter:\n  externalObjects: {}\n${tail}`;
  const ext = path.extname(rel).toLowerCase();
  if (ext === '.cs') {
    return `${head}MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n${tail}`;
  }
  if (ext === '.asmdef') return `${head}AssemblyDefinitionImporter:\n  externalObjects: {}\n${tail}`;
  if (ext === '.asmref') return `${head}AssemblyDefinitionReferenceImporter:\n  externalObjects: {}\n${tail}`;
  if (rel === 'package.json') return `${head}PackageManifestImporter:\n  externalObjects: {}\n${tail}`;
  if (ext === '.mjs' || ext === '.cjs') {
    const script = ext === '.mjs' ? PUERTS_MJS_IMPORTER_GUID : PUERTS_CJS_IMPORTER_GUID;
    return `${head}ScriptedImporter:\n  internalIDToNameTable: []\n  externalObjects: {}\n  serializedVersion: 2\n${tail}  script: {fileID: 11500000, guid: ${script}, type: 3}\n`;
  }
  if (ext === '.uxml') {
    // UI Toolkit's UXML importer is built in: fileID 13804 of the built-in GUID, type 0 (as Unity writes it)
    return `${head}ScriptedImporter:\n  internalIDToNameTable: []\n  externalObjects: {}\n  serializedVersion: 2\n${tail}  script: {fileID: 13804, guid: 0000000000000000e000000000000000, type: 0}\n`;
  }
  if (TEXT_ASSET.has(ext)) return `${head}TextScriptImporter:\n  externalObjects: {}\n${tail}`;
  return `${head}DefaultImporter:\n  externalObjects: {}\n${tail}`;
}

/** The GUID line of a .meta text, or null. */
export function readGuid(text) {
  const m = /^guid: *(\S*) *$/m.exec(text);
  return m ? m[1] : null;
}

/**
 * Checks `dir`: returns a list of one-line problems (empty when every asset has a .meta, no .meta is
 * an orphan, and every GUID is 32 lowercase hex digits and unique).
 */
export function checkPackage(dir) {
  const problems = [];
  const assets = listAssets(dir);
  const assetSet = new Set(assets.map((a) => a.rel));
  for (const a of assets) {
    if (!existsSync(path.join(dir, `${a.rel}.meta`))) problems.push(`${a.rel}: no .meta (run node tools/unity-meta.mjs)`);
  }
  const seen = new Map();
  for (const m of listMetas(dir)) {
    const asset = m.slice(0, -'.meta'.length);
    if (!assetSet.has(asset)) {
      problems.push(`${m}: orphan .meta (no asset ${asset} that Unity imports)`);
      continue;
    }
    const guid = readGuid(readFileSync(path.join(dir, m), 'utf8'));
    if (guid === null || !/^[0-9a-f]{32}$/.test(guid)) problems.push(`${m}: guid '${guid}' is not 32 lowercase hex digits`);
    else if (seen.has(guid)) problems.push(`${m}: guid ${guid} already used by ${seen.get(guid)}`);
    else seen.set(guid, m);
  }
  return problems;
}

/** Writes the missing .meta files of `dir`; returns the relative paths written. Never rewrites one. */
export function writeMissing(dir) {
  const pkgName = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).name;
  const written = [];
  for (const a of listAssets(dir)) {
    const meta = path.join(dir, `${a.rel}.meta`);
    if (existsSync(meta)) continue;
    writeFileSync(meta, metaText(a.rel, a.isDir, guidFor(pkgName, a.rel)), { flag: 'wx' });
    written.push(`${a.rel}.meta`);
  }
  return written;
}

function main() {
  const argv = process.argv.slice(2);
  let dir = path.join(root, 'Packages/com.kind.retargeting');
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--check') check = true;
    else if (argv[i] === '--package') dir = path.resolve(argv[++i]);
    else {
      console.error(`unity-meta: unknown argument '${argv[i]}' (use --check, --package <dir>)`);
      process.exit(2);
    }
  }
  if (!existsSync(path.join(dir, 'package.json'))) {
    console.error(`unity-meta: ${dir} has no package.json`);
    process.exit(2);
  }
  if (!check) {
    const written = writeMissing(dir);
    for (const w of written) console.log(`wrote ${w}`);
    console.log(`unity-meta: ${written.length} .meta file(s) written`);
  }
  const problems = checkPackage(dir);
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log(`unity-meta: ${listAssets(dir).length} assets, each with one .meta and a unique GUID`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
