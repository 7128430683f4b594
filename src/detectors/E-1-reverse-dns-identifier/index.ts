import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { extensionSource } from '../../facts/extension-source.js';
import { isTestPath } from '../../facts/ts-source.js';
import { unreadable } from '../support/verdicts.js';

/**
 * E-1 — reverse-DNS identifier (static). Reads `identifier` in extension.json: `<prefix>/<name>` where the
 * prefix is a reversed domain of at least two dot-separated lowercase labels. When the organisation
 * policy lists allowed prefixes, the identifier starts with one of them (the reserved
 * `io.modelcontextprotocol/` prefix is always allowed). Also compares it with the literal identifiers
 * written in the extension's code and with the other extension manifests of the repository.
 */

const MANIFEST = 'extension.json';
const RESERVED_PREFIX = 'io.modelcontextprotocol/';
const LABEL = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
const WELL_FORMED = new RegExp(`^${LABEL}(?:\\.${LABEL})+/[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$`);

/** Does the identifier fall under an allowed prefix ("com.example/", "com.example." or "com.example")? */
function underPrefix(identifier: string, prefix: string): boolean {
  if (prefix.endsWith('/') || prefix.endsWith('.')) return identifier.startsWith(prefix);
  const head = identifier.split('/')[0]!;
  return head === prefix || head.startsWith(prefix + '.');
}

export default [
  defineDetector({
    ruleId: 'E-1',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'missing-identifier': ['file'],
      'malformed-identifier': ['file', 'identifier'],
      'prefix-not-allowed': ['file', 'identifier', 'prefixes'],
      'identifier-mismatch': ['file', 'identifier', 'manifest', 'declared'],
      'duplicate-identifier': ['file', 'identifier', 'other'],
    },
    judge({ inputs: { repo }, config }): Verdict {
      if (!repo.has(MANIFEST)) return couldNotJudge('file-missing', { file: MANIFEST });
      const ext = repo.object(MANIFEST);
      if (!ext.ok) return unreadable(ext);
      const id = ext.value.identifier;
      const line = repo.keyLine(MANIFEST, 'identifier') ?? 1;
      if (typeof id !== 'string' || id.trim() === '') {
        return { state: 'absent', findings: [{ messageId: 'missing-identifier', data: { file: MANIFEST }, location: { file: MANIFEST, line } }] };
      }
      const findings: Finding[] = [];
      const at = { file: MANIFEST, line };
      if (!WELL_FORMED.test(id)) {
        findings.push({ messageId: 'malformed-identifier', data: { file: MANIFEST, identifier: id }, location: at });
      }
      const prefixes = config.policy.extensionIdentifierPrefixes;
      if (prefixes.length && !id.startsWith(RESERVED_PREFIX) && !prefixes.some((p) => underPrefix(id, p))) {
        findings.push({ messageId: 'prefix-not-allowed', data: { file: MANIFEST, identifier: id, prefixes: prefixes.join(', ') }, location: at });
      }
      for (const code of extensionSource(repo).identifiers) {
        if (code.value !== id) {
          findings.push({
            messageId: 'identifier-mismatch',
            data: { file: code.file, identifier: code.value, manifest: MANIFEST, declared: id },
            location: { file: code.file, line: code.line, column: code.column },
          });
        }
      }
      for (const other of repo.files.filter((f) => f.endsWith('/' + MANIFEST) && !isTestPath(f))) {
        const o = repo.object(other);
        if (o.ok && o.value.identifier === id) {
          findings.push({
            messageId: 'duplicate-identifier',
            data: { file: other, identifier: id, other: MANIFEST },
            location: { file: other, line: repo.keyLine(other, 'identifier') ?? 1 },
          });
        }
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
