/**
 * C-15 fix: write the tool annotations a registration lacks, from what its handler does.
 *
 * What the handler does is read as C-15's static part reads it: the sinks its arguments reach (facts/flow
 * toolFlows) and the sink sites written in the handler (or its dispatcher branch) and in the functions of the
 * audited source it calls, two levels deep (facts/flow sinkSites). A hint is decided only when that reading
 * decides it:
 *   - readOnlyHint: false when the tool writes or deletes files, runs a command or sends a request that is not
 *     a GET; true when it does none of these and every call it makes is understood (a function of the audited
 *     source, a read sink, a standard built-in or a method of a plain value);
 *   - destructiveHint: true when it deletes files; false when it is read-only;
 *   - idempotentHint: true when it is read-only;
 *   - openWorldHint: true when it sends HTTP requests; false when it sends none, runs no command and every call
 *     is understood.
 * A hint left undecided is written with the value the specification gives an absent hint (readOnlyHint false,
 * destructiveHint true, idempotentHint false, openWorldHint true: what clients assume already), under a TODO
 * comment naming the question, so the declaration is complete and the question is left to a person.
 * Also: a hint written as the string "true"/"false" or the number 1/0 becomes the boolean.
 */
import { Node, ts } from '../facts/morph.js';
import { sinkSites, toolFlows, type SinkSite } from '../facts/flow.js';
import { findNodes, functionOf } from '../facts/scope.js';
import { objectLiteralOf, propertyValue, type ToolDef } from '../facts/server-model.js';
import { propertyName, unwrap, type ParsedSources } from '../facts/ts-source.js';
import { t } from '../engine/i18n.js';
import type { Finding } from '../engine/types.js';
import { httpMethod } from '../detectors/C-15-tool-annotations/static.js';
import { addProperty, type Fix, type FixerResult, type Skip, type TextEdit } from './edits.js';
import { findingsOf, inPython, targetOf, type Reading } from './reading.js';

export const C15_MESSAGES = ['missing-annotations-in-source', 'missing-hint-in-source', 'hint-not-boolean-in-source'] as const;

type Hint = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';
const HINTS: Hint[] = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
/** The value the specification gives a hint that is absent. */
const SPEC_DEFAULT: Record<Hint, boolean> = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/** Globals whose calls change nothing outside the call. */
const PURE_GLOBALS = /^(?:JSON|Math|Number|String|Boolean|Object|Array|Promise|Date|Symbol|BigInt|Intl|console|encodeURIComponent|decodeURIComponent|encodeURI|decodeURI|parseInt|parseFloat|isNaN|isFinite|structuredClone|Buffer|z)\b/;
/** Methods of plain values (strings, arrays, maps, responses) that change nothing outside the program. */
const PURE_METHODS = new Set([
  'map', 'filter', 'reduce', 'join', 'slice', 'split', 'trim', 'trimStart', 'trimEnd', 'toString', 'toFixed', 'includes', 'startsWith', 'endsWith',
  'replace', 'replaceAll', 'toUpperCase', 'toLowerCase', 'padStart', 'padEnd', 'find', 'findIndex', 'some', 'every', 'sort', 'flat', 'flatMap',
  'concat', 'keys', 'values', 'entries', 'text', 'json', 'at', 'indexOf', 'lastIndexOf', 'push', 'get', 'has', 'forEach', 'match', 'matchAll',
  'test', 'exec', 'localeCompare', 'toISOString', 'getTime', 'toJSON', 'then', 'catch', 'finally', 'describe', 'parse', 'safeParse', 'stringify',
  'reverse', 'fill', 'charAt', 'charCodeAt', 'codePointAt', 'normalize', 'repeat', 'substring', 'toLocaleString', 'valueOf',
]);
const WRITE_METHODS = new Set(['PUT', 'PATCH', 'DELETE', 'POST']);

interface Doing {
  write: boolean;
  delete: boolean;
  command: boolean;
  /** A request that is not a GET (or whose method is not a literal). */
  request: boolean;
  http: boolean;
  /** Some call the reading does not understand. */
  unknown: boolean;
}

type Span = { file: ts.SourceFile; start: number; end: number };

/** The handler's code (or its branch) and the functions of the audited source it calls, two levels deep; calls not understood are counted. */
function spansOf(tool: ToolDef, sources: ParsedSources, sites: Map<ts.Node, SinkSite>, doing: Doing): Span[] {
  const root = tool.branch ?? (tool.api === 'tools/list' || tool.api === 'definition' ? undefined : tool.handler);
  if (!root) {
    doing.unknown = true;
    return [];
  }
  const span = (n: Node): Span => ({ file: n.getSourceFile().compilerNode, start: n.getStart(), end: n.getEnd() });
  const spans: Span[] = [span(root)];
  const seen = new Set<Node>([root]);
  let frontier: Node[] = [root];
  for (let d = 0; d < 3 && frontier.length; d++) {
    const next: Node[] = [];
    for (const n of frontier) {
      for (const call of findNodes(n, (cn) => ts.isCallExpression(cn))) {
        if (!Node.isCallExpression(call)) continue;
        if (sites.has(call.compilerNode)) continue;
        const callee = unwrap(call.getExpression());
        const text = callee.getText();
        const fn = functionOf(call.getExpression(), sources);
        if (fn && sources.files.has(sources.rel(fn.getSourceFile()))) {
          if (seen.has(fn) || spans.some((s) => s.file === fn.getSourceFile().compilerNode && s.start <= fn.getStart() && fn.getEnd() <= s.end)) continue;
          if (d === 2) {
            doing.unknown = true; // deeper than the reading goes
            continue;
          }
          seen.add(fn);
          spans.push(span(fn));
          next.push(fn);
          continue;
        }
        if (PURE_GLOBALS.test(text)) continue;
        if (Node.isPropertyAccessExpression(callee) && PURE_METHODS.has(callee.getName())) continue;
        doing.unknown = true;
      }
    }
    frontier = next;
  }
  return spans;
}

function whatItDoes(tool: ToolDef, r: Reading): Doing {
  const sources = r.sources();
  const doing: Doing = { write: false, delete: false, command: false, request: false, http: false, unknown: false };
  for (const f of toolFlows(r.repo)) {
    if (f.entryKind !== 'tool' || f.tool !== tool.name) continue;
    if (f.sinkKind === 'fs' && f.access === 'write') doing.write = true;
    else if (f.sinkKind === 'fs' && f.access === 'delete') doing.delete = true;
    else if (f.sinkKind === 'shell' || f.sinkKind === 'process') doing.command = true;
    else if (f.sinkKind === 'http') doing.http = true;
  }
  const all = sinkSites(r.repo);
  const byNode = new Map(all.map((s) => [s.node.compilerNode, s]));
  const spans = spansOf(tool, sources, byNode, doing);
  for (const s of all) {
    const sf = s.node.getSourceFile().compilerNode;
    const pos = s.node.getStart();
    if (!spans.some((sp) => sp.file === sf && sp.start <= pos && pos < sp.end)) continue;
    if (s.family === 'fs' && s.access === 'write') doing.write = true;
    else if (s.family === 'fs' && s.access === 'delete') doing.delete = true;
    else if (s.family === 'process' || s.family === 'code') doing.command = true;
    else if (s.family === 'http' || s.family === 'browser') {
      doing.http = true;
      const m = httpMethod(s.node, sources);
      if (!m || WRITE_METHODS.has(m)) doing.request = true;
    }
  }
  return doing;
}

/** The hints the reading decides, given the ones the source already declares. */
function decide(d: Doing, declared: Partial<Record<Hint, boolean>>): Partial<Record<Hint, boolean>> {
  const out: Partial<Record<Hint, boolean>> = {};
  const changes = d.write || d.delete || d.command || d.request;
  const readOnly = declared.readOnlyHint ?? (changes ? false : !d.unknown ? true : undefined);
  if (readOnly !== undefined) out.readOnlyHint = readOnly;
  if (readOnly === true) {
    out.destructiveHint = false;
    out.idempotentHint = true;
  } else if (d.delete) out.destructiveHint = true;
  if (d.http) out.openWorldHint = true;
  else if (!d.unknown && !d.command) out.openWorldHint = false;
  return out;
}

/** The annotations object: declared hints kept, decided ones written, the others at the specification's default. */
function hintsText(missing: Hint[], decided: Partial<Record<Hint, boolean>>): { props: string[]; open: Hint[] } {
  const open = missing.filter((h) => decided[h] === undefined);
  return { props: missing.map((h) => `${h}: ${decided[h] ?? SPEC_DEFAULT[h]}`), open };
}

const todo = (r: Reading, open: Hint[]): string =>
  open.length ? `/* TODO(mcp-doctor): ${open.map((h) => t(r.locale, `fix.question.${h}`)).join(' ')} */ ` : '';

function declaredOf(obj: Node | undefined): Partial<Record<Hint, boolean>> {
  const out: Partial<Record<Hint, boolean>> = {};
  if (!obj || !Node.isObjectLiteralExpression(obj)) return out;
  for (const h of HINTS) {
    const v = propertyValue(obj, h);
    const u = v && unwrap(v);
    if (u && Node.isTrueLiteral(u)) out[h] = true;
    else if (u && Node.isFalseLiteral(u)) out[h] = false;
  }
  return out;
}

export function fixAnnotations(r: Reading): FixerResult {
  const fixes: Fix[] = [];
  const skips: Skip[] = [];
  const findings = findingsOf(r, 'C-15', C15_MESSAGES);
  if (!findings.length) return { fixes, skips };
  const model = r.model();
  const sources = r.sources();
  for (const f of findings) {
    const target = targetOf('C-15', f);
    if (inPython(f)) {
      skips.push({ target, reason: 'python' });
      continue;
    }
    const tool = toolOf(f, model.tools);
    if (!tool) {
      skips.push({ target, reason: 'not-found' });
      continue;
    }
    const file = tool.file;
    const text = r.text(file);
    if (text === undefined || !r.editable(file)) {
      skips.push({ target, reason: 'not-editable' });
      continue;
    }
    if (f.messageId === 'hint-not-boolean-in-source') {
      const fix = booleanHints(tool, sources, r, decide(whatItDoes(tool, r), {}));
      if (fix) fixes.push({ targets: [target], edits: fix });
      else skips.push({ target, reason: 'not-mechanical' });
      continue;
    }
    const obj = tool.annotationsNode ? objectLiteralOf(tool.annotationsNode, sources) : undefined;
    if (tool.annotationsNode && (!obj || obj.getProperties().some((p) => Node.isSpreadAssignment(p)))) {
      skips.push({ target, reason: 'not-literal' });
      continue;
    }
    const declared = declaredOf(obj);
    const decided = decide(whatItDoes(tool, r), declared);
    const at = obj ? sources.rel(obj.getSourceFile()) : file;
    if (!r.editable(at)) {
      skips.push({ target, reason: 'not-editable' });
      continue;
    }
    const atText = r.text(at)!;
    if (obj) {
      // missing-hint-in-source: the hints the object lacks.
      const keys = new Set(obj.getProperties().flatMap((p) => (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) ? [propertyName(p.getNameNode()) ?? ''] : [])));
      const missing = HINTS.filter((h) => !keys.has(h));
      if (!missing.length) continue;
      const { props, open } = hintsText(missing, decided);
      const last = obj.getProperties().at(-1);
      const edits = addProperty(atText, obj.getStart(), obj.getEnd(), last?.getEnd(), `${todo(r, open)}${props.join(', ')}`).map((e) => ({ ...e, file: at }));
      fixes.push({ targets: [target], edits, ...(open.length ? { questions: open } : {}) });
      continue;
    }
    const { props, open } = hintsText(HINTS, decided);
    const literal = `{ ${props.join(', ')} }`;
    const edits: TextEdit[] = [];
    if (tool.config) {
      const last = tool.config.getProperties().at(-1);
      edits.push(...addProperty(text, tool.config.getStart(), tool.config.getEnd(), last?.getEnd(), `${todo(r, open)}annotations: ${literal}`).map((e) => ({ ...e, file })));
    } else if (tool.api === 'tool' && Node.isCallExpression(tool.node) && tool.handler) {
      // SDK v1's positional form: the annotations go just before the handler.
      const args = tool.node.getArguments();
      const last = args.at(-1)!;
      edits.push({ file, start: last.getStart(), end: last.getStart(), text: `${todo(r, open)}${literal}, ` });
    } else {
      skips.push({ target, reason: 'not-mechanical' });
      continue;
    }
    fixes.push({ targets: [target], edits, ...(open.length ? { questions: open } : {}) });
  }
  return { fixes, skips };
}

function toolOf(f: Finding, tools: ToolDef[]): ToolDef | undefined {
  const name = f.data?.tool;
  const same = tools.filter((x) => x.name === name);
  return same.find((x) => x.file === f.location?.file && x.nameLine === f.location?.line) ?? same.find((x) => x.file === f.location?.file) ?? (same.length === 1 ? same[0] : undefined);
}

/**
 * A hint written as a string or a number becomes the boolean the flow reading decides for it, else the one it
 * spells ("true"/"false", 1/0); anything else (null, "yes") undecided is not mechanical.
 */
function booleanHints(tool: ToolDef, sources: ParsedSources, r: Reading, decided: Partial<Record<Hint, boolean>>): TextEdit[] | undefined {
  const obj = objectLiteralOf(tool.annotationsNode, sources);
  if (!obj) return undefined;
  const file = sources.rel(obj.getSourceFile());
  if (!r.editable(file)) return undefined;
  const edits: TextEdit[] = [];
  for (const h of HINTS) {
    const v = propertyValue(obj, h);
    const u = v && unwrap(v);
    if (!u) continue;
    let b: boolean | undefined;
    if (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u)) b = u.getLiteralText() === 'true' ? true : u.getLiteralText() === 'false' ? false : undefined;
    else if (Node.isNumericLiteral(u)) b = u.getLiteralValue() === 1 ? true : u.getLiteralValue() === 0 ? false : undefined;
    else if (!Node.isNullLiteral(u)) continue;
    b = decided[h] ?? b;
    if (b === undefined) return undefined;
    edits.push({ file, start: u.getStart(), end: u.getEnd(), text: String(b) });
  }
  return edits.length ? edits : undefined;
}
