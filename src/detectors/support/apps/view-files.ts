import { posix } from 'node:path';
import ignore from 'ignore';
import { SyntaxKind, ts } from '../../../facts/morph.js';
import { noteSourceRead } from '../../../facts/not-read.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { parsedSources, rawOfKinds } from '../../../facts/ts-source.js';
import { isBundleHtml, MAX_BUNDLE_BYTES } from './apps-support.js';

/**
 * The built HTML files of an App's Views (A-2, A-4, A-5 static, and the View code of app-source): the HTML files of
 * its build folders (`dist/`, `build/`, `out/`, `public/`, `ui-dist/`: isBundleHtml); without any, the HTML files the
 * package keeps in another folder (`ui/`, `web/`, `widgets/`, `assets/`…) that are named after a View the server's own
 * code names by URI: `ui://widget/search-apps.html` is served from a file `search-apps.html` of the package, and
 * `ui://flowhub/run-status` from `run-status.html` or `run-status/index.html`, however the code reaches the file (a
 * path kept in a table, a class field, a Map built at start). Only literal URIs are matched; a URI with a computed
 * name (`ui://widget/${name}.html`) names no file here (the reading of the server's code follows those:
 * embedded-view). A source entry (an HTML file whose script is a `.ts`/`.tsx`/`.jsx`/`.vue`/`.svelte` module, to be
 * built) is no built View, nor is a file of tests, examples, dependencies or development pages (`preview/`,
 * `playground/`, `demo/`, `dev/`, `stories/`), nor a file the package does not publish (outside its package.json
 * `files`, or matched by its `.npmignore`). When several files bear the View's name, those of a folder the server's
 * code names in a string (`path.join(dir, "ui", file)`) are taken, else all of them.
 */

export const NOT_SHIPPED_VIEW = /(^|\/)(node_modules|test|tests|__tests__|fixtures|examples?|docs?|templates?|coverage|preview|previews|playground|demos?|dev|stories|storybook|\.storybook)\//;

/**
 * Does the package publish this file? Read from package.json `files` (when it is a list) and `.npmignore` (when
 * there is no such list), with npm's gitignore-like patterns; a package.json that cannot be read tells nothing (kept).
 */
function publishedFilter(repo: RepoFacts): (rel: string) => boolean {
  const pkg = repo.has('package.json') ? repo.object('package.json') : undefined;
  const files = pkg?.ok ? pkg.value['files'] : undefined;
  if (Array.isArray(files) && files.length && files.every((f) => typeof f === 'string')) {
    const inc = ignore().add((files as string[]).map((f) => f.replace(/^\.?\//, '')));
    return (rel) => inc.ignores(rel);
  }
  if (repo.has('.npmignore')) {
    const t = repo.text('.npmignore');
    if (t.ok) {
      const exc = ignore().add(t.value);
      return (rel) => !exc.ignores(rel);
    }
  }
  return () => true;
}
const SOURCE_SCRIPT = /<script\b[^>]*\bsrc\s*=\s*["']?[^"'\s>]+\.(?:tsx?|jsx|vue|svelte)(?:[?#][^"'\s>]*)?["'\s>]/i;

const startsUiUri = (cn: ts.Node): boolean => (ts.isStringLiteral(cn) || ts.isNoSubstitutionTemplateLiteral(cn)) && cn.text.startsWith('ui://');

const memo = new WeakMap<RepoFacts, string[]>();

/** The file names a `ui://` URI may be served from (`search.html`; `run` → `run.html`, `run/index.html`). */
function fileNamesOf(uri: string): string[] {
  const path = uri.slice('ui://'.length).split(/[?#]/)[0]!;
  const segs = path.split('/').filter(Boolean);
  const last = segs.pop();
  if (!last || !segs.length) return last && /\.html?$/i.test(last) && !/^index\.html?$/i.test(last) ? [last] : [];
  // `ui://board/index.html`: the folder names the View, not the generic file name.
  if (/^index\.html?$/i.test(last)) return [`${segs[segs.length - 1]}/${last}`];
  return /\.html?$/i.test(last) ? [last] : [`${last}.html`, `${last}/index.html`];
}

/** HTML files of the package named after a `ui://` URI of the server's own code (memoised; see above). */
export function uriNamedViewFiles(repo: RepoFacts): string[] {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const names = new Set<string>();
  /** Every string literal of the server's own code, in lower case (the folders it reads Views from). */
  const strings = new Set<string>();
  const isString = (cn: ts.Node): boolean => ts.isStringLiteral(cn) || ts.isNoSubstitutionTemplateLiteral(cn);
  for (const [file, sf] of parsedSources(repo).files) {
    if (file.startsWith('node_modules/')) continue;
    for (const cn of rawOfKinds(sf, [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral], isString)) {
      const text = (cn as ts.StringLiteral).text;
      if (startsUiUri(cn)) for (const n of fileNamesOf(text)) names.add(n.toLowerCase());
      else if (text.length < 200) strings.add(text.toLowerCase());
    }
  }
  const out: string[] = [];
  if (names.size) {
    const published = publishedFilter(repo);
    /** Candidates per View name (the name matched: a basename or `folder/index.html`). */
    const byName = new Map<string, string[]>();
    for (const f of repo.files) {
      if (!/\.html?$/i.test(f) || NOT_SHIPPED_VIEW.test(f) || !published(f)) continue;
      const lower = f.toLowerCase();
      const base = posix.basename(lower);
      const tail = posix.join(posix.basename(posix.dirname(lower)), base);
      const name = names.has(tail) ? tail : names.has(base) ? base : undefined;
      if (!name) continue;
      const r = repo.source(f, MAX_BUNDLE_BYTES);
      // A file that cannot be read is kept: the reading of the bundle tells it (file-not-read), never a pass.
      if (r.ok && SOURCE_SCRIPT.test(r.text)) continue;
      byName.set(name, [...(byName.get(name) ?? []), f]);
    }
    for (const [name, fs] of byName) {
      if (fs.length < 2) {
        out.push(...fs);
        continue;
      }
      // Several files bear the name: those of a folder the code names (`"ui"`, `"public/widgets"`, `"../ui"`).
      const folderOf = (f: string): string => posix.dirname(f.toLowerCase()).slice(0, -(name.includes('/') ? posix.dirname(name).length + 1 : 0) || undefined);
      const named = fs.filter((f) => {
        const dir = folderOf(f);
        if (dir === '.' || dir === '') return false;
        return [...strings].some((t) => {
          const s = t.replace(/^(?:\.\.?\/)+/, '').replace(/\/+$/, '');
          return s !== '' && (dir === s || dir.endsWith(`/${s}`));
        });
      });
      out.push(...(named.length ? named : fs));
    }
    out.sort();
  }
  memo.set(repo, out);
  return out;
}

/** The built View files of the package: those of its build folders, else those named after a View's URI. */
export function builtViewFiles(repo: RepoFacts): string[] {
  const bundles = repo.files.filter(isBundleHtml);
  return bundles.length ? bundles : uriNamedViewFiles(repo);
}

/**
 * The Svelte and Vue single-file components of the package's View (not those of tests, stories, examples or
 * dependencies). A component of the project's own web site (`site/`, `website/`, `landing/`, `www/`: its home page,
 * built apart) is no part of the App's View unless a file outside those folders imports it by a relative path.
 */
export const COMPONENT_FILE = /\.(?:svelte|vue)$/;
const SITE_FOLDER = /(^|\/)(?:site|website|landing|www)\//;
const IMPORTER_FILE = /\.(?:svelte|vue|[cm]?[jt]sx?)$/;
const RELATIVE_COMPONENT_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"'\n]+\.(?:svelte|vue))["']/g;
export function componentFiles(repo: RepoFacts): string[] {
  const all = repo.files.filter((f) => COMPONENT_FILE.test(f) && !NOT_SHIPPED_VIEW.test(f) && !/\.(?:test|spec|stories)\.(?:svelte|vue)$/.test(f));
  if (!all.some((f) => SITE_FOLDER.test(f))) return all;
  // The site components the App's own files import (read only when there are such components).
  const imported = new Set<string>();
  for (const f of repo.files) {
    if (!IMPORTER_FILE.test(f) || SITE_FOLDER.test(f) || NOT_SHIPPED_VIEW.test(f) || /(^|\/)dist\//.test(f)) continue;
    const r = repo.source(f, MAX_BUNDLE_BYTES);
    if (!r.ok) continue;
    for (const m of r.text.matchAll(RELATIVE_COMPONENT_IMPORT)) imported.add(posix.normalize(posix.join(posix.dirname(f), m[1]!)));
  }
  return all.filter((f) => !SITE_FOLDER.test(f) || imported.has(f));
}
