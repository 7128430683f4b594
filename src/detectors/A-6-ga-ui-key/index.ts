import { fileNotReadData } from '../../facts/not-read.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import { SOURCE_LIMITS } from '../../facts/source-limits.js';
import type { Finding } from '../../engine/types.js';
import { appsListed } from '../support/apps/apps-support.js';

/**
 * the UI is linked with the GA key, `_meta.ui.resourceUri`.
 *
 * Static: the server's own code (not node_modules, not the built View) never writes the deprecated flat key
 * `_meta["ui/resourceUri"]` (or the SDK's constant for it, RESOURCE_URI_META_KEY) nor the old community id
 * `io.modelcontextprotocol/ui` as a `_meta` key; it links the View with `registerAppTool` or a nested
 * `ui: { resourceUri }`. The same id as a key of `capabilities.extensions` is the extension's declaration, not
 * a link, and is not judged.
 *
 * Dynamic: every App tool served in tools/list carries the nested key. `registerAppTool` of
 * @modelcontextprotocol/ext-apps 2.0.x also serves the flat key as a back-compatible copy next to the nested
 * one: that copy alone is not red (the standard names registerAppTool as the way to comply). A tool served
 * with the flat key only, or with the community id, is red.
 */

const CODE = /\.(?:[cm]?[jt]sx?)$/i;
/**
 * The scan is a regular expression per line, linear in the text: a file is read up to the limit of a bundle read
 * whole (64 MB), not the 2 MB of a parse. A published App ships View chunks of several MB (graph layouts, pdf.js,
 * three.js); at 2 MB each of them made the part could-not-judge file-not-read.
 */
const MAX_SOURCE_BYTES = SOURCE_LIMITS.bundleBytes;
const FLAT = /(['"`])ui\/resourceUri\1\s*\]?\s*:|\[\s*RESOURCE_URI_META_KEY\s*\]\s*:/;
const COMMUNITY = /(['"`])io\.modelcontextprotocol\/ui\1\s*\]?\s*:/;
const NESTED = /\bregisterAppTool\s*\(|\bresourceUri\s*:/;
const META = /_meta\b/;

export default [
  defineDetector({
    ruleId: 'A-6',
    genre: 'static',
    needs: ['repo'],
    messages: { 'flat-key-in-source': ['file', 'key'] },
    judge({ inputs: { repo } }) {
      const files = repo.files.filter((f) => CODE.test(f) && !f.endsWith('.d.ts') && !/(^|\/)(test|tests|__tests__|fixtures)\//.test(f));
      const findings: Finding[] = [];
      let nested = false;
      let unread: { file: string; cause: string; size?: number; limit?: number } | undefined;
      for (const file of files) {
        const r = repo.source(file, MAX_SOURCE_BYTES);
        if (!r.ok) {
          unread ??= { file, cause: r.cause, size: r.size, limit: r.limit };
          continue;
        }
        const lines = r.text.split('\n');
        lines.forEach((line, i) => {
          if (NESTED.test(line)) nested = true;
          if (FLAT.test(line)) findings.push({ messageId: 'flat-key-in-source', data: { file, key: 'ui/resourceUri' }, location: { file, line: i + 1 }, evidence: line.trim().slice(0, 200) });
          else if (COMMUNITY.test(line) && lines.slice(Math.max(0, i - 5), i + 1).some((l) => META.test(l))) {
            findings.push({ messageId: 'flat-key-in-source', data: { file, key: 'io.modelcontextprotocol/ui' }, location: { file, line: i + 1 }, evidence: line.trim().slice(0, 200) });
          }
        });
      }
      if (findings.length) return { state: 'non-conforming', findings };
      if (unread) return couldNotJudge('file-not-read', fileNotReadData(unread));
      if (!nested) return couldNotJudge('no-ui-link-in-source');
      return present();
    },
  }),
  defineDetector({
    ruleId: 'A-6',
    genre: 'dynamic',
    needs: ['session'],
    messages: {
      'flat-key-served': ['tool'],
      'community-key-served': ['tool'],
    },
    judge({ inputs: { session } }) {
      const got = appsListed(session);
      if ('state' in got) return got;
      const findings: Finding[] = [];
      for (const a of got.apps) {
        const keys = new Set(a.link.keys.map((k) => k.key));
        if (!keys.has('nested') && keys.has('flat')) findings.push({ messageId: 'flat-key-served', data: { tool: a.name }, evidence: JSON.stringify(a.tool._meta ?? null).slice(0, 200) });
        if (keys.has('community')) findings.push({ messageId: 'community-key-served', data: { tool: a.name }, evidence: JSON.stringify(a.tool._meta ?? null).slice(0, 200) });
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
