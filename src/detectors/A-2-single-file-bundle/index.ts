import { parse } from 'parse5';
import { fileNotReadData } from '../../facts/not-read.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { isBundleHtml, MAX_BUNDLE_BYTES, renderedApps, viewAttempts } from '../apps-support.js';

/**
 * the View is one self-contained file.
 *
 * Static: every built HTML bundle of the repository (`dist/`, `build/`, `out/`, `public/`) carries its scripts
 * and styles inline: a `<script src>` or a `<link href>` to a stylesheet or a preloaded module is a file the
 * host would have to fetch, and it cannot (the View is served as one resource). The HTML is parsed (parse5),
 * so a tag inside a comment or a string is not a tag.
 *
 * Dynamic: the rendered View (host harness, session.apps) tried no request at run time: neither to another
 * file of its own (a multi-file bundle) nor to any other origin, whether the CSP let it through or not — an
 * App that declares domains in its CSP metadata is rendered under that CSP but is still red here.
 */

const FETCHED_LINKS = new Set(['stylesheet', 'modulepreload', 'preload', 'prefetch', 'import']);

interface Node {
  nodeName: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node[];
  content?: Node;
  sourceCodeLocation?: { startLine: number } | null;
}

const attr = (n: Node, name: string) => n.attrs?.find((a) => a.name === name)?.value;
const inline = (u: string) => /^(data|blob):/i.test(u.trim()) || u.trim() === '';

/** External references of a parsed HTML document (tag, URL, line), in document order. */
export function externalReferences(html: string): { tag: string; url: string; line: number }[] {
  const out: { tag: string; url: string; line: number }[] = [];
  const walk = (n: Node) => {
    if (n.nodeName === 'script') {
      const src = attr(n, 'src');
      if (src !== undefined && !inline(src)) out.push({ tag: 'script', url: src, line: n.sourceCodeLocation?.startLine ?? 0 });
    } else if (n.nodeName === 'link') {
      const rel = (attr(n, 'rel') ?? '').toLowerCase().split(/\s+/);
      const href = attr(n, 'href');
      if (href !== undefined && !inline(href) && rel.some((r) => FETCHED_LINKS.has(r))) out.push({ tag: `link rel=${rel.join(' ')}`, url: href, line: n.sourceCodeLocation?.startLine ?? 0 });
    }
    for (const c of n.childNodes ?? []) walk(c);
    if (n.content) walk(n.content);
  };
  walk(parse(html, { sourceCodeLocationInfo: true }) as unknown as Node);
  return out;
}

export default [
  defineDetector({
    ruleId: 'A-2',
    genre: 'static',
    needs: ['repo'],
    messages: { 'bundle-references-file': ['file', 'tag', 'url'] },
    judge({ inputs: { repo } }) {
      const bundles = repo.files.filter(isBundleHtml);
      if (!bundles.length) return couldNotJudge('no-built-view');
      const findings: Finding[] = [];
      for (const file of bundles) {
        const r = repo.source(file, MAX_BUNDLE_BYTES);
        if (!r.ok) return couldNotJudge('file-not-read', fileNotReadData({ file, cause: r.cause, size: r.size, limit: r.limit }));
        for (const ref of externalReferences(r.text)) {
          findings.push({ messageId: 'bundle-references-file', data: { file, tag: ref.tag, url: ref.url.slice(0, 200) }, location: { file, line: ref.line }, evidence: ref.url.slice(0, 200) });
        }
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
  defineDetector({
    ruleId: 'A-2',
    genre: 'dynamic',
    needs: ['session'],
    messages: { 'view-requested': ['tool', 'origin', 'via'] },
    judge({ inputs: { session } }) {
      const got = renderedApps(session);
      if ('state' in got) return got;
      const findings: Finding[] = [];
      for (const v of got.rendered) {
        for (const a of viewAttempts(v)) findings.push({ messageId: 'view-requested', data: { tool: v.tool, origin: a.origin, via: a.kind ? `${a.via} (${a.kind})` : a.via }, evidence: a.url.slice(0, 300) });
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
