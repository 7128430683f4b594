import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { compareVersions, declaredPythonVersion, isLoopback, pythonHttpSetup } from '../../facts/python-model.js';
import { isVerdict, pythonModelOrVerdict } from '../support/python/python-support.js';

/**
 * S-22 — Origin validated on the HTTP transport, Python part (static).
 *
 * HTTP transport: `<server>.run(transport="streamable-http" | "sse" | "http")`, `<server>.streamable_http_app()`
 * / `sse_app()` / `http_app()` (mounted in Starlette or FastAPI), the low-level `StreamableHTTPSessionManager`
 * / `SseServerTransport`, or `uvicorn.run(...)`. Without any, the rule does not apply (stdio only); with a
 * transport chosen at run time (`run(transport=os.environ[...])`) it could not be judged.
 *
 * Origin check: `TransportSecuritySettings(...)` (the official SDK validates Origin and answers 403), a
 * hand-written check that reads the Origin header and answers 403, `TrustedHostMiddleware`, or the fastmcp
 * package's `allowed_origins=` / `host_origin_protection=True`. The official `mcp` package turns the check
 * on by itself for a FastMCP server whose host is loopback (the default, 127.0.0.1) since 1.23.0: then the
 * version locked or pinned in the repository decides, and without one the part could not be judged.
 *
 * Red: a listener on every interface (0.0.0.0, ::), the check switched off
 * (`enable_dns_rebinding_protection=False`), a low-level transport built without security settings, a
 * FastMCP server on a non-loopback host without settings, an SDK older than 1.23.0 relied upon, or an
 * HTTP server with no check at all.
 */

const ORIGIN_CHECK_SINCE = '1.23.0';
const ALL_INTERFACES = new Set(['0.0.0.0', '::', '', '[::]']);

export default defineDetector({
  ruleId: 'S-22',
  genre: 'static',
  needs: ['repo'],
  partial: true,
  messages: {
    'python-binds-all-interfaces': ['host', 'file'],
    'python-origin-check-disabled': ['file'],
    'python-no-origin-check': ['file'],
    'python-mcp-before-origin-check': ['version', 'file'],
  },
  judge({ inputs: { repo } }) {
    const model = pythonModelOrVerdict(repo);
    if (isVerdict(model)) return model;
    const s = pythonHttpSetup(model);
    if (s.transports.length === 0) {
      const u = s.unresolved[0];
      if (u) return couldNotJudge('python-transport-unresolved', { file: u.file, line: u.line });
      return notApplicable('python-no-http-transport');
    }
    const evidence = (file: string, line: number): string | undefined => {
      const t = repo.text(file);
      const l = t.ok ? t.value.split('\n')[line - 1]?.replace(/\s+#.*$/, '').trim() : undefined;
      return l ? (l.length > 160 ? l.slice(0, 157) + '…' : l) : undefined;
    };
    const findings: Finding[] = [];
    for (const b of s.binds) {
      if (ALL_INTERFACES.has(b.host)) findings.push({ messageId: 'python-binds-all-interfaces', data: { host: b.host, file: b.file }, location: { file: b.file, line: b.line } });
    }
    for (const d of s.disabled) findings.push({ messageId: 'python-origin-check-disabled', data: { file: d.file }, location: { file: d.file, line: d.line } });
    let unknown: ReturnType<typeof couldNotJudge> | undefined;
    if (s.checks.length === 0 && s.disabled.length === 0) {
      for (const t of s.bareTransports) findings.push({ messageId: 'python-no-origin-check', data: { file: t.file }, location: { file: t.file, line: t.line } });
      for (const srv of s.servers) {
        if (srv.explicitGuard) continue;
        const loopbackHost = srv.hostKnown && isLoopback(srv.host!);
        const at = s.transports.find((t) => t.server === srv.name) ?? { file: srv.file, line: srv.line };
        if (srv.pkg === 'fastmcp') {
          unknown ??= couldNotJudge('python-fastmcp-default-guard', { file: at.file, line: at.line });
          continue;
        }
        if (!srv.hostKnown) {
          unknown ??= couldNotJudge('python-host-unresolved', { file: at.file, line: at.line });
          continue;
        }
        if (!loopbackHost) {
          findings.push({ messageId: 'python-no-origin-check', data: { file: at.file }, location: { file: at.file, line: at.line } });
          continue;
        }
        const v = declaredPythonVersion(repo, 'mcp');
        if (!v) unknown ??= couldNotJudge('python-mcp-version-unknown', { file: at.file, line: at.line });
        else if (compareVersions(v.version, ORIGIN_CHECK_SINCE) < 0) {
          findings.push({ messageId: 'python-mcp-before-origin-check', data: { version: v.version, file: v.file }, location: { file: v.file, line: repo.lineOf(v.file, /\bmcp\b/) ?? 1 } });
        }
      }
      if (s.servers.length === 0 && s.bareTransports.length === 0) {
        const t = s.transports[0]!;
        // An ASGI app of its own served by uvicorn, with no check: red. A FastMCP method on a server object
        // created elsewhere (not `x = FastMCP(...)`): whether the SDK guards it depends on what it is.
        if (s.transports.every((x) => /^(?:uvicorn|hypercorn)\./.test(x.how))) {
          findings.push({ messageId: 'python-no-origin-check', data: { file: t.file }, location: { file: t.file, line: t.line } });
        } else unknown ??= couldNotJudge('python-mcp-version-unknown', { file: t.file, line: t.line });
      }
    }
    for (const f of findings) f.evidence = evidence(f.location!.file, f.location!.line!);
    if (findings.length) return { state: 'non-conforming', findings };
    if (unknown) return unknown;
    return present();
  },
});
