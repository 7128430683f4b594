import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { extensionSource, type DefineCall } from '../../facts/extension-source.js';
import { unreadable } from '../support/verdicts.js';

/**
 * E-3 — one extension, one type (static). `type` in extension.json is exactly one of middleware,
 * tool-extension or transport (a one-element array holding one of them is accepted). The code agrees:
 * the extension factories it calls (defineMiddleware, defineToolExtension, defineTransport) and the
 * members of the objects it passes them (interception hooks, added tools, transport functions) belong
 * to that one kind.
 */
const MANIFEST = 'extension.json';
const TYPES = ['middleware', 'tool-extension', 'transport'] as const;
type Kind = (typeof TYPES)[number];

/** Factories that define an extension (defineConfig and the like are not extensions). */
const EXTENSION_FACTORY = /^define\w*(?:Middleware|Extension|Transport|TransportAdapter)$/;

function calleeKind(callee: string): Kind | undefined {
  if (/Middleware$/.test(callee)) return 'middleware';
  if (/ToolExtension$|ToolsExtension$/.test(callee)) return 'tool-extension';
  if (/Transport(?:Adapter)?$/.test(callee)) return 'transport';
  return undefined;
}

const MEMBER_KIND: Record<string, Kind> = {
  beforeCall: 'middleware',
  afterCall: 'middleware',
  onError: 'middleware',
  tools: 'tool-extension',
  open: 'transport',
  send: 'transport',
  receive: 'transport',
  close: 'transport',
};

function kindsOf(d: DefineCall): Set<Kind> {
  const kinds = new Set<Kind>();
  const c = calleeKind(d.callee);
  if (c) kinds.add(c);
  for (const m of d.members) {
    const k = Object.hasOwn(MEMBER_KIND, m.name) ? MEMBER_KIND[m.name] : undefined;
    if (k) kinds.add(k);
  }
  return kinds;
}

export default [
  defineDetector({
    ruleId: 'E-3',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'missing-type': ['file'],
      'multiple-types': ['file', 'types'],
      'unknown-type': ['file', 'value', 'allowed'],
      'mixed-kinds': ['file', 'kinds'],
      'type-mismatch-code': ['file', 'found', 'manifest', 'declared'],
    },
    judge({ inputs: { repo } }): Verdict {
      if (!repo.has(MANIFEST)) return couldNotJudge('file-missing', { file: MANIFEST });
      const ext = repo.object(MANIFEST);
      if (!ext.ok) return unreadable(ext);
      const at = { file: MANIFEST, line: repo.keyLine(MANIFEST, 'type') ?? 1 };
      const raw = ext.value.type;
      const findings: Finding[] = [];
      let declared: Kind | undefined;
      let missing = false;
      if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '') || (Array.isArray(raw) && raw.length === 0)) {
        missing = true;
        findings.push({ messageId: 'missing-type', data: { file: MANIFEST }, location: at });
      } else if (Array.isArray(raw) && raw.length > 1) {
        findings.push({ messageId: 'multiple-types', data: { file: MANIFEST, types: raw.map((t) => (typeof t === 'string' ? t : JSON.stringify(t))).join(', ') }, location: at });
      } else {
        const value = Array.isArray(raw) ? raw[0] : raw;
        if (typeof value === 'string' && (TYPES as readonly string[]).includes(value)) declared = value as Kind;
        else {
          findings.push({
            messageId: 'unknown-type',
            data: { file: MANIFEST, value: typeof value === 'string' ? value : JSON.stringify(value), allowed: TYPES.join(', ') },
            location: at,
          });
        }
      }

      const defines = extensionSource(repo).defines.filter((d) => EXTENSION_FACTORY.test(d.callee));
      const all = new Set<Kind>();
      for (const d of defines) for (const k of kindsOf(d)) all.add(k);
      const first = defines.find((d) => kindsOf(d).size > 0);
      if (first && all.size > 1) {
        findings.push({
          messageId: 'mixed-kinds',
          data: { file: first.file, kinds: [...all].sort().join(', ') },
          location: { file: first.file, line: first.line, column: first.column },
        });
      } else if (first && declared && !all.has(declared)) {
        findings.push({
          messageId: 'type-mismatch-code',
          data: { file: first.file, found: [...all][0]!, manifest: MANIFEST, declared },
          location: { file: first.file, line: first.line, column: first.column },
        });
      }

      if (!findings.length) return present();
      return { state: missing ? 'absent' : 'non-conforming', findings };
    },
  }),
];
