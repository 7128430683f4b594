import { loadCatalog } from '../engine/catalog.js';
import { ownPackage } from '../engine/paths.js';
import { combine, type Report } from '../engine/runner.js';
import type { Finding, PartResult, Reason, RuleResult } from '../engine/types.js';
import { redact } from '../detectors/X-6-secret-exposure/patterns.js';
import { crossServerShadowing } from '../detectors/X-2-cross-server-shadowing/set.js';
import { setLegs, setTrifecta } from '../detectors/X-8-lethal-trifecta/set.js';
import { isTrifecta, legEvidence, toolList } from '../detectors/X-8-lethal-trifecta/legs.js';
import { buildLock, itemDrift, type SetLock } from '../facts/lock.js';
import type { ConfiguredServer, Discovery, ListedServer, ProbedServer, ScanSection } from '../facts/client-configs.js';
import { judgeConfig, secretsIn, type ScanFinding } from './judge.js';

/**
 * The scan's report: the same Report as `audit` and `probe` (JSON, Markdown, SARIF, exit codes), whose results
 * are the rules a configured set can break, each with a `static` part (the
 * configuration files, nothing started) and, for, a `dynamic` part (the set probed). Findings
 * sit in the configuration files (file:line), and `scan` lists every file looked at and every server found.
 */

export const SCAN_RULES = ['X-2', 'X-3', 'X-4', 'X-6', 'X-8'] as const;
/** The rules whose set-wide judgment needs the servers running. */
const DYNAMIC: readonly string[] = ['X-2', 'X-3', 'X-8'];
/** The rules the configuration files themselves can break. */
const STATIC: readonly string[] = ['X-2', 'X-3', 'X-4', 'X-6'];

// The report's scan section is declared with the configuration facts it lists (engine/runner's Report holds it).
export type { ListedServer, ScanSection } from '../facts/client-configs.js';

const maskUrl = (url: string): string => {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (/key|token|secret|auth|password|sig/i.test(k)) u.searchParams.set(k, '***');
    return u.href;
  } catch {
    return url.replace(/[?#].*$/, '?…');
  }
};

export function listServer(s: ConfiguredServer, p?: ProbedServer): ListedServer {
  const secretArgs = new Set(secretsIn(s).map((f) => String(f.data?.field)).filter((f) => f.startsWith('args[')));
  const args = (s.args ?? []).map((a, i) => (secretArgs.has(`args[${i}]`) ? (a.includes('=') ? `${a.slice(0, a.indexOf('=') + 1)}${redact(a.slice(a.indexOf('=') + 1))}` : redact(a)) : a));
  const tools = p?.facts ? p.facts.listed(p.facts.servingEra() ?? 'modern', 'tools/list').length : undefined;
  return {
    client: s.client,
    scope: s.scope,
    name: s.name,
    file: s.file,
    line: s.line,
    transport: s.transport,
    ...(s.command !== undefined ? { launch: [s.command, ...args].join(' ') } : {}),
    ...(s.url !== undefined ? { url: maskUrl(s.url) } : {}),
    ...(s.env && Object.keys(s.env).length ? { envKeys: Object.keys(s.env).sort() } : {}),
    ...(s.headers && Object.keys(s.headers).length ? { headerKeys: Object.keys(s.headers).sort() } : {}),
    ...(s.disabled ? { disabled: true } : {}),
    ...(p ? { probe: p.failure ?? 'answered' } : {}),
    ...(tools !== undefined && p && !p.failure ? { tools } : {}),
  };
}

const strip = ({ ruleId: _r, ...f }: ScanFinding): Finding => f;

function configPart(rule: string, d: Discovery, found: ScanFinding[]): PartResult {
  if (!d.servers.length) return { genre: 'static', state: 'not-applicable', reason: { code: 'no-configured-servers', data: { files: d.files.length } }, findings: [] };
  const mine = found.filter((f) => f.ruleId === rule).map(strip);
  return mine.length ? { genre: 'static', state: 'non-conforming', findings: mine } : { genre: 'static', state: 'present', findings: [] };
}

const at = (s: ConfiguredServer) => ({ file: s.file, line: s.line });

/** The set-wide part of, from the probed servers. */
function setPart(rule: string, d: Discovery, probed: readonly ProbedServer[] | undefined, lock: SetLock | undefined): PartResult {
  if (!d.servers.length) return { genre: 'dynamic', state: 'not-applicable', reason: { code: 'no-configured-servers', data: { files: d.files.length } }, findings: [] };
  if (!probed) return { genre: 'dynamic', state: 'could-not-judge', reason: { code: 'scan-not-probed' }, findings: [] };
  const ok = probed.filter((p) => p.facts);
  const failed = probed.filter((p) => !p.facts);
  const byServer = new Map(probed.map((p) => [p.label, p.server]));
  const findings: Finding[] = [];
  if (rule === 'X-2') {
    for (const h of crossServerShadowing(ok.map((p) => ({ server: p.label, facts: p.facts! })))) {
      const data: Finding['data'] = h.messageId === 'set-reference'
        ? { server: h.server, tool: h.tool, otherServer: h.otherServer, otherTool: h.otherTool, field: h.field ?? '' }
        : { server: h.server, tool: h.tool, otherServer: h.otherServer, otherTool: h.otherTool };
      findings.push({ messageId: h.messageId, data, location: at(byServer.get(h.server)!), evidence: h.evidence });
    }
  } else if (rule === 'X-8') {
    const s = setLegs(ok.map((p) => ({ server: p.label, facts: p.facts! })));
    for (const p of s.perServer) {
      if (!isTrifecta(p.legs)) continue;
      const tool = [...p.legs.outbound.map((x) => x.tool)].sort()[0]!;
      findings.push({ messageId: 'served-trifecta', data: { private: toolList(p.legs.private), untrusted: toolList(p.legs.untrusted), outbound: toolList(p.legs.outbound), tool: `${p.server}/${tool}` }, location: at(byServer.get(p.server)!), evidence: legEvidence(p.legs) });
    }
    const set = setTrifecta(s);
    if (set) {
      // The finding sits at the declaration of a server that can send the data out.
      const out = s.perServer.find((p) => p.legs.outbound.length > 0)?.server ?? set.servers[0]!;
      const first = byServer.get(out)!;
      findings.push({ messageId: 'set-trifecta', data: { private: toolList(s.all.private), untrusted: toolList(s.all.untrusted), outbound: toolList(s.all.outbound), servers: set.servers.join(', ') }, location: at(first), evidence: legEvidence(s.all) });
    }
  } else if (rule === 'X-3') {
    if (!lock) return { genre: 'dynamic', state: 'could-not-judge', reason: { code: 'no-set-lock' }, findings: [] };
    for (const p of ok) {
      const entry = lock.servers.find((e) => e.key === p.key);
      const now = buildLock(p.session!);
      if (!entry || !now) continue;
      for (const x of itemDrift(entry.items, now.items)) findings.push({ messageId: 'set-drift', data: { server: p.label, kind: x.kind, key: x.key, change: x.change }, location: at(p.server) });
    }
  }
  if (findings.length) return { genre: 'dynamic', state: 'non-conforming', findings };
  const reason: Reason | undefined = failed.length ? { code: 'scan-servers-unprobed', data: { count: failed.length, servers: failed.map((p) => p.label).slice(0, 5).join(', ') } } : undefined;
  if (reason) return { genre: 'dynamic', state: 'could-not-judge', reason, findings: [] };
  if (rule === 'X-3' && lock && !ok.some((p) => lock.servers.some((e) => e.key === p.key))) return { genre: 'dynamic', state: 'could-not-judge', reason: { code: 'no-set-lock' }, findings: [] };
  return { genre: 'dynamic', state: 'present', findings: [] };
}

const byLocation = (a: Finding, b: Finding): number =>
  (a.location?.file ?? '').localeCompare(b.location?.file ?? '') || (a.location?.line ?? 0) - (b.location?.line ?? 0) || a.messageId.localeCompare(b.messageId) || JSON.stringify(a.data).localeCompare(JSON.stringify(b.data));

/** Build the scan's report from what was discovered, and what the probe of the set recorded (when asked). */
export function scanReport(d: Discovery, opts: { probed?: ProbedServer[]; lock?: SetLock; rules?: readonly string[] } = {}): Report & { scan: ScanSection } {
  const catalog = loadCatalog();
  const found = judgeConfig(d.servers);
  const results: RuleResult[] = [];
  for (const rule of SCAN_RULES) {
    if (opts.rules?.length && !opts.rules.includes(rule)) continue;
    const meta = catalog.byId.get(rule)!;
    const parts: PartResult[] = [];
    if (STATIC.includes(rule)) parts.push(configPart(rule, d, found));
    if (DYNAMIC.includes(rule)) parts.push(setPart(rule, d, opts.probed, opts.lock));
    const c = combine(parts, 'any-unjudged');
    results.push({ ruleId: rule, state: c.state, severity: meta.severity, findings: [...c.findings].sort(byLocation), ...(c.reason ? { reason: c.reason } : {}), parts });
  }
  const probedBy = new Map(opts.probed?.map((p) => [p.server, p]) ?? []);
  const pkg = ownPackage();
  return {
    tool: { name: pkg.name, version: pkg.version },
    target: { kind: 'server', path: d.project },
    results,
    scan: {
      project: d.project,
      home: d.home,
      probed: !!opts.probed,
      files: d.files.map(({ path: _p, ...f }) => f),
      servers: d.servers.map((s) => listServer(s, probedBy.get(s))),
    },
  };
}
