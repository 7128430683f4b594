import { posix } from 'node:path';
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
 * built) is no built View, nor is a file of tests, examples or dependencies.
 */

const NOT_SHIPPED_VIEW = /(^|\/)(node_modules|test|tests|__tests__|fixtures|examples?|docs?|templates?|coverage)\//;
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
  for (const [file, sf] of parsedSources(repo).files) {
    if (file.startsWith('node_modules/')) continue;
    for (const cn of rawOfKinds(sf, [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral], startsUiUri)) for (const n of fileNamesOf((cn as ts.StringLiteral).text)) names.add(n.toLowerCase());
  }
  const out: string[] = [];
  if (names.size) {
    for (const f of repo.files) {
      if (!/\.html?$/i.test(f) || NOT_SHIPPED_VIEW.test(f)) continue;
      const lower = f.toLowerCase();
      const base = posix.basename(lower);
      const tail = posix.join(posix.basename(posix.dirname(lower)), base);
      if (!names.has(base) && !names.has(tail)) continue;
      const r = repo.source(f, MAX_BUNDLE_BYTES);
      // A file that cannot be read is kept: the reading of the bundle tells it (file-not-read), never a pass.
      if (r.ok && SOURCE_SCRIPT.test(r.text)) continue;
      out.push(f);
    }
  }
  memo.set(repo, out);
  return out;
}

/** The built View files of the package: those of its build folders, else those named after a View's URI. */
export function builtViewFiles(repo: RepoFacts): string[] {
  const bundles = repo.files.filter(isBundleHtml);
  return bundles.length ? bundles : uriNamedViewFiles(repo);
}
