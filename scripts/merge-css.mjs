// The stylesheets as one file. The sources stay one file per area
// (style/main.css, travel.css, …: index.html lists them for Trunk, which
// minifies each); the built page links one file holding them in the same
// order. Every page loads every stylesheet before its script runs, and each
// request costs the browser CPU while the page loads (a lesson link with one
// file instead of six, pairwise: 0.90, 1.04 and 0.92× open time). Run by
// post-build.mjs.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A stylesheet link as Trunk writes it: <link rel="stylesheet" href="/x-<hash>.css" integrity="…"/>
const LINK = /[ \t]*<link rel="stylesheet" href="\/([^"/]+\.css)"[^>]*>\n?/g;

/** Merges the stylesheets index.html links into one file; returns its name. */
export function mergeCss(dir) {
  const html = join(dir, 'index.html');
  const text = readFileSync(html, 'utf8');
  const files = [...text.matchAll(LINK)].map((m) => m[1]);
  if (files.length < 2) throw new Error(`${html}: expected Trunk's stylesheet links, found ${files.length}`);
  const css = files.map((f) => readFileSync(join(dir, f), 'utf8').trim()).join('\n');
  const name = `style-${createHash('sha256').update(css).digest('hex').slice(0, 16)}.css`;
  const integrity = `sha384-${createHash('sha384').update(css).digest('base64')}`;
  let first = true;
  const out = text.replace(LINK, (line) => {
    if (!first) return '';
    first = false;
    const indent = line.match(/^[ \t]*/)[0];
    return `${indent}<link rel="stylesheet" href="/${name}" integrity="${integrity}"/>\n`;
  });
  writeFileSync(join(dir, name), css);
  writeFileSync(html, out);
  for (const f of files) rmSync(join(dir, f));
  return name;
}
