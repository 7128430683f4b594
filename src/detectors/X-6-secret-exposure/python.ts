import { defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { pythonEnvLeaks } from '../../facts/python-flow.js';
import type { PythonModel } from '../../facts/python-model.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict, visible } from '../support/python/python-support.js';

/**
 * secret exposure, Python part (static). Two checks:
 *   - hard-coded secrets in the Python source (code, strings and comments): AWS access key ids
 *     (AKIA…/ASIA…), GitHub tokens (ghp_…, gho_…, ghu_…, ghs_…, ghr_…, github_pat_…), Stripe live secret
 *     keys (sk_live_…, rk_live_…) and private key blocks (a PEM header followed by key material).
 *     Obvious placeholders (EXAMPLE, XXXX, YOUR_…, 0000…) are ignored;
 *   - a tool (prompt, resource) function that returns the environment (`os.environ`, `dict(os.environ)`,
 *     `json.dumps(dict(os.environ))`, in a TextContent…) or an environment variable named like a secret
 *     (`os.environ["GITHUB_TOKEN"]`, `os.getenv("OPENAI_API_KEY")`), directly or through variables.
 * Committed configuration files (.env, JSON) are the TypeScript part's business.
 */

interface SecretPattern {
  kind: 'aws' | 'github' | 'stripe' | 'pem';
  re: RegExp;
}
const SECRETS: SecretPattern[] = [
  { kind: 'aws', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'github', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { kind: 'stripe', re: /\b[sr]k_live_[0-9A-Za-z]{16,247}\b/g },
  { kind: 'pem', re: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/g },
];
const PLACEHOLDER = /EXAMPLE|XXXX|YOUR_?|PLACEHOLDER|REDACTED|0{8,}|(.)\1{11,}/i;

/** Key material after a PEM header: a run of 40+ base64 characters within the next few lines. */
function pemBody(text: string, at: number): boolean {
  const after = text.slice(at, at + 600).replace(/\\n/g, '\n');
  return /-----\s*(?:\n|["'])[\s\S]{0,80}?[A-Za-z0-9+/]{40,}/.test(after);
}

function hardCoded(model: PythonModel): Finding[] {
  const out: Finding[] = [];
  for (const f of model.sources.files.values()) {
    const lines = f.text.split('\n');
    lines.forEach((line, i) => {
      for (const p of SECRETS) {
        p.re.lastIndex = 0;
        for (const m of line.matchAll(p.re)) {
          if (p.kind === 'pem') {
            const offset = lines.slice(0, i).reduce((n, l) => n + l.length + 1, 0) + (m.index ?? 0);
            if (!pemBody(f.text, offset)) continue;
          } else if (PLACEHOLDER.test(m[0])) continue;
          out.push({
            messageId: 'python-hard-coded-secret',
            data: { kind: p.kind, file: f.rel },
            location: { file: f.rel, line: i + 1 },
            evidence: `${m[0].slice(0, p.kind === 'pem' ? 31 : 4)}…`,
          });
          break;
        }
      }
    });
  }
  return out;
}

export default defineDetector({
  ruleId: 'X-6',
  genre: 'static',
  needs: ['repo'],
  partial: true,
  messages: {
    'python-hard-coded-secret': ['kind', 'file'],
    'python-environment-returned': ['kind', 'handler'],
    'python-secret-variable-returned': ['kind', 'handler', 'variable'],
  },
  judge({ inputs: { repo } }) {
    const model = pythonModelOrVerdict(repo);
    if (isVerdict(model)) return model;
    const findings = hardCoded(model);
    for (const leak of pythonEnvLeaks(model)) {
      findings.push(
        leak.what === 'environment'
          ? { messageId: 'python-environment-returned', data: { kind: leak.handlerKind, handler: visible(leak.handler) }, location: { file: leak.file, line: leak.line }, evidence: leak.evidence }
          : {
              messageId: 'python-secret-variable-returned',
              data: { kind: leak.handlerKind, handler: visible(leak.handler), variable: leak.variable ?? '' },
              location: { file: leak.file, line: leak.line },
              evidence: leak.evidence,
            },
      );
    }
    if (findings.length) return { state: 'non-conforming', findings };
    const unread = unreadableVerdict(model);
    if (unread) return unread;
    return present();
  },
});

