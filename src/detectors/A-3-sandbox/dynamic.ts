import { defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { declaredOrigin, deriveCsp } from '../../apps/csp.js';
import { renderedApps } from '../support/apps/apps-support.js';

/**
 * the View stays in its sandbox (dynamic). The host harness renders the View in an opaque-origin iframe
 * and records, before the View's own code runs, every use of the browser APIs that reach outside it: storage
 * (localStorage, sessionStorage, indexedDB, cookies) and network (fetch, XMLHttpRequest, WebSocket,
 * EventSource, sendBeacon, WebRTC). It also keeps what the View posted to its parent that is not a JSON-RPC
 * message of the bridge. Talking to the host through `window.parent.postMessage` with JSON-RPC is the bridge
 * itself and is not judged here.
 * Two network uses stay inside: a `data:` or `blob:` URL (read in the page, no request leaves it — a View turning
 * a base64 payload into a Blob with `fetch('data:…')`), and a URL whose origin the View's resource declares in
 * `_meta.ui.csp.connectDomains` (the per-resource policy of the double-iframe model lets exactly those; the standard
 * counts a declared CSP respected as green). A network use to any other place is red, with the URL the browser saw.
 */

const NETWORK_APIS = new Set(['fetch', 'XMLHttpRequest', 'sendBeacon', 'WebSocket', 'EventSource']);

/** A network use that stays inside the View or goes where its resource declared it would. */
function allowedNetwork(api: string, detail: string | undefined, declared: readonly string[]): boolean {
  if (!NETWORK_APIS.has(api) || detail === undefined) return false;
  if (/^(data|blob):/i.test(detail.trim())) return true;
  return declaredOrigin(detail.trim(), declared);
}

export default defineDetector({
  ruleId: 'A-3',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'view-used-api': ['tool', 'api'],
    'view-posted-outside-bridge': ['tool', 'count'],
  },
  judge({ inputs: { session } }) {
    const got = renderedApps(session);
    if ('state' in got) return got;
    const findings: Finding[] = [];
    for (const v of got.rendered) {
      const seen = new Map<string, string | undefined>();
      const declared = deriveCsp(v.uiMeta).declared.connectDomains;
      for (const g of v.globals) if (!seen.has(g.api) && !allowedNetwork(g.api, g.detail, declared)) seen.set(g.api, g.detail);
      for (const [api, detail] of [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        findings.push({ messageId: 'view-used-api', data: { tool: v.tool, api }, ...(detail ? { evidence: detail.slice(0, 300) } : {}) });
      }
      if (v.parentMessages.length) findings.push({ messageId: 'view-posted-outside-bridge', data: { tool: v.tool, count: v.parentMessages.length }, evidence: v.parentMessages[0]!.data.slice(0, 200) });
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
