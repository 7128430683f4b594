import { Node, type ObjectLiteralExpression, type SourceFile } from '../../facts/morph.js';
import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { sinkSites, toolFlows } from '../../facts/flow.js';
import { calleeReturns, propertyValue, serverModel } from '../../facts/server-model.js';
import { parsedSources, propertyName, stringValue, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { calleeName, isCall, K, locationOf, readSources, resolveValue, sitesOf, rawPropNamed } from '../support/source/source-support.js';

import { judgePythonResources } from './python.js';
import { schemeProblem } from './scheme.js';

export { schemeProblem } from './scheme.js';

/**
 * S-25 — resource URIs validated, binary content encoded (static).
 *
 * Condition: the source registers resources (server model: registerResource / resource / addResource /
 * addResourceTemplate, resources/* request handlers, resources/list entries), declares the resources
 * capability in its options (declaresResources), or serves prompts with image or audio content (a block in a
 * prompt message `{ role, content: { type: 'image', … } }` or in a prompt handler). Image or audio content a
 * tool returns does not meet it. Otherwise not-applicable 'no-resources'.
 *
 * Red:
 *   - 'uri-not-validated' / 'uri-check-unsound': a facts/flow flow from a resource handler's input (the `uri`
 *     and template `variables` of a template read callback, `request.params.uri` of a resources/read
 *     handler) reaches a file-system call with no sound confinement (none, or only a raw-string check), a
 *     record lookup on a data client (a table in SQL, a Drive file id, a Kubernetes object name: facts/flow
 *     'lookup' sinks) with no allowlist or anchored pattern on it, or an outbound request whose host is not
 *     written in the code, with no check at all;
 *   - 'uri-in-command': such a flow reaching a command line (the program launched, one of its arguments, a shell
 *     line: `kubectl get ${kind} ${name}` from `k8s://{namespace}/{kind}/{name}`) with no sound check (an allowlist,
 *     an anchored pattern): the program reads whatever object, file or option the client wrote in the URI;
 *   - 'invalid-scheme': a literal resource URI or URI template whose scheme breaks RFC 3986 (a letter, then
 *     letters, digits, `+`, `-`, `.`), or that has no scheme;
 *   - 'binary-not-base64': a resource `blob` or an image/audio block's `data` filled with raw bytes (a
 *     readFile result without encoding, a Buffer, a string decoded as utf8/binary/latin1/hex);
 *   - 'missing-mime-type' / 'invalid-mime-type': a `blob` resource content or an image/audio block without a
 *     `mimeType`, or with a literal one that is not `type/subtype`.
 * Values that cannot be read statically (a parameter, an unknown helper's result) are not judged.
 * Not read: whether an `https://` URI names content that clients can fetch themselves.
 */

/** Sinks that put a value on a command line: the program chosen, an argument of it, a shell line. */
const COMMAND_SINKS: ReadonlySet<string> = new Set(['process', 'argument', 'shell']);

const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:\s*;.*)?$/;

type Encoding = 'base64' | 'raw' | 'unknown';

const FS_READ = /^(readFile|readFileSync)$/;

/**
 * Whether a value is base64 text, raw bytes, or not known. A call to a function of the audited source
 * (`store.image(name)` on a singleton, a `loadBytes(p)` helper) is read from what that function returns:
 * raw when every return is raw bytes, base64 when any return is base64 text.
 */
function encodingOf(node: Node | undefined, sources: ParsedSources, depth = 0): Encoding {
  if (!node || depth > 6) return 'unknown';
  let n = unwrap(node);
  if (Node.isAwaitExpression(n)) n = unwrap(n.getExpression());
  if (Node.isIdentifier(n)) {
    if (/base64|b64/i.test(n.getText())) return 'base64';
    const v = resolveValue(n);
    return v && v !== n ? encodingOf(v, sources, depth + 1) : 'unknown';
  }
  if (Node.isPropertyAccessExpression(n) && /base64|b64/i.test(n.getName())) return 'base64';
  if (!isCall(n)) return 'unknown';
  const name = calleeName(n) ?? '';
  const a = n.getArguments();
  if (/base64|b64/i.test(name) || name === 'btoa') return 'base64';
  if (name === 'toString') {
    const enc = stringValue(a[0]);
    if (enc === 'base64') return 'base64';
    return enc === undefined && a.length > 0 ? 'unknown' : 'raw';
  }
  if (FS_READ.test(name)) {
    const opt = a[1] ? unwrap(a[1]) : undefined;
    const enc = opt ? (stringValue(opt) ?? (Node.isObjectLiteralExpression(opt) ? stringValue(propertyValue(opt, 'encoding')) : undefined)) : undefined;
    if (enc === 'base64') return 'base64';
    if (!opt || (enc !== undefined && enc !== 'base64')) return 'raw';
    return 'unknown';
  }
  if (name === 'from' && n.getExpression().getText().replace(/\s/g, '') === 'Buffer.from') return 'raw';
  if (Node.isNewExpression(n) && /^(Uint8Array|Buffer)$/.test(name)) return 'raw';
  if (Node.isCallExpression(n)) {
    const returned = calleeReturns(n, sources);
    const encodings = returned.map((r) => encodingOf(r, sources, depth + 1));
    if (encodings.includes('base64')) return 'base64';
    if (encodings.length > 0 && encodings.every((e) => e === 'raw')) return 'raw';
  }
  return 'unknown';
}

interface Block {
  file: string;
  obj: ObjectLiteralExpression;
  /** The property that carries the bytes ('blob' or 'data'). */
  payload: Node;
  kind: 'resource' | 'image' | 'audio';
}

function binaryBlocks(files: [string, SourceFile][]): Block[] {
  const out: Block[] = [];
  const props = sitesOf(files, K.properties, (n) => {
    if (!Node.isPropertyAssignment(n) && !Node.isShorthandPropertyAssignment(n)) return false;
    const k = propertyName(n.getNameNode());
    return k === 'blob' || k === 'data';
  }, rawPropNamed(new Set(['blob', 'data'])));
  for (const { file, node } of props) {
    if (!Node.isPropertyAssignment(node) && !Node.isShorthandPropertyAssignment(node)) continue;
    const obj = node.getParent();
    if (!Node.isObjectLiteralExpression(obj)) continue;
    const key = propertyName(node.getNameNode());
    const payload = Node.isPropertyAssignment(node) ? node.getInitializerOrThrow() : node.getNameNode();
    if (key === 'blob') {
      if (!propertyValue(obj, 'uri')) continue;
      out.push({ file, obj, payload, kind: 'resource' });
    } else {
      const type = stringValue(propertyValue(obj, 'type'));
      if (type !== 'image' && type !== 'audio') continue;
      out.push({ file, obj, payload, kind: type });
    }
  }
  return out;
}

const hasSpread = (o: ObjectLiteralExpression): boolean => o.getProperties().some((p) => Node.isSpreadAssignment(p));

/** The sink call's URL names its host in the code (`https://api.example.com/${id}`). */
function fixedHost(call: Node): boolean {
  if (!isCall(call)) return false;
  const a = call.getArguments()[0];
  if (!a) return false;
  let n: Node | undefined = unwrap(a);
  if (Node.isIdentifier(n)) n = resolveValue(n);
  if (!n) return false;
  if (Node.isNewExpression(n) && calleeName(n) === 'URL' && n.getArguments()[1]) {
    const first = stringValue(n.getArguments()[0]);
    return first !== undefined || Node.isTemplateExpression(n.getArguments()[0]!) ? fixedPrefix(n.getArguments()[1]) : false;
  }
  return fixedPrefix(n);
}

function fixedPrefix(node: Node | undefined): boolean {
  if (!node) return false;
  let n = unwrap(node);
  if (Node.isIdentifier(n)) n = resolveValue(n) ?? n;
  const s = stringValue(n);
  const head = s ?? (Node.isTemplateExpression(n) ? n.getHead().getLiteralText() : Node.isBinaryExpression(n) ? stringValue(n.getLeft()) : undefined);
  return head !== undefined && /^[a-z][a-z0-9+.-]*:\/\/[^/?#@{}]+[/?#]/i.test(head);
}

/**
 * The resources capability written in the source: a `resources` key in a `capabilities` object (a low-level
 * Server's options) or in the argument of `registerCapabilities(…)`. The rule's condition holds on it alone.
 */
function declaresResources(files: [string, SourceFile][]): boolean {
  return sitesOf(files, K.properties, (n) => {
    if (!Node.isPropertyAssignment(n) || propertyName(n.getNameNode()) !== 'resources') return false;
    const holder = n.getParent()?.getParent();
    if (Node.isPropertyAssignment(holder)) return propertyName(holder.getNameNode()) === 'capabilities';
    return !!holder && isCall(holder) && calleeName(holder) === 'registerCapabilities';
  }, rawPropNamed(new Set(['resources']))).length > 0;
}

function judge(repo: RepoFacts): Verdict {
  const src = readSources(repo, { pythonPart: true });
  if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? judgePythonResources(repo) : src.verdict;
  const files = src.files;
  const model = serverModel(repo);
  const blocks = binaryBlocks(files);
  const hasResources = model.resources.length > 0 || model.requestHandlers.some((r) => r.method.startsWith('resources/'));
  // The condition: resources, or prompts with image or audio content. An image a tool returns is neither.
  const promptFns = [...model.prompts.map((p) => p.handler), ...model.requestHandlers.filter((r) => r.method === 'prompts/get').map((r) => r.handler)].filter((f): f is NonNullable<typeof f> => !!f);
  const inPrompt = (b: Block): boolean => {
    const holder = b.obj.getParent();
    const message = holder && Node.isPropertyAssignment(holder) && propertyName(holder.getNameNode()) === 'content' ? holder.getParent() : undefined;
    if (message && Node.isObjectLiteralExpression(message) && propertyValue(message, 'role')) return true;
    return promptFns.some((f) => f.getSourceFile() === b.obj.getSourceFile() && f.getStart() <= b.obj.getStart() && b.obj.getEnd() <= f.getEnd());
  };
  if (!hasResources && !blocks.some((b) => b.kind !== 'resource' && inPrompt(b)) && !declaresResources(files)) return notApplicable('no-resources');
  const findings: Finding[] = [];

  // URIs dereferenced
  const sinks = sinkSites(repo);
  const seen = new Set<string>();
  for (const f of toolFlows(repo)) {
    if (f.entryKind !== 'resource' || f.guard === 'sound') continue;
    if (COMMAND_SINKS.has(f.sinkKind)) {
      // A value of the URI on a command line (`kubectl get ${kind} ${name}`, `helm get values ${release}`): the
      // program reads whatever object, file or option the client wrote there.
      const key = `${f.file}:${f.line}:${f.column}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push({ messageId: 'uri-in-command', data: { name: f.tool, call: f.sinkCall }, location: { file: f.file, line: f.line, column: f.column } });
      continue;
    }
    if (f.sinkKind !== 'fs' && f.sinkKind !== 'http' && f.sinkKind !== 'lookup') continue;
    if (f.sinkKind === 'http') {
      if (f.guard !== 'none') continue;
      const site = sinks.find((s) => s.file === f.file && s.line === f.line && s.column === f.column);
      if (!site || fixedHost(site.node)) continue;
    }
    const key = `${f.file}:${f.line}:${f.column}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const data = { name: f.tool, call: f.sinkCall };
    const location = { file: f.file, line: f.line, column: f.column };
    if (f.guard === 'none') findings.push({ messageId: 'uri-not-validated', data, location });
    else findings.push({ messageId: 'uri-check-unsound', data: { ...data, guardLine: f.guardAt?.line ?? f.line }, location });
  }

  // Schemes
  for (const r of model.resources) {
    if (r.uri === undefined) continue;
    const p = schemeProblem(r.uri);
    if (!p) continue;
    findings.push({
      messageId: p.kind === 'none' ? 'uri-without-scheme' : 'invalid-scheme',
      data: p.kind === 'none' ? { uri: r.uri } : { uri: r.uri, scheme: p.scheme },
      location: { file: r.file, line: r.line, column: r.column },
    });
  }

  // Binary content
  for (const b of blocks) {
    const at = locationOf(b.file, b.obj);
    if (encodingOf(b.payload, parsedSources(repo)) === 'raw') findings.push({ messageId: 'binary-not-base64', data: { kind: b.kind }, location: locationOf(b.file, b.payload) });
    const mime = propertyValue(b.obj, 'mimeType');
    if (!mime) {
      if (!hasSpread(b.obj)) findings.push({ messageId: 'missing-mime-type', data: { kind: b.kind }, location: at });
    } else {
      const s = stringValue(mime);
      if (s !== undefined && !MIME.test(s)) findings.push({ messageId: 'invalid-mime-type', data: { kind: b.kind, mimeType: s }, location: locationOf(b.file, mime) });
    }
  }

  findings.sort((a, b) => (a.location!.file < b.location!.file ? -1 : a.location!.file > b.location!.file ? 1 : a.location!.line! - b.location!.line!));
  return findings.length ? { state: 'non-conforming', findings } : present();
}

export default [
  defineDetector({
    ruleId: 'S-25',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'uri-not-validated': ['name', 'call'],
      'uri-check-unsound': ['name', 'call', 'guardLine'],
      'uri-in-command': ['name', 'call'],
      'invalid-scheme': ['uri', 'scheme'],
      'uri-without-scheme': ['uri'],
      'binary-not-base64': ['kind'],
      'missing-mime-type': ['kind'],
      'invalid-mime-type': ['kind', 'mimeType'],
    },
    judge({ inputs: { repo } }): Verdict {
      return judge(repo);
    },
  }),
];
