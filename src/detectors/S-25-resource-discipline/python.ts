import { notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { pythonFlows } from '../../facts/python-flow.js';
import { callParts, lastName, qualName } from '../../facts/python-model.js';
import { allNodes, lineOf, stringLiteral } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import { schemeProblem } from './scheme.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';

/**
 * S-25, static part on a Python server (called by index.ts when the source is Python).
 * Condition: the source registers resources (FastMCP `@mcp.resource(uri)`, low-level `@server.list_resources()`
 * / `read_resource()` / `list_resource_templates()` handlers, `types.Resource(...)` / `ResourceTemplate(...)`)
 * or builds binary content (`BlobResourceContents`, `ImageContent`, `AudioContent`). None of these, every
 * file read: not-applicable 'no-resources'.
 * Red, with the JavaScript part's message ids:
 *   - a resource function's URI parameter reaching a file or HTTP call with no sound check (facts/python-flow):
 *     'uri-not-validated', or 'uri-check-unsound' after a raw-string check;
 *   - a literal resource URI whose scheme breaks RFC 3986, or that has none;
 *   - `blob=` / `data=` filled with raw bytes (a bytes literal, a `.read()` / `.read_bytes()` result);
 *     a missing `mimeType`, or a literal one that is not type/subtype.
 * FastMCP encodes the bytes a resource function returns itself.
 */

const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:\s*;.*)?$/;
const LOWLEVEL_RESOURCE = /^\s*@[\w.]+\.(?:list_resources|read_resource|list_resource_templates)\b/m;
const BINARY: Record<string, { kind: 'resource' | 'image' | 'audio'; payload: string }> = {
  BlobResourceContents: { kind: 'resource', payload: 'blob' },
  ImageContent: { kind: 'image', payload: 'data' },
  AudioContent: { kind: 'audio', payload: 'data' },
};


export function judgePythonResources(repo: RepoFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  const findings: Finding[] = [];
  let resources = model.tools.some((t) => t.kind === 'resource');
  const uris: { uri: string; file: string; line: number }[] = model.tools.filter((t) => t.kind === 'resource').map((t) => ({ uri: t.name, file: t.file, line: t.call ? lineOf(t.call) : t.line }));
  for (const file of model.sources.files.values()) {
    if (LOWLEVEL_RESOURCE.test(file.text)) resources = true;
    for (const c of allNodes(file)) {
      if (c.type !== 'call') continue;
      const p = callParts(c);
      if (!p) continue;
      const name = lastName(qualName(p.fn, file)) ?? '';
      if (name === 'Resource' || name === 'ResourceTemplate') {
        resources = true;
        const u = stringLiteral(p.kw.get('uri') ?? p.kw.get('uriTemplate') ?? p.kw.get('uri_template'));
        if (u && !u.interpolated) uris.push({ uri: u.value, file: file.rel, line: lineOf(c) });
        continue;
      }
      const b = BINARY[name];
      if (!b) continue;
      resources = true;
      const payload = p.kw.get(b.payload);
      if (payload && (payload.type === 'string' && /^[bB]/.test(payload.text) || /\.(?:read|read_bytes)\(\)$/.test(payload.text) || /^bytes\(/.test(payload.text))) {
        findings.push({ messageId: 'binary-not-base64', data: { kind: b.kind }, location: { file: file.rel, line: lineOf(payload) } });
      }
      const mime = p.kw.get('mimeType') ?? p.kw.get('mime_type');
      if (!mime && p.splats.length === 0) findings.push({ messageId: 'missing-mime-type', data: { kind: b.kind }, location: { file: file.rel, line: lineOf(c) } });
      else if (mime) {
        const s = stringLiteral(mime);
        if (s && !s.interpolated && !MIME.test(s.value)) findings.push({ messageId: 'invalid-mime-type', data: { kind: b.kind, mimeType: s.value }, location: { file: file.rel, line: lineOf(mime) } });
      }
    }
  }
  if (!resources) return unreadableVerdict(model, { tools: false }) ?? notApplicable('no-resources');
  for (const u of uris) {
    const pr = schemeProblem(u.uri);
    if (!pr) continue;
    findings.push({ messageId: pr.kind === 'none' ? 'uri-without-scheme' : 'invalid-scheme', data: pr.kind === 'none' ? { uri: u.uri } : { uri: u.uri, scheme: pr.scheme }, location: { file: u.file, line: u.line } });
  }
  const seen = new Set<string>();
  for (const f of [...pythonFlows(model, 'file'), ...pythonFlows(model, 'http')]) {
    if (f.handlerKind !== 'resource' || !f.problem) continue;
    const key = `${f.file}:${f.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const raw = f.problem === 'path-raw-check' || f.problem === 'url-raw-check' || f.problem === 'path-prefix-without-separator' || f.problem === 'path-check-before-realpath';
    findings.push(
      raw
        ? { messageId: 'uri-check-unsound', data: { name: f.handler, call: f.sink, guardLine: f.guardLine ?? f.line }, location: { file: f.file, line: f.line }, evidence: f.evidence }
        : { messageId: 'uri-not-validated', data: { name: f.handler, call: f.sink }, location: { file: f.file, line: f.line }, evidence: f.evidence },
    );
  }
  findings.sort((a, b) => (a.location!.file < b.location!.file ? -1 : a.location!.file > b.location!.file ? 1 : a.location!.line! - b.location!.line!));
  if (findings.length) return { state: 'non-conforming', findings };
  return unreadableVerdict(model) ?? present();
}
