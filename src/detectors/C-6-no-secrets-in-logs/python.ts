import type { Node } from 'web-tree-sitter';
import { present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { callParts, constString, lastName, moduleConst, qualName, unparen, type PythonModel } from '../../facts/python-model.js';
import { allNodes, kids, lineOf, nodesWithin, type PythonFile } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { bare, localValue } from '../support/python/python-results.js';
import { isSecretName, MASKING, normName } from './names.js';

/**
 * C-6, static part on a Python server (called by static.ts when the source is Python only). The same two
 * looks and message ids as the JavaScript reading:
 *
 * Log statements — `logging.<level>(...)`, a level method (`debug`, `info`, `warning`, `error`,
 * `exception`, `critical`, `log`) on an object named log/logger (`logger`, `_log`, `self.logger`,
 * `logging.getLogger(...)`), `print(...)`, `sys.stderr.write(...)`, and MCP log notifications (FastMCP
 * `ctx.info(...)` and its siblings on `ctx`/`context`, `send_log_message(...)`) — that carry as a value
 * (an argument, a `%s` argument, an f-string interpolation, a concatenation, a dict value, through
 * `str`/`repr`/`json.dumps`/`.format`):
 *   - a secret-named value ('secret-in-log'): a name ending in token, password, passwd, secret, api_key,
 *     authorization, cookie, private_key, access_key or credentials (progress/page tokens excepted), an
 *     item or `.get(...)` with such a key, `os.getenv("..._TOKEN")`;
 *   - a request or the environment whole ('object-in-log'): `os.environ`, `request` / `req`, `headers`,
 *     `auth_info`.
 * A value only tested or measured (`len(token)`, `token is None`, `bool(token)`) is not logged, nor a
 * label or masked form (a name bound to a literal or to `mask(key)`, `key[:4]`, `"*" * 8`). Logger calls
 * (not print) are not flagged when a redacting `logging.Filter` is installed (`addFilter(...)` of a
 * class or function named like redact/mask/scrub/sanitize).
 *
 * Raw traces returned to the client ('stack-to-client') — `traceback.format_exc()` and the other
 * `traceback.format_*` (Python's `err.stack`) flowing, directly or through a local name, into a value a
 * tool returns (FastMCP) or a `TextContent(...)` ('content'), a `CallToolResult(structuredContent=...)`
 * ('structuredContent'), `McpError(...)` / `ErrorData(...)` ('protocol_error'), or an exception raised in
 * a tool handler, whose text the SDK returns as an error result ('thrown_error').
 */

const LEVELS = new Set(['debug', 'info', 'warning', 'warn', 'error', 'exception', 'critical', 'fatal', 'log']);
const CTX_LEVELS = new Set(['debug', 'info', 'warning', 'error', 'log']);
const LOGGER_NAME = /^_*(?:log|logger|LOG|LOGGER)$|_?logger$/i;
const WHOLE_OBJECTS = new Set(['req', 'request', 'headers', 'rawheaders', 'authinfo']);
const PASS_CALLS = new Set(['str', 'repr', 'format', 'dict', 'list', 'tuple', 'json.dumps', 'pprint.pformat', 'join']);
const SKIP_KW = new Set(['exc_info', 'stack_info', 'stacklevel', 'file', 'flush', 'level', 'logger']);
const TRACE_CALL = /^traceback\.(?:format_exc|format_exception|format_tb|format_stack|format_exception_only)$/;
const MAX_DEPTH = 8;
const MAX_TRACES = 200;
/** Uses of one local name followed from a trace. */
const MAX_USES = 20;


type Logged = { kind: 'secret' | 'object'; name: string };

/** `token[:4]`, `key[-4:]`: a few characters of a value, as a hint. */
function isShortCut(sub: Node): boolean {
  if (sub.type !== 'subscript') return false;
  const s = sub.childForFieldName('subscript');
  if (s?.type !== 'slice') return false;
  const parts = kids(s);
  const nums = parts.map((p) => Number(p.text.replace(/\s/g, '')));
  if (nums.length === 0 || nums.some(Number.isNaN)) return false;
  const colon = s.text.indexOf(':');
  const startGiven = parts[0] && parts[0].startIndex - s.startIndex < colon;
  const a = startGiven ? nums[0]! : 0;
  const b = startGiven ? nums[1] : nums[0];
  return a < 0 ? a >= -8 : b !== undefined && b - a <= 8;
}

/** A label or masked form rather than a secret: a literal, `mask(x)`, `x[:4]`, `"*" * 8`, an f-string of those. */
function labelOrMask(v: Node | undefined, file: PythonFile, depth = 0): boolean {
  if (!v || depth > 6) return false;
  const x = bare(v);
  if (['integer', 'float', 'none', 'true', 'false'].includes(x.type)) return true;
  if (x.type === 'string') {
    const parts = kids(x).filter((k) => k.type === 'interpolation');
    return parts.every((p) => labelOrMask(p.namedChild(0) ?? undefined, file, depth + 1));
  }
  if (x.type === 'concatenated_string') return kids(x).every((k) => labelOrMask(k, file, depth + 1));
  if (x.type === 'conditional_expression') {
    const [a, , b] = kids(x);
    return labelOrMask(a, file, depth + 1) && labelOrMask(b, file, depth + 1);
  }
  if (x.type === 'binary_operator') return labelOrMask(x.childForFieldName('left') ?? undefined, file, depth + 1) && labelOrMask(x.childForFieldName('right') ?? undefined, file, depth + 1);
  if (x.type === 'subscript') return isShortCut(x);
  if (x.type === 'call') {
    const p = callParts(x);
    const name = lastName(p ? qualName(p.fn, file) : undefined) ?? '';
    return MASKING.test(name);
  }
  if (x.type === 'identifier') return heldLabelOrMask(x, file, depth + 1);
  return false;
}

function heldLabelOrMask(id: Node, file: PythonFile, depth: number): boolean {
  const v = localValue(id.text, id) ?? moduleConst(file, id.text);
  return !!v && v.id !== id.id && labelOrMask(v, file, depth);
}

/** What a log argument carries as a value (see the file header). */
function loggedValues(arg: Node, file: PythonFile): Logged[] {
  const out: Logged[] = [];
  const consider = (name: string | undefined, node: Node, shown: string) => {
    if (!name) return;
    if (shown === 'os.environ' || (name === 'environ' && /(?:^|\.)environ$/.test(qualName(node, file) ?? ''))) out.push({ kind: 'object', name: 'os.environ' });
    else if (WHOLE_OBJECTS.has(normName(name))) out.push({ kind: 'object', name: shown.slice(0, 60) });
    else if (isSecretName(name) && !(node.type === 'identifier' && heldLabelOrMask(node, file, 0))) out.push({ kind: 'secret', name: shown.slice(0, 60) });
  };
  const visit = (n: Node | null | undefined, depth: number): void => {
    if (!n || depth > MAX_DEPTH) return;
    const x = bare(unparen(n));
    const shown = x.text.replace(/\s+/g, '');
    switch (x.type) {
      case 'identifier':
        return consider(x.text, x, shown);
      case 'attribute':
        return consider(x.childForFieldName('attribute')?.text, x, qualName(x, file) === 'os.environ' ? 'os.environ' : shown);
      case 'subscript': {
        if (isShortCut(x)) return;
        const key = constString(x.childForFieldName('subscript'), file);
        return consider(key, x, shown);
      }
      case 'call': {
        const p = callParts(x);
        if (!p) return;
        const q = qualName(p.fn, file) ?? '';
        const name = lastName(q) || (p.fn.type === 'attribute' ? p.fn.childForFieldName('attribute')?.text ?? '' : '');
        if (MASKING.test(name)) return;
        if (q === 'os.getenv' || q === 'os.environ.get' || (name === 'get' && p.fn.type === 'attribute')) {
          const key = constString(p.args[0], file);
          return consider(key, x, shown);
        }
        if (PASS_CALLS.has(q) || PASS_CALLS.has(name)) {
          for (const a of [...p.args, ...p.kw.values()]) visit(a, depth + 1);
          if (name === 'format' || name === 'join') visit(p.fn.childForFieldName('object'), depth + 1);
        }
        return;
      }
      case 'string':
        for (const k of kids(x)) if (k.type === 'interpolation') visit(k.namedChild(0), depth + 1);
        return;
      case 'concatenated_string':
      case 'list':
      case 'tuple':
      case 'set':
        for (const k of kids(x)) visit(k, depth + 1);
        return;
      case 'binary_operator':
        visit(x.childForFieldName('left'), depth + 1);
        visit(x.childForFieldName('right'), depth + 1);
        return;
      case 'conditional_expression': {
        const [a, , b] = kids(x);
        visit(a, depth + 1);
        visit(b, depth + 1);
        return;
      }
      case 'dictionary':
        for (const pair of kids(x)) if (pair.type === 'pair') visit(pair.childForFieldName('value'), depth + 1);
        return;
      default:
        return;
    }
  };
  visit(arg, 0);
  return out;
}

/** Is this call a log statement? Its callee as shown in messages. */
function logCall(p: { fn: Node; kw: Map<string, Node> }, file: PythonFile): string | undefined {
  const q = qualName(p.fn, file) ?? '';
  if (q === 'print') return 'print';
  if (q === 'sys.stderr.write') return 'sys.stderr.write';
  if (p.fn.type !== 'attribute') return undefined;
  const m = p.fn.childForFieldName('attribute')?.text ?? '';
  const recv = p.fn.childForFieldName('object');
  if (!recv) return undefined;
  const text = recv.text.replace(/\s+/g, '');
  if (m === 'send_log_message') return `${text}.${m}`.slice(0, 60);
  if (!LEVELS.has(m)) return undefined;
  if (q === `logging.${m}`) return q;
  const rname = recv.type === 'identifier' ? recv.text : recv.type === 'attribute' ? recv.childForFieldName('attribute')?.text ?? '' : '';
  if (LOGGER_NAME.test(rname)) return `${text}.${m}`.slice(0, 60);
  if (recv.type === 'call' && /(?:^|\.)getLogger\(\)$/.test(qualName(recv, file) ?? '')) return `logging.getLogger().${m}`;
  if ((rname === 'ctx' || rname === 'context') && CTX_LEVELS.has(m)) return `${text}.${m}`;
  return undefined;
}

/** A redacting filter installed on a logger or handler: `addFilter(RedactSecrets())`. */
function redactionConfigured(model: PythonModel): boolean {
  for (const file of model.sources.files.values()) {
    if (!/addFilter\s*\(/.test(file.text)) continue;
    for (const n of allNodes(file)) {
      if (n.type !== 'call') continue;
      const p = callParts(n);
      if (p?.fn.type === 'attribute' && p.fn.childForFieldName('attribute')?.text === 'addFilter' && p.args[0] && MASKING.test(p.args[0].text)) return true;
    }
  }
  return false;
}

const ERROR_CTORS = /^(?:McpError|MCPError|ErrorData|ProtocolError)$/;

/** Where a trace value ends up, climbing from it through its expression (and a local name it is assigned to). */
function traceSink(start: Node, file: PythonFile, toolFns: Set<string>, depth = 0): string | undefined {
  if (depth > 3) return undefined;
  let cur = start;
  for (let p = cur.parent; p; cur = p, p = p.parent) {
    switch (p.type) {
      case 'interpolation':
      case 'string':
      case 'concatenated_string':
      case 'binary_operator':
      case 'parenthesized_expression':
      case 'await':
      case 'list':
      case 'tuple':
      case 'dictionary':
      case 'pair':
      case 'argument_list':
      case 'expression_list':
      case 'conditional_expression':
        continue;
      case 'keyword_argument': {
        const call = p.parent?.parent;
        const q = call?.type === 'call' ? lastName(qualName(call.childForFieldName('function'), file)) : undefined;
        if (q === 'CallToolResult' && p.childForFieldName('name')?.text === 'structuredContent') return 'structuredContent';
        continue;
      }
      case 'call': {
        const f = p.childForFieldName('function');
        const fq = qualName(f, file) ?? '';
        const name = lastName(fq) || (f?.type === 'attribute' ? f.childForFieldName('attribute')?.text ?? '' : '');
        if (name === 'TextContent') return 'content';
        if (ERROR_CTORS.test(name)) return 'protocol_error';
        if (p.parent?.type === 'raise_statement') return inTool(p, toolFns) && /(?:Error|Exception)$/.test(name) ? 'thrown_error' : undefined;
        if (PASS_CALLS.has(fq) || PASS_CALLS.has(name) || name === 'CallToolResult') continue;
        return undefined;
      }
      case 'return_statement':
        return inFastTool(p, toolFns) ? 'content' : undefined;
      case 'assignment': {
        const left = p.childForFieldName('left');
        if (left?.type !== 'identifier' || p.childForFieldName('right')?.id !== cur.id) return undefined;
        const fn = enclosingFn(p);
        if (!fn) return undefined;
        for (const use of namesIn(file, fn).get(left.text) ?? []) {
          if (use.startIndex <= p.endIndex) continue;
          const s = traceSink(use, file, toolFns, depth + 1);
          if (s) return s;
        }
        return undefined;
      }
      default:
        return undefined;
    }
  }
  return undefined;
}

/** The identifiers of a function by name, indexed once per function (a trace's local name is looked up there). */
const namesMemo = new WeakMap<object, Map<number, Map<string, Node[]>>>();
function namesIn(file: PythonFile, fn: Node): Map<string, Node[]> {
  let perTree = namesMemo.get(fn.tree);
  if (!perTree) namesMemo.set(fn.tree, (perTree = new Map()));
  let m = perTree.get(fn.id);
  if (!m) {
    m = new Map();
    for (const n of nodesWithin(file, fn)) {
      if (n.type !== 'identifier') continue;
      const list = m.get(n.text);
      if (list) {
        if (list.length < MAX_USES) list.push(n);
      } else m.set(n.text, [n]);
    }
    perTree.set(fn.id, m);
  }
  return m;
}

function enclosingFn(n: Node): Node | undefined {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition') return p;
  return undefined;
}
const fnKey = (fn: Node): string => `${fn.startIndex}:${fn.endIndex}`;
/** Inside a tool handler (a FastMCP tool function or a low-level call_tool handler). */
const inTool = (n: Node, toolFns: Set<string>): boolean => {
  const fn = enclosingFn(n);
  return !!fn && (toolFns.has(fnKey(fn)) || toolFns.has(`fast:${fnKey(fn)}`));
};
/** Directly in a FastMCP tool function: its return value is the result. */
const inFastTool = (n: Node, toolFns: Set<string>): boolean => {
  const fn = enclosingFn(n);
  return !!fn && toolFns.has(`fast:${fnKey(fn)}`);
};

export function judgePythonLogs(repo: RepoFacts): Verdict {
  const m = pythonModelOrVerdict(repo);
  if (isVerdict(m)) return m;
  const model = m;
  const redacted = redactionConfigured(model);
  const toolFns = new Map<string, Set<string>>();
  for (const h of model.handlers) {
    if (h.kind !== 'tool') continue;
    const set = toolFns.get(h.file.rel) ?? new Set<string>();
    const fast = h.tools.some((t) => t.api === 'fastmcp');
    set.add(fast ? `fast:${fnKey(h.fn)}` : fnKey(h.fn));
    toolFns.set(h.file.rel, set);
  }
  const findings: Finding[] = [];
  for (const file of model.sources.files.values()) {
    const mine = toolFns.get(file.rel) ?? new Set<string>();
    let traces = 0;
    for (const n of allNodes(file)) {
      if (n.type !== 'call') continue;
      const p = callParts(n);
      if (!p) continue;
      const q = qualName(p.fn, file) ?? '';
      if (TRACE_CALL.test(q)) {
        // Bounded on hostile source: each trace may follow its local name through its function.
        const channel = ++traces <= MAX_TRACES ? traceSink(n, file, mine) : undefined;
        if (channel) findings.push({ messageId: 'stack-to-client', data: { channel }, location: { file: file.rel, line: lineOf(n) }, evidence: n.text.replace(/\s+/g, ' ').slice(0, 80) });
        continue;
      }
      const call = logCall(p, file);
      if (!call || (redacted && call !== 'print' && call !== 'sys.stderr.write')) continue;
      const seen = new Set<string>();
      const args = [...p.args, ...[...p.kw].filter(([k]) => !SKIP_KW.has(k)).map(([, v]) => v)];
      for (const arg of args) {
        for (const v of loggedValues(arg, file)) {
          const key = `${v.kind}:${v.name}`;
          if (seen.has(key)) continue;
          seen.add(key);
          findings.push({
            messageId: v.kind === 'secret' ? 'secret-in-log' : 'object-in-log',
            data: { name: v.name, call },
            location: { file: file.rel, line: lineOf(n) },
            evidence: n.text.replace(/\s+/g, ' ').slice(0, 120),
          });
        }
      }
    }
  }
  if (findings.length) return { state: 'non-conforming', findings };
  return unreadableVerdict(model) ?? present();
}
