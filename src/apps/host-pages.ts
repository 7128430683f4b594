/**
 * The two pages of our host, in the double-iframe model of the MCP Apps specification ("Sandbox proxy"):
 * the host page (its own origin) holds a sandbox proxy iframe of another origin (allow-scripts,
 * allow-same-origin), which loads the View in an inner iframe sandboxed with allow-scripts and allow-forms
 * only (an opaque origin: no storage, no access to either parent, no modals, no navigation of the top) and
 * served under the CSP derived from the resource's declared domains. The proxy relays every message between
 * the host and the View, except its own `ui/notifications/sandbox-*` ones.
 *
 * A message from the View reaches the host page as JSON text cut at MAX_RELAY characters, so a View cannot
 * push an unbounded or cyclic object across; the host page hands it to mcp-doctor through a Playwright binding.
 * These pages are our own code; nothing of the App runs in them.
 */

export const HOST_ORIGIN = 'http://host.mcp-doctor.test';
export const SANDBOX_ORIGIN = 'http://sandbox.mcp-doctor.test';
export const VIEW_PATH = '/view/';
export const MAX_RELAY = 1024 * 1024;
/** The View iframe's sandbox: scripts and forms; no same-origin, modals, popups, downloads or top navigation. */
export const VIEW_SANDBOX = 'allow-scripts allow-forms';
export const VIEW_WIDTH = 800;
export const VIEW_HEIGHT = 600;

export const hostPage = (): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcp-doctor host</title>
<style>html,body{margin:0;padding:0;background:#fff}iframe{border:0;display:block;width:${VIEW_WIDTH}px;height:${VIEW_HEIGHT}px}</style>
</head><body>
<iframe id="sandbox" title="MCP App" sandbox="allow-scripts allow-same-origin" src="${SANDBOX_ORIGIN}/sandbox.html"></iframe>
<script>
(() => {
  const frame = document.getElementById('sandbox');
  window.addEventListener('message', (e) => {
    if (e.source !== frame.contentWindow || e.origin !== ${JSON.stringify(SANDBOX_ORIGIN)}) return;
    const d = e.data;
    if (d && typeof d === 'object' && typeof d.relay === 'string') window.__mcpDoctorFromView(d.relay);
    else if (d && typeof d === 'object' && d.method === 'ui/notifications/sandbox-proxy-ready') window.__mcpDoctorSandboxReady();
  });
  window.__mcpDoctorToSandbox = (m) => { frame.contentWindow.postMessage(m, ${JSON.stringify(SANDBOX_ORIGIN)}); return true; };
  window.__mcpDoctorResize = (w, h) => {
    if (typeof w === 'number' && w > 0) frame.style.width = Math.min(w, 4000) + 'px';
    if (typeof h === 'number' && h > 0) frame.style.height = Math.min(h, 4000) + 'px';
    return true;
  };
})();
</script>
</body></html>
`;

export const sandboxPage = (): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcp-doctor sandbox proxy</title>
<style>html,body{margin:0;padding:0;height:100%}iframe{border:0;display:block;width:100%;height:100%}</style>
</head><body>
<script>
(() => {
  const HOST = ${JSON.stringify(HOST_ORIGIN)};
  const LIMIT = ${MAX_RELAY};
  let view = null;
  window.addEventListener('message', (e) => {
    if (e.source === window.parent && e.origin === HOST) {
      const m = e.data;
      if (m && m.method === 'ui/notifications/sandbox-resource-ready') {
        if (view) return;
        view = document.createElement('iframe');
        view.setAttribute('sandbox', String(m.params.sandbox));
        if (m.params.allow) view.setAttribute('allow', String(m.params.allow));
        view.setAttribute('title', 'MCP App view');
        view.src = String(m.params.src);
        document.body.appendChild(view);
        return;
      }
      if (view && view.contentWindow) view.contentWindow.postMessage(m, '*');
      return;
    }
    if (view && e.source === view.contentWindow) {
      let s;
      try { s = JSON.stringify(e.data); } catch (err) { s = JSON.stringify({ mcpDoctorUnserializable: String(err && err.name) }); }
      if (typeof s !== 'string') s = 'null';
      if (s.length > LIMIT) s = JSON.stringify({ mcpDoctorTruncated: s.length });
      window.parent.postMessage({ relay: s }, HOST);
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, HOST);
})();
</script>
</body></html>
`;

/** The Playwright binding through which the View's init script reports what it saw. */
export const OBSERVE_BINDING = '__mcpDoctorObserve';

/**
 * Runs in every frame before its own scripts (Playwright init script); acts only in a View. It records,
 * without changing what the View can do, the browser APIs that leave the sandbox (storage, network, cookies,
 * WebRTC), CSP violation reports, and the first contentful paint, and reports each at once through a binding
 * captured before the View's own code runs (a View that replaces the global later does not stop it). The View
 * runs in the same world and could add records of its own: these records only ever add evidence against it,
 * and the network guard, the browser's request events and the bridge log stand on their own.
 */
export const VIEW_INIT_SCRIPT = `(() => {
  try {
    if (self.origin !== 'null' || !location.href.startsWith(${JSON.stringify(SANDBOX_ORIGIN + VIEW_PATH)})) return;
  } catch (e) { return; }
  const report = window[${JSON.stringify(OBSERVE_BINDING)}];
  if (typeof report !== 'function') return;
  let n = 0;
  const t = () => Math.round(performance.now());
  const rec = (api, detail) => {
    if (++n > 500) return;
    try { report(JSON.stringify({ api: String(api), detail: detail === undefined ? undefined : String(detail).slice(0, 500), at: t() })); } catch (e) { /* gone */ }
  };
  const wrapGetter = (obj, name, api) => {
    try {
      const d = Object.getOwnPropertyDescriptor(obj, name);
      if (!d || !d.get) return;
      Object.defineProperty(obj, name, { configurable: true, enumerable: d.enumerable, get: function () { rec(api); return d.get.call(this); }, set: d.set });
    } catch (e) { /* leave it */ }
  };
  wrapGetter(window, 'localStorage', 'localStorage');
  wrapGetter(window, 'sessionStorage', 'sessionStorage');
  wrapGetter(window, 'indexedDB', 'indexedDB');
  wrapGetter(Document.prototype, 'cookie', 'document.cookie');
  const wrapFn = (obj, name, api, arg) => {
    try {
      const f = obj[name];
      if (typeof f !== 'function') return;
      obj[name] = function (...a) { rec(api, arg ? arg(a) : undefined); return f.apply(this, a); };
    } catch (e) { /* leave it */ }
  };
  const urlOf = (a) => { const x = a[0]; try { return typeof x === 'string' ? x : x && x.url ? x.url : String(x); } catch (e) { return '?'; } };
  wrapFn(window, 'fetch', 'fetch', urlOf);
  wrapFn(XMLHttpRequest.prototype, 'open', 'XMLHttpRequest', (a) => a[1]);
  wrapFn(Navigator.prototype, 'sendBeacon', 'sendBeacon', urlOf);
  for (const C of ['WebSocket', 'EventSource', 'RTCPeerConnection']) {
    try {
      const Orig = window[C];
      if (typeof Orig !== 'function') continue;
      const W = function (...a) { rec(C, C === 'RTCPeerConnection' ? undefined : urlOf(a)); return new Orig(...a); };
      W.prototype = Orig.prototype;
      Object.setPrototypeOf(W, Orig);
      window[C] = W;
    } catch (e) { /* leave it */ }
  }
  addEventListener('securitypolicyviolation', (e) => rec('csp:' + e.effectiveDirective, e.blockedURI), true);
  try {
    rec('paint:origin', Math.round(performance.timeOrigin));
    new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.name === 'first-contentful-paint') rec('paint:fcp', Math.round(e.startTime)); else if (e.name === 'first-paint') rec('paint:fp', Math.round(e.startTime)); }).observe({ type: 'paint', buffered: true });
  } catch (e) { /* no paint timing */ }
})();`;
