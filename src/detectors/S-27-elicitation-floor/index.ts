import { Node, type ObjectLiteralExpression, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { constString, objectLiteralOf, propertyValue } from '../../facts/server-model.js';
import { parsedSources, propertyName, stringValue, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { calleeName, isCall, K, locationOf, readSources, resolveValue, sitesOf, rawCallNamed, rawPropNamed } from '../support/source/source-support.js';

import { judgePythonElicitation } from './python.js';
/**
 * S-27 — elicitation asks for nothing sensitive and works at the floor (static part).
 *
 * Condition: the source asks the user for input during a call. Elicitation sites are the object literals
 * that carry a `requestedSchema` (SDK v1 `server.elicitInput({ message, requestedSchema })`, v2
 * `inputRequired.elicit({ … })` and the deprecated `ctx.mcpReq.elicitInput`, a raw
 * `sendRequest({ method: 'elicitation/create', params })`) and hand-built input requests
 * `{ type: 'elicitation', schema }`. URL-mode elicitation (`mode: 'url'`, `inputRequired.elicitUrl`) is the
 * channel the specification gives for sensitive input and is not judged.
 *
 * Red:
 *   - 'sensitive-field': a field of the requested schema (JSON Schema `properties`, or a zod object) asks for
 *     a secret, a credential, payment or health data by its name, title, description or `.describe()` text;
 *   - 'mrtr-only-at-floor': the server builds multi round-trip elicitations (`inputRequired.elicit`) and turns
 *     the SDK's 2025 compatibility shim off (`inputRequired: { legacyShim: false }`), with no hand-written
 *     `elicitation/create` path (`elicitInput`, a raw request) and no declaration of the limit (a mention of
 *     elicitation in mcp.json or in the server `instructions`, or mcp.json `minProtocolVersion` above 2025-06-18).
 * could-not-judge 'elicitation-schema-unreadable' when elicitation is used but no requested schema could be read.
 */

export { sensitiveName, sensitiveText } from './sensitive.js';
import { sensitiveName, sensitiveText } from './sensitive.js';
import dynamicPart from './dynamic.js';


interface Field {
  name: string;
  node: Node;
  texts: string[];
}

/** The `.describe('…')` / `.meta({ description })` texts of a zod chain. */
function zodTexts(node: Node): string[] {
  const out: string[] = [];
  let n = unwrap(node);
  for (let i = 0; i < 12 && Node.isCallExpression(n); i++) {
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) break;
    if (callee.getName() === 'describe') {
      const s = constString(n.getArguments()[0])?.value;
      if (s) out.push(s);
    }
    n = unwrap(callee.getExpression());
  }
  return out;
}

/** The fields of a requested schema: JSON Schema properties or a zod object's shape; undefined when unreadable. */
function schemaFields(node: Node | undefined, sources: ParsedSources, depth = 0): Field[] | undefined {
  if (!node || depth > 4) return undefined;
  const n = unwrap(node);
  if (Node.isIdentifier(n)) {
    const v = objectLiteralOf(n, sources) ?? resolveValue(n);
    return v && v !== n ? schemaFields(v, sources, depth + 1) : undefined;
  }
  let shape: ObjectLiteralExpression | undefined;
  let json = false;
  if (Node.isObjectLiteralExpression(n)) {
    const props = propertyValue(n, 'properties');
    if (!props) return [];
    shape = objectLiteralOf(props, sources);
    json = true;
  } else if (Node.isCallExpression(n)) {
    // z.object({...}) and its modifiers
    let c: Node = n;
    for (let i = 0; i < 8 && Node.isCallExpression(c); i++) {
      const callee = unwrap(c.getExpression());
      if (!Node.isPropertyAccessExpression(callee)) break;
      if (/^(object|strictObject|looseObject)$/.test(callee.getName())) {
        shape = objectLiteralOf(c.getArguments()[0], sources);
        break;
      }
      c = unwrap(callee.getExpression());
    }
  }
  if (!shape) return undefined;
  const out: Field[] = [];
  for (const p of shape.getProperties()) {
    if (!Node.isPropertyAssignment(p)) continue;
    const name = propertyName(p.getNameNode());
    if (!name) continue;
    const v = unwrap(p.getInitializerOrThrow());
    const texts: string[] = [];
    if (json) {
      const o = objectLiteralOf(v, sources);
      for (const k of ['title', 'description']) {
        const s = constString(propertyValue(o, k))?.value;
        if (s) texts.push(s);
      }
    } else texts.push(...zodTexts(v));
    out.push({ name, node: p, texts });
  }
  return out;
}

interface Site {
  file: string;
  obj: ObjectLiteralExpression;
  schema: Node;
  /** Built with inputRequired.elicit (multi round-trip) rather than a 2025 request. */
  mrtr: boolean;
}

function elicitationSites(files: [string, SourceFile][]): Site[] {
  const out: Site[] = [];
  const props = sitesOf(files, K.properties, (n) => {
    if (!Node.isPropertyAssignment(n) && !Node.isShorthandPropertyAssignment(n)) return false;
    const k = propertyName(n.getNameNode());
    return k === 'requestedSchema' || k === 'schema';
  }, rawPropNamed(new Set(['requestedSchema', 'schema'])));
  for (const { file, node } of props) {
    if (!Node.isPropertyAssignment(node) && !Node.isShorthandPropertyAssignment(node)) continue;
    const obj = node.getParent();
    if (!obj || !Node.isObjectLiteralExpression(obj)) continue;
    const key = propertyName(node.getNameNode());
    const type = stringValue(propertyValue(obj, 'type'));
    if (key === 'schema' && type !== 'elicitation') continue;
    if (stringValue(propertyValue(obj, 'mode')) === 'url') continue;
    const schema = Node.isPropertyAssignment(node) ? unwrap(node.getInitializerOrThrow()) : node.getNameNode();
    const call = obj.getParent();
    const mrtr = key === 'schema' || (!!call && isCall(call) && calleeName(call) === 'elicit');
    out.push({ file, obj, schema, mrtr });
  }
  return out;
}

/** The 2025 path written by hand: elicitInput(...) or a request built with method 'elicitation/create'. */
function legacyElicitation(files: [string, SourceFile][]): boolean {
  return (
    sitesOf(files, K.call, (n) => isCall(n) && calleeName(n) === 'elicitInput', rawCallNamed(new Set(['elicitInput']))).length > 0 ||
    sitesOf(files, K.properties, (n) => Node.isPropertyAssignment(n) && propertyName(n.getNameNode()) === 'method' && stringValue(n.getInitializer()) === 'elicitation/create', rawPropNamed(new Set(['method']))).length > 0
  );
}

/** `inputRequired: { legacyShim: false }` in server options. */
function shimOff(files: [string, SourceFile][]): { file: string; node: Node } | undefined {
  const hits = sitesOf(files, K.properties, (n) => {
    if (!Node.isPropertyAssignment(n) || propertyName(n.getNameNode()) !== 'legacyShim') return false;
    return Node.isFalseLiteral(unwrap(n.getInitializerOrThrow()));
  }, rawPropNamed(new Set(['legacyShim'])));
  return hits[0];
}

/** The limit is declared: mcp.json mentions elicitation or raises its floor, or the instructions mention elicitation. */
function declared(repo: RepoFacts, files: [string, SourceFile][]): boolean {
  const mcp = repo.text('mcp.json');
  if (mcp.ok) {
    if (/elicit/i.test(mcp.value)) return true;
    const m = /"minProtocolVersion"\s*:\s*"(\d{4}-\d{2}-\d{2})"/.exec(mcp.value);
    if (m && m[1]! > '2025-06-18') return true;
  }
  return (
    sitesOf(files, K.properties, (n) => {
      if (!Node.isPropertyAssignment(n) || propertyName(n.getNameNode()) !== 'instructions') return false;
      const s = constString(n.getInitializerOrThrow())?.value;
      return !!s && /elicit/i.test(s);
    }, rawPropNamed(new Set(['instructions']))).length > 0
  );
}

function judge(repo: RepoFacts): Verdict {
  const src = readSources(repo, { pythonPart: true });
  if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? judgePythonElicitation(repo) : src.verdict;
  const files = src.files;
  const sources = parsedSources(repo);
  const sites = elicitationSites(files);
  const legacy = legacyElicitation(files);
  if (sites.length === 0 && !legacy) return notApplicable('no-elicitation');
  const findings: Finding[] = [];
  let readable = 0;
  for (const s of sites) {
    const fields = schemaFields(s.schema, sources);
    if (!fields) continue;
    readable++;
    for (const f of fields) {
      const what = sensitiveName(f.name) ?? f.texts.map(sensitiveText).find((x) => x !== undefined);
      if (!what) continue;
      const file = sources.rel(f.node.getSourceFile());
      findings.push({ messageId: 'sensitive-field', data: { field: f.name, data: what }, location: locationOf(file, f.node) });
    }
  }
  if (sites.some((s) => s.mrtr) && !legacy) {
    const off = shimOff(files);
    if (off && !declared(repo, files)) findings.push({ messageId: 'mrtr-only-at-floor', location: locationOf(off.file, off.node) });
  }
  if (findings.length) return { state: 'non-conforming', findings };
  if (readable === 0) return couldNotJudge('elicitation-schema-unreadable');
  return present();
}

export default [
  defineDetector({
    ruleId: 'S-27',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'sensitive-field': ['field', 'data'],
      'mrtr-only-at-floor': [],
    },
    judge({ inputs: { repo } }): Verdict {
      return judge(repo);
    },
  }),
  dynamicPart,
];
