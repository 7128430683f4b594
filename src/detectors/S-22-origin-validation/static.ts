import { Node, ts, type SourceFile } from '../../facts/morph.js';
import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import {
  answersStatusDeep,
  args,
  calleeName,
  enclosingFunction,
  hostLabel,
  httpTransports,
  isAllInterfaces,
  isCall,
  isHeaderRead,
  locationOf,
  propertyOf,
  readSources,
  remoteDeployment,
  sitesOf,
  rawCalleeName,
  rawNameText,
  type RawFilter,
  named,
  K,
  staticString,
  transportListenSites,
  isLoopback,
  type Site,
} from '../support/source/source-support.js';

/**
 * S-22, static part. On a source with a Streamable HTTP transport (SDK or hand-built): an Origin (or
 * Host) guard must run before dispatch — the SDK guards (localhostOriginValidation, originValidation,
 * hostHeaderValidation, originValidationResponse…, v1's enableDnsRebindingProtection or
 * createMcpExpressApp on a loopback host) or a hand-written read of the Origin header that answers 403.
 * A server not deployed remotely must listen on loopback: listen(port) without a host, or on 0.0.0.0 / ::,
 * binds every interface.
 */

const GUARD_CALLS = new Set([
  'localhostOriginValidation',
  'originValidation',
  'hostHeaderValidation',
  'localhostHostValidation',
  'originValidationResponse',
  'hostHeaderValidationResponse',
  'validateOriginHeader',
  'validateHostHeader',
]);

const RAW_CALLS: ReadonlySet<string> = new Set([...GUARD_CALLS, 'createMcpExpressApp']);

interface Guards {
  /** Guards that reject (SDK guard, DNS-rebinding option, or an Origin read answering 403). */
  rejecting: Site[];
  /** Hand-written Origin reads whose function never answers 403. */
  unanswered: Site[];
}

function originGuards(files: [string, SourceFile][]): Guards {
  const rejecting: Site[] = [];
  const unanswered: Site[] = [];
  const raw: RawFilter = named(
    new Set([...RAW_CALLS, 'enableDnsRebindingProtection', 'origin'].map((x) => x.toLowerCase())),
    (cn) =>
      ts.isCallExpression(cn) || ts.isNewExpression(cn)
        ? RAW_CALLS.has(rawCalleeName(cn) ?? '')
        : ts.isPropertyAssignment(cn)
          ? rawNameText(cn.name) === 'enableDnsRebindingProtection'
          : rawNameText(cn)?.toLowerCase() === 'origin',
  );
  const kinds = [...K.calls, ...K.properties, ...K.headerReads];
  for (const s of sitesOf(files, kinds, (n) => isCall(n) || Node.isPropertyAssignment(n) || isHeaderRead(n, 'origin'), raw)) {
    const n = s.node;
    if (isCall(n)) {
      const name = calleeName(n) ?? '';
      if (GUARD_CALLS.has(name)) rejecting.push(s);
      else if (name === 'createMcpExpressApp') {
        // v1: host validation is applied for a loopback host (the default) or an explicit allowedHosts list.
        const opts = args(n)[0];
        const hostNode = propertyOf(opts, 'host');
        const host = staticString(hostNode);
        if (propertyOf(opts, 'allowedHosts') || !hostNode || (host !== undefined && isLoopback(host))) rejecting.push(s);
      }
    } else if (Node.isPropertyAssignment(n)) {
      if (n.getName() === 'enableDnsRebindingProtection' && n.getInitializer()?.getText() === 'true') rejecting.push(s);
    } else {
      const fn = enclosingFunction(n) ?? n.getSourceFile();
      (answersStatusDeep(fn, 403) ? rejecting : unanswered).push(s);
    }
  }
  return { rejecting, unanswered };
}

export default defineDetector({
  ruleId: 'S-22',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'no-origin-check': ['transport'],
    'origin-not-rejected': [],
    'listen-without-host': [],
    'listen-all-interfaces': ['host'],
  },
  judge({ inputs: { repo } }): Verdict {
    const src = readSources(repo, { pythonPart: true });
    if ('verdict' in src) return src.verdict;
    const transports = httpTransports(src.files);
    if (transports.length === 0) return notApplicable('no-http-transport');
    const findings: Finding[] = [];
    const guards = originGuards(src.files);
    if (guards.rejecting.length === 0) {
      if (guards.unanswered.length > 0) {
        for (const g of guards.unanswered) findings.push({ messageId: 'origin-not-rejected', location: locationOf(g.file, g.node) });
      } else {
        for (const t of transports) findings.push({ messageId: 'no-origin-check', data: { transport: t.name }, location: locationOf(t.file, t.node) });
      }
    }
    for (const l of transportListenSites(src.files, transports)) {
      if (!remoteDeployment(repo, l.file)) {
        if (l.host.kind === 'none') findings.push({ messageId: 'listen-without-host', location: locationOf(l.file, l.node) });
        else if (l.host.kind === 'literal' && isAllInterfaces(l.host.value)) {
          findings.push({ messageId: 'listen-all-interfaces', data: { host: hostLabel(l.host) }, location: locationOf(l.file, l.node) });
        }
      }
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
