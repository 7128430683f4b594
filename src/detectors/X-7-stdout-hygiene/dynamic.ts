import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import type { ConnectionLabel } from '../../probe/session.js';

/**
 * clean stdout on stdio (dynamic part). Every line the probe read on stdout, on every connection,
 * must be a JSON-RPC 2.0 message; SessionFacts.noise() holds the ones that were not. One finding per
 * distinct line, the line itself as evidence. Not applicable to an HTTP session.
 */
/** The probe's own note for a line longer than its capture bound: not a line the server wrote as such. */
const DISCARDED = '[mcp-doctor: a line longer than the capture bound was discarded]';

export default defineDetector({
  ruleId: 'X-7',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'stdout-noise': ['era', 'connections'],
  },
  judge({ inputs: { session } }) {
    const target = session.session.target;
    if (target.transport !== 'stdio') return notApplicable('not-stdio-session', { transport: target.transport });
    const lines = new Map<string, ConnectionLabel[]>();
    for (const { label, line } of session.noise()) {
      if (line === DISCARDED) continue;
      const seen = lines.get(line) ?? [];
      if (!seen.includes(label)) seen.push(label);
      lines.set(line, seen);
    }
    if (lines.size === 0) {
      const read = session.session.connections.some((c) => c.messages.some((m) => m.dir === 'in'));
      return read ? present() : couldNotJudge('no-stdout-observed');
    }
    const findings: Finding[] = [...lines].map(([line, labels]) => ({
      messageId: 'stdout-noise',
      data: { era: labels[0]!, connections: labels.length },
      evidence: line,
    }));
    return { state: 'non-conforming', findings };
  },
});
