import { defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { unreadable } from '../support/verdicts.js';

/**
 * S-1 — stdio is always offered (static). Reads `transport` in mcp.json: an object `{ type }` or an
 * array of them; one of them must be `stdio`. HTTP transports beside it are fine.
 */
const MANIFEST = 'mcp.json';

/** The declared transport types, as written (a non-object entry is shown as its JSON). */
function declaredTypes(transport: unknown): string[] {
  const entries = Array.isArray(transport) ? transport : [transport];
  return entries.map((e) =>
    e && typeof e === 'object' && !Array.isArray(e) && typeof (e as { type?: unknown }).type === 'string'
      ? (e as { type: string }).type
      : JSON.stringify(e ?? null).slice(0, 60),
  );
}

export default [
  defineDetector({
    ruleId: 'S-1',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'missing-manifest': ['file'],
      'missing-transport': ['file'],
      'no-stdio-transport': ['file', 'declared'],
    },
    judge({ inputs: { repo } }) {
      if (!repo.has(MANIFEST)) {
        const pj = repo.has('package.json') ? 'package.json' : undefined;
        return {
          state: 'absent',
          findings: [{ messageId: 'missing-manifest', data: { file: MANIFEST }, location: pj ? { file: pj, line: 1 } : undefined }],
        };
      }
      const mcp = repo.object(MANIFEST);
      if (!mcp.ok) return unreadable(mcp);
      const transport = mcp.value.transport;
      const findings: Finding[] = [];
      if (transport === undefined || transport === null || (Array.isArray(transport) && transport.length === 0)) {
        findings.push({
          messageId: 'missing-transport',
          data: { file: MANIFEST },
          location: { file: MANIFEST, line: repo.keyLine(MANIFEST, 'transport') ?? 1 },
        });
      } else {
        const types = declaredTypes(transport);
        if (!types.includes('stdio')) {
          findings.push({
            messageId: 'no-stdio-transport',
            data: { file: MANIFEST, declared: types.join(', ') },
            location: { file: MANIFEST, line: repo.keyLine(MANIFEST, 'transport') ?? 1 },
          });
        }
      }
      return findings.length ? { state: 'absent', findings } : present();
    },
  }),
];
