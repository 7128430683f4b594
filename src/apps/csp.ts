/**
 * The Content-Security-Policy a host builds for a View from the domains its resource declares
 * (`_meta.ui.csp`: connectDomains, resourceDomains, frameDomains, baseUriDomains), after the MCP Apps
 * specification (SEP-1865, "Content Security Policy Enforcement" and the restrictive default when `csp` is
 * omitted). A declared value enters the policy only when it is a plain origin source expression (scheme,
 * host with an optional leading `*.` and an optional port): anything else could add keywords or directives
 * to the policy, so it is dropped and listed in `refused`. The policy never loosens what is declared.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** scheme://host[:port], host possibly starting with `*.`; no path, no quotes, no separators. */
const SOURCE = /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*(?::(?:\d{1,5}|\*))?\/?$/;
const MAX_DOMAINS = 64;

export interface DerivedCsp {
  policy: string;
  /** The declared domains that entered the policy, per field. */
  declared: { connectDomains: string[]; resourceDomains: string[]; frameDomains: string[]; baseUriDomains: string[] };
  /** Declared values that are not plain origins (dropped). */
  refused: string[];
  /** True when the resource declared no `csp` at all (the restrictive default applies). */
  restrictiveDefault: boolean;
}

function domains(v: unknown, refused: string[]): string[] {
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const d of v.slice(0, MAX_DOMAINS)) {
    if (typeof d === 'string' && SOURCE.test(d)) out.push(d.replace(/\/$/, ''));
    else refused.push(typeof d === 'string' ? d.slice(0, 200) : JSON.stringify(d)?.slice(0, 200) ?? String(d));
  }
  return [...new Set(out)];
}

/** The `_meta.ui` object of a resources/read content (or of a listed resource). */
export function uiMetaOf(meta: unknown): Obj | undefined {
  return isObj(meta) && isObj(meta.ui) ? meta.ui : undefined;
}

export function deriveCsp(uiMeta: unknown): DerivedCsp {
  const ui = isObj(uiMeta) ? uiMeta : undefined;
  const csp = ui && isObj(ui.csp) ? ui.csp : undefined;
  const refused: string[] = [];
  const declared = {
    connectDomains: domains(csp?.connectDomains, refused),
    resourceDomains: domains(csp?.resourceDomains, refused),
    frameDomains: domains(csp?.frameDomains, refused),
    baseUriDomains: domains(csp?.baseUriDomains, refused),
  };
  const j = (xs: string[]) => (xs.length ? ' ' + xs.join(' ') : '');
  const res = j(declared.resourceDomains);
  const directives = csp
    ? [
        "default-src 'none'",
        `script-src 'self' 'unsafe-inline'${res}`,
        `style-src 'self' 'unsafe-inline'${res}`,
        `connect-src 'self'${j(declared.connectDomains)}`,
        `img-src 'self' data:${res}`,
        `font-src 'self'${res}`,
        `media-src 'self' data:${res}`,
        `frame-src ${declared.frameDomains.length ? declared.frameDomains.join(' ') : "'none'"}`,
        "object-src 'none'",
        `base-uri ${declared.baseUriDomains.length ? declared.baseUriDomains.join(' ') : "'self'"}`,
      ]
    : [
        // The specification's restrictive default, plus the directives a host may add to restrict further.
        "default-src 'none'",
        "script-src 'self' 'unsafe-inline'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "media-src 'self' data:",
        "connect-src 'none'",
        "frame-src 'none'",
        "object-src 'none'",
        "base-uri 'self'",
      ];
  return { policy: directives.join('; '), declared, refused, restrictiveDefault: !csp };
}

/** Is this URL covered by one of the declared connect origins (scheme, host with an optional `*.`, port)? */
export function declaredOrigin(url: string, declared: readonly string[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const defaultPort: Record<string, string> = { 'http:': '80', 'ws:': '80', 'https:': '443', 'wss:': '443' };
  return declared.some((d) => {
    const m = /^([a-z]+:)\/\/(\*\.)?([^:/]+)(?::(\d+|\*))?\/?$/i.exec(d);
    if (!m) return false;
    const [, scheme, wild, host, p] = m;
    // CSP: an http source also matches https, ws also wss (the upgrade), never the other way.
    const schemeOk = u.protocol === scheme!.toLowerCase() || (scheme === 'http:' && u.protocol === 'https:') || (scheme === 'ws:' && u.protocol === 'wss:');
    const h = u.hostname.toLowerCase();
    const hostOk = wild ? h.endsWith('.' + host!.toLowerCase()) : h === host!.toLowerCase();
    // No port in the source: the URL must use its scheme's default port (URL.port is then empty).
    const portOk = p === '*' || (p === undefined ? u.port === '' : (u.port || defaultPort[u.protocol]) === p);
    return schemeOk && hostOk && portOk;
  });
}
