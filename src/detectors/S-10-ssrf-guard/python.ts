import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import { pythonFlows } from '../../facts/python-flow.js';
import { FLOW_PLACEHOLDERS, flowFindings, isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';

/**
 * S-10 — outbound fetches guarded against SSRF, Python part (static). Follows each tool's (prompt's,
 * resource template's) arguments inside its function to requests / httpx (and their clients) / aiohttp /
 * urllib.request.urlopen / urllib3 (see src/facts/python-flow.ts). Green when the host is fixed by a literal
 * prefix or a literal base_url, or when the host of urlparse(url) (or the value itself) is tested against an
 * allowlist before the call. Red otherwise; a prefix or substring test on the raw URL is named as such.
 * The rule is conditional: when no argument reaches an outbound request, it does not apply.
 * Not covered here: DNS pinning, redirects, schemes (see the TypeScript part for those checks).
 */
export default defineDetector({
  ruleId: 'S-10',
  genre: 'static',
  needs: ['repo'],
  partial: true,
  messages: {
    'python-url-unchecked': FLOW_PLACEHOLDERS,
    'python-url-raw-check': FLOW_PLACEHOLDERS,
  },
  judge({ inputs: { repo } }) {
    const model = pythonModelOrVerdict(repo);
    if (isVerdict(model)) return model;
    const flows = pythonFlows(model, 'http');
    const findings = flowFindings(flows);
    if (findings.length) return { state: 'non-conforming', findings };
    const unread = unreadableVerdict(model);
    if (unread) return unread;
    if (model.handlers.length === 0) return notApplicable('no-python-tools');
    if (flows.length === 0) return notApplicable('python-no-argument-fetch');
    return present();
  },
});
