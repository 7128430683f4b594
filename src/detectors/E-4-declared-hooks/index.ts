import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { extensionSource, type Member } from '../../facts/extension-source.js';
import { unreadable } from '../support/verdicts.js';

/**
 * E-4 — declared hooks match implemented hooks (static). The `lifecycle` list of extension.json
 * (snake_case: init, before_call, after_call, on_error, shutdown) must equal the set of hooks the code
 * implements (camelCase: init, beforeCall, afterCall, onError, shutdown), read from the objects passed to
 * `define*(...)` factories and from the names exported by the entry module(s) and `src/hooks/*`
 * (a hook file such as src/hooks/before-call.ts that default-exports a function implements beforeCall).
 */
const MANIFEST = 'extension.json';

/** Manifest name -> code name. */
const HOOKS: Record<string, string> = {
  init: 'init',
  before_call: 'beforeCall',
  after_call: 'afterCall',
  on_error: 'onError',
  shutdown: 'shutdown',
};
const KNOWN = Object.keys(HOOKS).join(', ');

/** The hooks the code implements: manifest name -> first place it is written. */
function implementedHooks(members: Member[]): Map<string, Member> {
  const out = new Map<string, Member>();
  for (const [manifestName, codeName] of Object.entries(HOOKS)) {
    const hits = members
      .filter((m) => m.name === codeName || m.name === codeName.toLowerCase())
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
    if (hits[0]) out.set(manifestName, hits[0]);
  }
  return out;
}

export default [
  defineDetector({
    ruleId: 'E-4',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'missing-lifecycle': ['file', 'hooks'],
      'lifecycle-not-a-list': ['file'],
      'unknown-hook': ['file', 'hook', 'known'],
      'duplicate-hook': ['file', 'hook'],
      'phantom-hook': ['file', 'hook', 'codeName'],
      'undeclared-hook': ['file', 'hook', 'manifest', 'manifestName'],
    },
    judge({ inputs: { repo } }): Verdict {
      if (!repo.has(MANIFEST)) return couldNotJudge('file-missing', { file: MANIFEST });
      const ext = repo.object(MANIFEST);
      if (!ext.ok) return unreadable(ext);
      const src = extensionSource(repo);
      if (src.defines.length === 0 && src.entryFiles.length === 0 && src.hookFiles.length === 0) {
        return couldNotJudge('extension-entry-not-found', { file: MANIFEST });
      }
      const implemented = implementedHooks([...src.defines.flatMap((d) => d.members), ...src.exports]);
      const lifecycleLine = repo.keyLine(MANIFEST, 'lifecycle') ?? 1;
      const lifecycle = ext.value.lifecycle;

      if (lifecycle === undefined || lifecycle === null) {
        if (implemented.size === 0) return present();
        return {
          state: 'absent',
          findings: [{ messageId: 'missing-lifecycle', data: { file: MANIFEST, hooks: [...implemented.keys()].join(', ') }, location: { file: MANIFEST, line: 1 } }],
        };
      }
      if (!Array.isArray(lifecycle)) {
        return { state: 'non-conforming', findings: [{ messageId: 'lifecycle-not-a-list', data: { file: MANIFEST }, location: { file: MANIFEST, line: lifecycleLine } }] };
      }

      const findings: Finding[] = [];
      const at = { file: MANIFEST, line: lifecycleLine };
      const declared = new Set<string>();
      for (const entry of lifecycle) {
        const hook = typeof entry === 'string' ? entry : JSON.stringify(entry);
        if (typeof entry !== 'string' || !Object.hasOwn(HOOKS, entry)) {
          findings.push({ messageId: 'unknown-hook', data: { file: MANIFEST, hook, known: KNOWN }, location: at });
        } else if (declared.has(entry)) {
          findings.push({ messageId: 'duplicate-hook', data: { file: MANIFEST, hook }, location: at });
        } else declared.add(entry);
      }
      for (const hook of declared) {
        if (!implemented.has(hook)) {
          findings.push({ messageId: 'phantom-hook', data: { file: MANIFEST, hook, codeName: HOOKS[hook]! }, location: at });
        }
      }
      for (const [hook, where] of implemented) {
        if (!declared.has(hook)) {
          findings.push({
            messageId: 'undeclared-hook',
            data: { file: where.file, hook: HOOKS[hook]!, manifest: MANIFEST, manifestName: hook },
            location: { file: where.file, line: where.line, column: where.column },
          });
        }
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
