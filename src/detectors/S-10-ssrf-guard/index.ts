import python from './python.js';
import { afterLoad, Node, ts, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { httpRequestOf, sinkSites, toolFlows, type Flow, type SinkSite } from '../../facts/flow.js';
import { clusterArguments, clusterLaunch, clusterLineValues, CONNECT_MODULES, KUBE_CLUSTER_METHODS, kubeClusterCall, SSH_MODULES, sshConnectModule, urlArgument } from '../../facts/flow/sinks.js';
import { readInside } from '../../facts/safe-read.js';
import { fileNotReadData } from '../../facts/not-read.js';
import { libraryRegions } from '../../facts/bundle-regions.js';
import { BROWSER_MODULES } from '../../facts/flow.js';
import { noToolsFound } from '../support/source/tool-absence.js';

const LAUNCHERS = new Set(['child_process', 'execa', 'cross-spawn']);
import { assignedValues, declarationOf as declaringIdentifier, fieldValues, findNodes, functionOf, importOf, isFunctionLike, moduleMember, originOf, rawOriginOf, valueOfDeclaration, GLOBAL } from '../../facts/scope.js';
import { serverModel } from '../../facts/server-model.js';
import { moduleSpecs, namedFilter, namesAnyModule, parsedSources, positionOf, propertyName, rawCalleeName, rawOfKinds, stringValue, unwrap, wrapNode } from '../../facts/ts-source.js';
import {
  args,
  calleeName,
  callersOf,
  declarationOf,
  enclosingFunction,
  initializerOf,
  locationOf,
  propertyOf,
  readSources,
  resolveValue,
  sitesOf,
  K,
  staticString,
} from '../support/source/source-support.js';

/**
 * S-10 — SSRF guard on outbound fetches (static). Applies when the source makes outbound HTTP requests
 * (facts/flow sink sites: fetch, http/https request/get, axios, got, undici, node-fetch, ky, and instances of
 * axios/got/ky wherever they are kept) or navigates a browser (page.goto and the like, in a package that uses
 * playwright, puppeteer, CDP or selenium).
 * A site is judged when its destination can be influenced:
 * - by a tool argument (facts/flow: a flow from a handler's arguments to the site) that reaches more than the
 *   path or query of a fixed origin (Flow.urlShape: `${BASE}/items/${encodeURIComponent(id)}`,
 *   `new URL(\`/items/${id}\`, BASE)`, a relative URL on an axios instance with a baseURL, any URL on a got or
 *   ky instance with a prefixUrl are not influenced; `new URL(path, BASE)` and `api.get(ref)` with a
 *   caller's absolute URL are), or
 * - by OAuth metadata: the URL is built from resource_metadata, authorization_servers, token_endpoint,
 *   jwks_uri (or another endpoint field of RFC 8414 / RFC 9728 metadata), followed here through local
 *   variables, templates, new URL() and the callers of the enclosing function.
 * A URL whose scheme and host are written in the code (`https://api.example.com/${path}`), or start with a
 * configured base the metadata does not reach followed by a path delimiter, is not influenced. For an
 * influenced site, in the enclosing functions (a callback runs after the checks around it), their callers and
 * the local helpers they call:
 * - an allowlist on the host (Set/array has/includes of u.hostname, a comparison with a listed name, the
 *   flow's own allowlist guard) or a maintained library's result (ipaddr.js, ip-address, is-ip,
 *   is-valid-domain, validator…) must decide — else the URL or host is unvalidated, or validated by
 *   hand-written code (IP regexes, prefix tests on addresses, a hand-kept list of private addresses);
 * - a library check on a host name needs the name resolved (dns lookup / resolve) and every address checked;
 * - redirects must be off: fetch/ky with redirect 'manual' or 'error', axios with maxRedirects: 0, got with
 *   followRedirect: false, in the call's options or the instance's configuration (node http/https and
 *   undici.request do not follow redirects). A browser navigation's redirects are not judged: a browser
 *   follows them by itself and has no option to turn them off.
 * A navigation or connection no flow reaches is traced to a tool's argument (toolObjectInput) through the handler of a
 * tool object (`{ name, inputSchema, handle: async (ctx, args) => … }`, also a function declaration handed by name beside a
 * schema object it refers to: `{ schema: navigateSchema, handle: handleNavigate }`), or through the `execute`/`handle`
 * method of a tool class whose fields name it and hold its schema (`name = 'navigate_to'; inputSchema = schema;`), the
 * argument read as a member or destructured from its validation (`const { url } = this.parseParams(schema, params)`,
 * `schema.parse(args)`): only when the literal name is there and the schema declares the member read.
 */

const OAUTH_FIELDS = new Set([
  'resource_metadata',
  'authorization_servers',
  'token_endpoint',
  'jwks_uri',
  'authorization_endpoint',
  'registration_endpoint',
  'introspection_endpoint',
  'revocation_endpoint',
  'userinfo_endpoint',
  'device_authorization_endpoint',
  'pushed_authorization_request_endpoint',
]);
const LIBRARIES = ['ipaddr.js', 'ip-address', 'is-ip', 'is-valid-domain', 'validator', 'ip-range-check', 'private-ip', 'is-localhost-ip', 'ssrf-req-filter', 'request-filtering-agent', 'netmask', 'ip-cidr'];
/** Libraries that resolve and check the addresses they connect to. */
const RESOLVING_LIBRARIES = new Set(['ssrf-req-filter', 'request-filtering-agent']);
const ADDRESS_LITERAL = /^(\d{1,3}\.|\d+$|0x|localhost$|::1?$|\[::|f[cde][0-9a-f]{0,2}:|fe80|169\.254|metadata\.(google\.internal|amazonaws\.com))/i;
const ADDRESS_REGEX = /\\d\{1,3\}|\[0-9\]\{1,3\}|127\\\.|\b10\\\.|192\\\.168|169\\\.254|172\\\.|localhost|::1|fc00|fe80|0\\\.0\\\.0\\\.0/i;

type SourceKind = 'tool_argument' | 'oauth_metadata';
interface Influence {
  source: SourceKind;
  name: string;
  /** Identifiers the value went through (to recognise checks on the same value). */
  names: Set<string>;
}

/** The keys of a connection's options that name where it goes (facts/flow connection()). */
const CONNECTION_KEYS = ['connectionString', 'connection', 'uri', 'url', 'browserWSEndpoint', 'browserURL', 'wsEndpoint', 'endpointURL', 'node', 'nodes', 'host', 'hostname', 'server', 'address', 'socketPath', 'path'];

const libraryOf = (module: string): string | undefined => LIBRARIES.find((l) => module === l || module.startsWith(l + '/'));

/* ---------------- OAuth metadata taint ---------------- */

function metadataTaint(node: Node | undefined, names: Set<string>, files: [string, SourceFile][], depth = 0): string | undefined {
  if (!node || depth > 10) return undefined;
  const n = unwrap(node);
  if (Node.isAwaitExpression(n)) return metadataTaint(n.getExpression(), names, files, depth + 1);
  if (Node.isPropertyAccessExpression(n)) {
    if (OAUTH_FIELDS.has(n.getName())) return n.getName();
    return metadataTaint(n.getExpression(), names, files, depth + 1);
  }
  if (Node.isElementAccessExpression(n)) {
    const key = stringValue(n.getArgumentExpression());
    if (key && OAUTH_FIELDS.has(key)) return key;
    return metadataTaint(n.getExpression(), names, files, depth + 1);
  }
  if (Node.isIdentifier(n)) {
    const name = n.getText();
    if (names.has(name)) return undefined;
    names.add(name);
    if (OAUTH_FIELDS.has(name)) return name;
    const d = declarationOf(n);
    if (!d) return undefined;
    if (Node.isBindingElement(d)) {
      const prop = d.getPropertyNameNode();
      const key = prop ? propertyName(prop) : d.getName();
      if (key && OAUTH_FIELDS.has(key)) return key;
      const owner = d.getFirstAncestor((a) => Node.isVariableDeclaration(a) || Node.isParameterDeclaration(a));
      if (owner && Node.isVariableDeclaration(owner)) return metadataTaint(owner.getInitializer(), names, files, depth + 1);
      if (owner && Node.isParameterDeclaration(owner)) return parameterTaint(owner, names, files, depth);
      return undefined;
    }
    if (Node.isVariableDeclaration(d)) return metadataTaint(initializerOf(d), names, files, depth + 1);
    if (Node.isParameterDeclaration(d)) return parameterTaint(d, names, files, depth);
    return undefined;
  }
  if (Node.isTemplateExpression(n)) {
    for (const s of n.getTemplateSpans()) {
      const t = metadataTaint(s.getExpression(), names, files, depth + 1);
      if (t) return t;
    }
    return undefined;
  }
  if (Node.isBinaryExpression(n)) {
    if (!['+', '??', '||', '&&'].includes(n.getOperatorToken().getText())) return undefined;
    return metadataTaint(n.getLeft(), names, files, depth + 1) ?? metadataTaint(n.getRight(), names, files, depth + 1);
  }
  if (Node.isConditionalExpression(n)) return metadataTaint(n.getWhenTrue(), names, files, depth + 1) ?? metadataTaint(n.getWhenFalse(), names, files, depth + 1);
  if (Node.isCallExpression(n) || Node.isNewExpression(n)) {
    const callee = unwrap(n.getExpression());
    if (Node.isPropertyAccessExpression(callee)) {
      const r = metadataTaint(callee.getExpression(), names, files, depth + 1);
      if (r) return r;
    }
    for (const a of n.getArguments()) {
      const t = metadataTaint(a, names, files, depth + 1);
      if (t) return t;
    }
  }
  return undefined;
}

/** A parameter is influenced when some caller (by name) passes an influenced value at its position. */
function parameterTaint(p: Node, names: Set<string>, files: [string, SourceFile][], depth: number): string | undefined {
  if (!Node.isParameterDeclaration(p) || depth > 6) return undefined;
  const fn = p.getParent();
  if (!fn || !(Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn) || Node.isMethodDeclaration(fn))) return undefined;
  const index = fn.getParameters().indexOf(p);
  for (const c of callersOf(fn, files)) {
    const t = metadataTaint(c.node.getArguments()[index], names, files, depth + 2);
    if (t) return t;
  }
  return undefined;
}

/* ---------------- URL shape ---------------- */

/**
 * 'url': the whole URL is influenced; 'host': scheme fixed, host influenced; 'fixed': scheme and host written
 * in the code. With `files` (a URL influenced by OAuth metadata), a template or concatenation that starts with
 * a value the metadata does not reach (a configured base) followed by a path delimiter is 'fixed' too.
 */
function shapeOf(node: Node | undefined, files?: [string, SourceFile][], depth = 0): 'url' | 'host' | 'fixed' {
  if (!node || depth > 5) return 'url';
  const n = unwrap(node);
  if (Node.isAwaitExpression(n)) return shapeOf(n.getExpression(), files, depth + 1);
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const i = Node.isVariableDeclaration(d) ? initializerOf(d) : undefined;
    return i ? shapeOf(i, files, depth + 1) : 'url';
  }
  if (Node.isNewExpression(n) && calleeName(n) === 'URL') {
    const [a, base] = n.getArguments();
    if (base) {
      const p = prefixOf(a);
      // A relative reference keeps the base's host ('//host' does not; neither does an absolute URL).
      if (p !== undefined && (/^\/[^/]/.test(p) || /^[\w.~-]/.test(p)) && !/^[a-z][a-z0-9+.-]*:/i.test(p)) return shapeOf(base, files, depth + 1) === 'fixed' ? 'fixed' : 'host';
    }
    return shapeOf(a, files, depth + 1);
  }
  if (stringValue(n) !== undefined) return 'fixed';
  if (files && Node.isTemplateExpression(n) && n.getHead().getLiteralText() === '') {
    const [first] = n.getTemplateSpans();
    if (first && /^(?:\/(?!\/)|[?#])/.test(first.getLiteral().getLiteralText()) && !metadataTaint(first.getExpression(), new Set(), files)) return 'fixed';
  }
  const p = prefixOf(n);
  if (p === undefined) return 'url';
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#@]+[/?#]/i.test(p)) return 'fixed';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p)) return 'host';
  return 'url';
}

/**
 * A destination the server fixes itself: a literal URL with its scheme and host, a configured value
 * (`process.env.X`, `process.env.X ?? 'https://…'`), through local consts, class fields set only to such values
 * and parameters every caller gives one; a path or query added to one of them (`${BASE}/items/${id}`,
 * `BASE + '/items'`, `new URL('/items', BASE)`, `https://${SITE}.example.com/api`), or a root-relative reference
 * glued to one (`${this.baseUrl}${endpoint}` where every caller passes `/…`). A root-relative reference alone
 * (`api.get(path)` on an instance with a base URL) names no host either. Anything else (a value read from a
 * response, a parameter with no caller in the source) is not known fixed.
 */
function fixedDestination(node: Node | undefined, files: [string, SourceFile][], depth = 0): boolean {
  return destinationShape(node, files, depth) !== 'open';
}

type DestShape = 'origin' | 'configured' | 'root' | 'open';

/**
 * The calls of the sources by method name (`x.name(…)`) and the `new C(…)` by class name, gathered in one walk per
 * set of files: callerArguments asked for them by walking every file at each parameter, which over a large
 * dependency read whole made one audit take tens of minutes. In file order, as the walk found them.
 */
interface CallIndex {
  methods: Map<string, [SourceFile, ts.Node][]>;
  news: Map<string, [SourceFile, ts.Node][]>;
}
const callIndexes = new WeakMap<object, CallIndex>();
function callIndexOf(files: [string, SourceFile][]): CallIndex {
  const known = callIndexes.get(files);
  if (known) return known;
  const ix: CallIndex = { methods: new Map(), news: new Map() };
  const add = (m: Map<string, [SourceFile, ts.Node][]>, key: string, entry: [SourceFile, ts.Node]): void => {
    const list = m.get(key);
    if (list) list.push(entry);
    else m.set(key, [entry]);
  };
  for (const [, sf] of files) {
    const visit = (cn: ts.Node): void => {
      if (ts.isCallExpression(cn) && ts.isPropertyAccessExpression(cn.expression)) add(ix.methods, cn.expression.name.text, [sf, cn]);
      else if (ts.isNewExpression(cn) && ts.isIdentifier(cn.expression)) add(ix.news, cn.expression.text, [sf, cn]);
      ts.forEachChild(cn, visit);
    };
    ts.forEachChild(sf.compilerNode, visit);
  }
  callIndexes.set(files, ix);
  return ix;
}

/** `x.m(…)` where `x` is a const holding `new C(…)` (or `await` of a call) of a class or factory imported from a package. */
function foreignReceiver(sf: SourceFile, cn: ts.Node): boolean {
  if (!ts.isCallExpression(cn) || !ts.isPropertyAccessExpression(cn.expression)) return false;
  const recv = unwrap(wrapNode(sf, cn.expression.expression));
  if (!Node.isIdentifier(recv)) return false;
  const d = declarationOf(recv);
  const init = Node.isVariableDeclaration(d) ? d.getInitializer() : undefined;
  let v = init && unwrap(init);
  if (v && Node.isAwaitExpression(v)) v = unwrap(v.getExpression());
  if (!v || !(Node.isNewExpression(v) || Node.isCallExpression(v))) return false;
  const o = originOf(v.getExpression());
  return !!o && o.module !== GLOBAL && !o.module.startsWith('.');
}

/** The callers' arguments at a parameter's position (functions by name, methods by `this.m(…)` / `x.m(…)`); undefined when there is none. */
function callerArguments(p: Node, files: [string, SourceFile][]): (Node | undefined)[] | undefined {
  if (!Node.isParameterDeclaration(p)) return undefined;
  const fn = p.getParent();
  if (!fn) return undefined;
  const index = (fn as unknown as { getParameters(): Node[] }).getParameters?.().indexOf(p) ?? -1;
  if (index < 0) return undefined;
  let calls: Node[] = [];
  if (Node.isMethodDeclaration(fn) || Node.isConstructorDeclaration(fn)) {
    const name = Node.isMethodDeclaration(fn) ? fn.getName() : undefined;
    const cls = fn.getParent();
    // A bundle's `var KnowledgeService = class { … }` is called by the variable's name.
    const holder = cls && Node.isClassExpression(cls) ? cls.getParent() : undefined;
    const clsName = cls && Node.isClassDeclaration(cls) ? cls.getName() : holder && Node.isVariableDeclaration(holder) && unwrap(holder.getInitializer()!) === cls ? holder.getName() : undefined;
    const ix = callIndexOf(files);
    const found = name ? ix.methods.get(name) : clsName ? ix.news.get(clsName) : undefined;
    for (const [sf, cn] of found ?? []) {
      // `server.connect(transport)` on an instance of a package's class is not a call of the source's method.
      if (!name || !foreignReceiver(sf, cn)) calls.push(wrapNode(sf, cn));
    }
  } else calls = callersOf(fn, files).map((c) => c.node);
  if (!calls.length) return undefined;
  // A call that spreads a list (`f(...args)`) may fill the position: its spread stands for the value (read as open).
  return calls.map((c) => (Node.isCallExpression(c) || Node.isNewExpression(c) ? ((c.getArguments()[index] ?? c.getArguments().find((a) => Node.isSpreadElement(a))) as Node | undefined) : undefined));
}

/**
 * 'origin': a URL whose scheme and host are fixed; 'configured': a value the server is configured with (a
 * literal, an environment variable) that may be a whole base URL or a piece of one; 'root': a reference that
 * starts with `/`, `?` or `#` (no host of its own); 'open': anything else.
 */
const followedParameters = new Set<Node>();

/**
 * What destinationShape reads beside the files, set by judgeSources for one judging (the reading is synchronous):
 * the parameters of the handlers that carry a client's arguments (by compiler node, with the tool's name), the
 * parsed sources (to read the source's own functions whose result is a destination), and the first tool
 * argument an 'open' destination was found to come from (a connect tool's host kept in a closure variable
 * that a later call connects with: the flows do not follow such a store).
 */
const reading: { inputs: Map<ts.Node, string>; sources?: ReturnType<typeof parsedSources>; files?: [string, SourceFile][]; witness?: string; trail: string[]; names?: string[] } = { inputs: new Map(), trail: [] };

/** The tool whose arguments a parameter (or a name destructured from one) carries, if it is a handler's. */
function handlerInput(d: Node): string | undefined {
  if (!reading.inputs.size) return undefined;
  const p = Node.isParameterDeclaration(d) ? d : Node.isBindingElement(d) ? d.getFirstAncestor((a) => Node.isParameterDeclaration(a)) : undefined;
  return p ? reading.inputs.get(p.compilerNode) : undefined;
}

/** Properties of a tool object that hold its handler, and those that hold its input schema (`config: { inputSchema }` too). */
const TOOL_HANDLER_KEYS = new Set(['handle', 'handler', 'execute', 'run', 'callback', 'cb', 'fn']);
const TOOL_SCHEMA_KEYS = ['inputSchema', 'input_schema', 'parameters', 'schema', 'argsSchema', 'input'];
/** Members of the request a tool object's handler is given that hold the tool's arguments (`request.params.url`). */
const REQUEST_ARGUMENT_KEYS = new Set(['params', 'arguments']);

/**
 * The tool whose arguments a parameter carries when its function is the handler of a tool object the server model
 * does not register (`defineTool({ name: 'browser_navigate', config: { inputSchema: { url } }, handle: async (ctx, args)
 * => … })` kept in a list a loop registers): the object names the tool with a literal and its input schema declares
 * `key` (the member read from the parameter, or the name destructured from it).
 */
function toolObjectInput(p: Node, key: string): string | undefined {
  if (!Node.isParameterDeclaration(p)) return undefined;
  const fn = p.getParent();
  if (!fn) return undefined;
  if (Node.isFunctionDeclaration(fn)) return namedHandlerInput(fn, key);
  if (!(Node.isArrowFunction(fn) || Node.isFunctionExpression(fn) || Node.isMethodDeclaration(fn))) return undefined;
  const holder = Node.isMethodDeclaration(fn) ? fn : fn.getParent();
  if (!holder || !(Node.isPropertyAssignment(holder) || Node.isMethodDeclaration(holder))) return undefined;
  return toolObjectDeclaring(holder, key);
}

/**
 * The tool a handler's property (`handle: …`, `handle(ctx, args) {…}`) belongs to when its object names the tool with a
 * literal and the input schema declares `key`. The name and the schema may sit on the object itself, under `config`, or
 * under a schema object it refers to (`{ schema: navigateSchema, handle: handleNavigate }` with `const navigateSchema =
 * { name: 'browser_navigate', inputSchema: z.object({ url }) }`).
 */
function toolObjectDeclaring(holder: Node, key: string): string | undefined {
  const handlerKey = Node.isPropertyAssignment(holder) || Node.isMethodDeclaration(holder) ? propertyName(holder.getNameNode()) : undefined;
  const obj = holder.getParent();
  if (!handlerKey || !TOOL_HANDLER_KEYS.has(handlerKey) || !obj) return undefined;
  // A tool class (`class NavigateTool { name = 'navigate_to'; inputSchema = schema; async execute(context, params) {…} }`):
  // its fields name the tool and hold its schema.
  const classLike = Node.isClassDeclaration(obj) || Node.isClassExpression(obj);
  if (!classLike && !Node.isObjectLiteralExpression(obj)) return undefined;
  const member = (o: Node, k: string): Node | undefined => (classLike && o === obj ? classField(obj, k) : propertyOf(o, k));
  const schemaObject = objectOf(member(obj, 'schema'));
  const name = stringValue(member(obj, 'name')) ?? (schemaObject ? stringValue(propertyOf(schemaObject, 'name')) : undefined);
  if (!name) return undefined;
  const config = objectOf(member(obj, 'config'));
  const holders = [obj, ...(config ? [config] : []), ...(schemaObject ? [schemaObject] : [])];
  const schemas = holders.flatMap((o) => TOOL_SCHEMA_KEYS.map((k) => member(o, k)).filter((v): v is Node => !!v));
  const declares = schemas.some((sch) => {
    const root = resolveValue(sch) ?? sch;
    return root.getDescendants().some((d) => (Node.isPropertyAssignment(d) || Node.isShorthandPropertyAssignment(d)) && propertyName(d.getNameNode()) === key);
  });
  return declares ? name : undefined;
}

/** The initializer of a class's instance field (`name = 'navigate_to'`), not a static one. */
function classField(cls: Node, key: string): Node | undefined {
  if (!Node.isClassDeclaration(cls) && !Node.isClassExpression(cls)) return undefined;
  const f = cls.getProperties().find((p) => !p.isStatic() && propertyName(p.getNameNode()) === key);
  return f?.getInitializer();
}

/**
 * A function declaration handed by name as a tool object's handler in its own file (`async function handleNavigate(context,
 * params) {…}` … `{ schema: navigateSchema, handle: handleNavigate }`): the tool whose input schema declares `key`.
 */
function namedHandlerInput(fn: Node, key: string): string | undefined {
  const id = Node.isFunctionDeclaration(fn) ? fn.getNameNode() : undefined;
  if (!id) return undefined;
  for (const pa of handlerProperties(fn.getSourceFile()).get(id.getText()) ?? []) {
    const v = Node.isPropertyAssignment(pa) ? pa.getInitializer() : undefined;
    if (!v || !Node.isIdentifier(v) || declarationOf(v)?.compilerNode !== fn.compilerNode) continue;
    const tool = toolObjectDeclaring(pa, key);
    if (tool) return tool;
  }
  return undefined;
}

const handlerPropsMemo = new WeakMap<SourceFile, Map<string, Node[]>>();
/** The `handle: name` properties of a file (a handler key whose value is a bare name), by that name; one pass per file. */
function handlerProperties(sf: SourceFile): Map<string, Node[]> {
  const known = handlerPropsMemo.get(sf);
  if (known) return known;
  const out = new Map<string, Node[]>();
  const filter = namedFilter(TOOL_HANDLER_KEYS, (cn) => ts.isPropertyAssignment(cn) && ts.isIdentifier(cn.initializer) && ts.isIdentifier(cn.name) && TOOL_HANDLER_KEYS.has(cn.name.text));
  for (const cn of rawOfKinds(sf, [ts.SyntaxKind.PropertyAssignment], filter)) {
    const name = ((cn as ts.PropertyAssignment).initializer as ts.Identifier).text;
    out.set(name, [...(out.get(name) ?? []), wrapNode(sf, cn)]);
  }
  handlerPropsMemo.set(sf, out);
  return out;
}

/** Names of the calls that validate a tool's arguments and give them back (zod's parse, a tool base class's parseParams). */
const PARSE_CALL = /^(?:parse|parseAsync|parseParams|parseArgs|parseArguments|parseInput|validateParams|validateArgs|validateArguments|validateInput)$/;

/** The parameter whose value a validating call gives back (`schema.parse(params)`, `await this.parseParams(schema, params)`). */
function parsedParameter(init: Node | undefined): Node | undefined {
  let n = init && unwrap(init);
  if (n && Node.isAwaitExpression(n)) n = unwrap(n.getExpression());
  if (!n || !Node.isCallExpression(n)) return undefined;
  const callee = unwrap(n.getExpression());
  const name = Node.isPropertyAccessExpression(callee) ? callee.getName() : Node.isIdentifier(callee) ? callee.getText() : undefined;
  if (!name || !PARSE_CALL.test(name)) return undefined;
  for (const a of n.getArguments()) {
    const id = unwrap(a);
    const d = Node.isIdentifier(id) ? declarationOf(id) : undefined;
    if (d && Node.isParameterDeclaration(d)) return d;
  }
  return undefined;
}

/** Records a tool argument found reaching a destination (the first one: the witness of a steered connection). */
function witness(tool: string): void {
  if (reading.witness) return;
  reading.witness = tool;
  reading.names = [...reading.trail];
}

/** The values a function of the source returns (an arrow's expression body, its return statements). */
function returnedValues(fn: Node): Node[] {
  if (Node.isArrowFunction(fn)) {
    const body = fn.getBody();
    if (!Node.isBlock(body)) return [body];
  }
  const out: Node[] = [];
  const visit = (n: Node): void => {
    if (n !== fn && isFunctionLike(n)) return;
    if (Node.isReturnStatement(n)) {
      const e = n.getExpression();
      if (e) out.push(e);
      return;
    }
    n.forEachChild(visit);
  };
  visit(fn);
  return out;
}

function destinationShape(node: Node | undefined, files: [string, SourceFile][], depth = 0): DestShape {
  const id = node && unwrap(node);
  if (!id || !Node.isIdentifier(id)) return destinationShapeOf(node, files, depth);
  reading.trail.push(id.getText());
  try {
    return destinationShapeOf(node, files, depth);
  } finally {
    reading.trail.pop();
  }
}

function destinationShapeOf(node: Node | undefined, files: [string, SourceFile][], depth = 0): DestShape {
  if (!node || depth > 24) return 'open';
  const n = unwrap(node);
  // No value yet (`let info = null`, filled in later): names no destination of its own.
  if (nullish(n) || Node.isNumericLiteral(n)) return 'configured';
  const s = stringValue(n);
  if (s !== undefined) return /^[a-z][a-z0-9+.-]*:\/\/[^/?#@]+(?:[/?#]|$)/i.test(s) ? 'origin' : /^(?:\/(?!\/)|[?#])/.test(s) ? 'root' : 'configured';
  if ((Node.isPropertyAccessExpression(n) || Node.isElementAccessExpression(n)) && /^process\.env$/.test(unwrap(n.getExpression()).getText().replace(/\s+/g, ''))) return 'configured';
  // The command line the operator starts the server with: `process.argv[2]`, `args[i + 1]` of `process.argv.slice(2)`.
  if (Node.isElementAccessExpression(n) && commandLine(n.getExpression())) return 'configured';
  // An argument picked from it (`process.argv.find((a) => a.startsWith('--kubeconfig='))`), the options commander
  // parsed from it (`program.opts().kubeconfig`, `const opts = program.opts()`), or a length (a number, no destination).
  if (argvPick(n) || commanderOptions(n)) return 'configured';
  if (Node.isPropertyAccessExpression(n) && (n.getName() === 'length' || commanderOptions(unwrap(n.getExpression())))) return 'configured';
  if (Node.isPropertyAccessExpression(n) && Node.isThisExpression(unwrap(n.getExpression()))) {
    const values = fieldValues(n);
    return values.length ? weakest(values.map((v) => destinationShape(v, files, depth + 1))) : 'open';
  }
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (Node.isVariableDeclaration(d)) {
      const constant = d.getFirstAncestor((a) => Node.isVariableDeclarationList(a))?.getText().startsWith('const');
      const i = constant ? initializerOf(d) : undefined;
      if (i) return destinationShape(i, files, depth + 1);
      // A `let` set only to configured values (`let url = ''; … url = args[i]; … url = process.env.URL || ''`).
      const name = d.getNameNode();
      if (constant || !Node.isIdentifier(name)) return 'open';
      const values = [...(d.getInitializer() ? [d.getInitializer()!] : []), ...assignedValues(name)];
      return values.length ? weakest(values.map((v) => destinationShape(v, files, depth + 1))) : 'open';
    }
    const tool = d ? handlerInput(d) : undefined;
    if (tool) {
      if (!reading.witness) {
        reading.witness = tool;
        // The names the argument went through to the connection (to recognise a check on it).
        reading.names = [...reading.trail];
      }
      return 'open';
    }
    // A name destructured from a parameter (`function installChart({ chart, repo })`): what its callers pass there.
    const holder = d && Node.isBindingElement(d) ? d.getParent()?.getParent() : undefined;
    // A name destructured from the validation of a tool object's arguments (`const { url } = schema.parse(params)`,
    // `this.parseParams(schema, params)`): the argument itself.
    if (d && Node.isBindingElement(d) && holder && Node.isVariableDeclaration(holder)) {
      const param = parsedParameter(holder.getInitializer());
      const toolObject = param ? toolObjectInput(param, d.getPropertyNameNode() ? propertyName(d.getPropertyNameNode()!) ?? '' : d.getName()) : undefined;
      if (toolObject) {
        witness(toolObject);
        return 'open';
      }
    }
    if (d && Node.isBindingElement(d) && holder && Node.isParameterDeclaration(holder)) {
      const toolObject = toolObjectInput(holder, d.getPropertyNameNode() ? propertyName(d.getPropertyNameNode()!) ?? '' : d.getName());
      if (toolObject) {
        witness(toolObject);
        return 'open';
      }
      if (followedParameters.has(holder)) return 'configured';
      const passed = callerArguments(holder, files);
      if (!passed) return 'open';
      const key = d.getPropertyNameNode() ? propertyName(d.getPropertyNameNode()!) : d.getName();
      followedParameters.add(holder);
      try {
        return weakest(
          passed.map((a) => {
            const o = a ? objectOf(a) : undefined;
            const v = o && key ? propertyOf(o, key) : undefined;
            return v ? destinationShape(v, files, depth + 2) : a ? destinationShape(a, files, depth + 2) : 'open';
          }),
        );
      } finally {
        followedParameters.delete(holder);
      }
    }
    if (d && Node.isParameterDeclaration(d)) {
      // A parameter met again through its own callers (`registry.connect(s)` → `manager.connect({ ...s })`, both
      // `connect`): that path brings no value the other callers do not.
      if (followedParameters.has(d)) return 'configured';
      const init = d.getInitializer();
      const passed = callerArguments(d, files);
      if (!passed) return 'open';
      followedParameters.add(d);
      try {
        // A caller that leaves the argument out passes nothing (`createKubernetesClient(logger)`): the library's
        // default, the operator's, unless the parameter has a default value of its own.
        return weakest([...passed.map((a) => (a ? destinationShape(a, files, depth + 2) : init ? destinationShape(init, files, depth + 2) : d.isRestParameter() ? 'open' : 'configured'))]);
      } finally {
        followedParameters.delete(d);
      }
    }
    // A value imported from a file of the source (`import { mcpConfig as config } from './config/index.js'`).
    const imported = importedValue(n);
    if (imported) return destinationShape(imported, files, depth + 1);
    return 'open';
  }
  if (Node.isBinaryExpression(n)) {
    const op = n.getOperatorToken().getText();
    if (op === '??' || op === '||') return weakest([destinationShape(n.getLeft(), files, depth + 1), destinationShape(n.getRight(), files, depth + 1)]);
    if (op === '+') return piecesShape(n, files, depth);
    return 'open';
  }
  if (Node.isConditionalExpression(n)) return weakest([destinationShape(n.getWhenTrue(), files, depth + 1), destinationShape(n.getWhenFalse(), files, depth + 1)]);
  if (Node.isTemplateExpression(n)) return piecesShape(n, files, depth);
  // Connection options (`{ host, port, database }`): configured when every key that names the destination is.
  // A spread (`{ ...this.config, password }`) brings the keys of a value that must be configured too.
  if (Node.isObjectLiteralExpression(n)) {
    const spreads = n.getProperties().flatMap((p) => (Node.isSpreadAssignment(p) ? [p.getExpression()] : []));
    // Elastic Cloud (`new Client({ cloud: { id } })`): the deployment id names where the client connects.
    const cloud = propertyOf(n, 'cloud');
    const cloudDest = cloud && Node.isObjectLiteralExpression(unwrap(cloud)) ? propertyOf(unwrap(cloud), 'id') : cloud;
    const dest = [...spreads, ...CONNECTION_KEYS.map((k) => propertyOf(n, k)).filter((v): v is Node => !!v), ...(cloudDest ? [cloudDest] : [])];
    return weakest(dest.length ? dest.map((v) => destinationShape(v, files, depth + 1)) : ['configured']);
  }
  // An entry of a table the source writes (`DATABASES[name]`, `URLS[i]`): configured when every entry is.
  if (Node.isElementAccessExpression(n)) {
    const table = resolveValue(n.getExpression());
    if (table && Node.isObjectLiteralExpression(table)) {
      const values = table.getProperties().map((p) => (Node.isPropertyAssignment(p) ? p.getInitializer() : Node.isSpreadAssignment(p) ? p.getExpression() : Node.isShorthandPropertyAssignment(p) ? p.getNameNode() : undefined));
      return values.length && values.every((v) => !!v) ? weakest(values.map((v) => destinationShape(v, files, depth + 1))) : 'open';
    }
    if (table && Node.isArrayLiteralExpression(table)) {
      const values = table.getElements();
      return values.length && !values.some((v) => Node.isSpreadElement(v)) ? weakest(values.map((v) => destinationShape(v, files, depth + 1))) : 'open';
    }
  }
  // A member of a configured value (`connectionInfo.host`, `this.options.url` of a configured object).
  if (Node.isPropertyAccessExpression(n) && !Node.isThisExpression(unwrap(n.getExpression()))) {
    const inner = unwrap(n.getExpression());
    // The member itself where the object is written in the source (`config.mysql` of an imported `export const
    // config = { mysql: { host: process.env.MYSQL_HOST } }`, `ns.DB_URL` of `import * as ns`).
    // A tool object's handler reading its arguments (`handle: async (ctx, args) => page.goto(args.url)`).
    // The arguments may sit under the request the handler is given (`handler: async (request) =>
    // page.goto(request.params.url)`, `request.params.arguments.url`).
    let holderOf: Node = inner;
    for (let i = 0; i < 2 && Node.isPropertyAccessExpression(holderOf) && REQUEST_ARGUMENT_KEYS.has(holderOf.getName()); i++) holderOf = unwrap(holderOf.getExpression());
    const param = Node.isIdentifier(holderOf) ? declarationOf(holderOf) : undefined;
    const toolObject = param && Node.isParameterDeclaration(param) ? toolObjectInput(param, n.getName()) : undefined;
    if (toolObject) {
      witness(toolObject);
      return 'open';
    }
    const member = memberValue(n);
    if (member && typeof member === 'object' && 'assigned' in member) return assignedMemberShape(member.assigned, member.initial, n.getName(), files, depth);
    if (member) return destinationShape(member, files, depth + 1);
    if (Node.isIdentifier(inner) || Node.isPropertyAccessExpression(inner)) return destinationShape(inner, files, depth + 1) === 'open' ? 'open' : 'configured';
  }
  // What a function of the source returns (`new pg.Client(resolveClientOptions(cfg))`).
  if (Node.isCallExpression(n) && reading.sources) {
    const fn = functionOf(n.getExpression(), reading.sources);
    const values = fn ? returnedValues(fn) : [];
    if (values.length) return weakest(values.map((v) => destinationShape(v, files, depth + 2)));
    // A method of a configured value given configured arguments (`u.searchParams.get('socket')`, `dsn.trim()` of a
    // URL parsed from the environment): what it returns is the operator's too.
    const callee = unwrap(n.getExpression());
    if (!fn && Node.isPropertyAccessExpression(callee) && !Node.isThisExpression(unwrap(callee.getExpression()))) {
      const parts = [callee.getExpression(), ...n.getArguments()];
      if (parts.every((x) => destinationShape(x, files, depth + 1) !== 'open')) return 'configured';
    }
  }
  if (Node.isNewExpression(n) && calleeName(n) === 'URL') {
    const [a, base] = n.getArguments();
    if (!base) return destinationShape(a, files, depth + 1);
    const ref = destinationShape(a, files, depth + 1);
    return ref === 'origin' ? 'origin' : ref === 'root' && destinationShape(base, files, depth + 1) !== 'open' ? 'origin' : 'open';
  }
  return 'open';
}

/**
 * What an identifier imported from a file of the source stands for, when it is a value (an exported const's
 * initializer), not a function, a class or a whole module. Undefined for anything else.
 */
function importedValue(id: Node): Node | undefined {
  if (!reading.sources || !Node.isIdentifier(id)) return undefined;
  const declId = declaringIdentifier(id);
  if (!declId || !importOf(declId)) return undefined;
  const v = valueOfDeclaration(declId, reading.sources);
  return v && !Node.isSourceFile(v) && !isFunctionLike(v) && !Node.isClassDeclaration(v) && !Node.isClassExpression(v) ? v : undefined;
}

/** `obj.key` where `obj` is an object the source writes (a const, an imported const) that sets `key`, or `ns.key` of a module of the source. */
function memberValue(access: Node): Node | { assigned: Node; initial?: Node } | undefined {
  if (!Node.isPropertyAccessExpression(access) || !reading.sources) return undefined;
  const viaModule = moduleMember(access, reading.sources);
  if (viaModule) return Node.isSourceFile(viaModule) || isFunctionLike(viaModule) || Node.isClassDeclaration(viaModule) ? undefined : viaModule;
  let obj: Node | undefined = resolveValue(access.getExpression());
  if (obj && Node.isIdentifier(obj)) obj = importedValue(obj);
  if (!obj || !Node.isObjectLiteralExpression(obj)) return undefined;
  // A member some code of the source assigns (`config.mysql = { host: args.host }`) may hold another value.
  // A later spread may override the key: not read.
  const props = obj.getProperties();
  const name = access.getName();
  const at = props.findIndex((p) => (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p)) && propertyName(p.getNameNode()) === name);
  if (reading.files && assignedMembers(reading.files).has(name)) {
    const p = at >= 0 ? props[at]! : undefined;
    const initial = p && Node.isPropertyAssignment(p) ? p.getInitializer() : p && Node.isShorthandPropertyAssignment(p) ? p.getNameNode() : undefined;
    return { assigned: obj, ...(initial ? { initial } : {}) };
  }
  if (at < 0 || props.slice(at + 1).some((p) => Node.isSpreadAssignment(p))) return undefined;
  const p = props[at]!;
  return Node.isPropertyAssignment(p) ? p.getInitializer() : Node.isShorthandPropertyAssignment(p) ? p.getNameNode() : undefined;
}

/** The member assignments of the sources (`x.name = …`) by member name, gathered in one walk per set of files. */
const assignedMemberIndexes = new WeakMap<object, Map<string, [SourceFile, ts.BinaryExpression][]>>();
function assignedMembers(files: [string, SourceFile][]): Map<string, [SourceFile, ts.BinaryExpression][]> {
  const known = assignedMemberIndexes.get(files);
  if (known) return known;
  const names = new Map<string, [SourceFile, ts.BinaryExpression][]>();
  for (const [, sf] of files) {
    const visit = (cn: ts.Node): void => {
      if (ts.isBinaryExpression(cn) && cn.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(cn.left)) {
        const list = names.get(cn.left.name.text);
        if (list) list.push([sf, cn]);
        else names.set(cn.left.name.text, [[sf, cn]]);
      }
      ts.forEachChild(cn, visit);
    };
    ts.forEachChild(sf.compilerNode, visit);
  }
  assignedMemberIndexes.set(files, names);
  return names;
}

/**
 * A member of an object the source writes that some code assigns (`const state = { context: undefined }` …
 * `state.context = context` in a tool's handler … `kc.setCurrentContext(state.context)`): the initial value and every
 * value assigned to that member of that object. An assignment of the member through a receiver not read as some
 * object written in the source (`this.context = …` aside) may be to this one: not read.
 */
function assignedMemberShape(obj: Node, initial: Node | undefined, name: string, files: [string, SourceFile][], depth: number): DestShape {
  if (!reading.files) return 'open';
  // Met again through its own values (`state.context = state.context ?? process.env.X`): no value the others do not bring.
  const key = `${name}@${obj.getSourceFile().getFilePath()}:${obj.getStart()}`;
  if (followedMembers.has(key)) return 'configured';
  const values: Node[] = initial ? [initial] : [];
  for (const [sf, cn] of assignedMembers(reading.files).get(name) ?? []) {
    const left = cn.left as ts.PropertyAccessExpression;
    if (left.expression.kind === ts.SyntaxKind.ThisKeyword) continue;
    const receiver = wrapNode(sf, left.expression);
    let target: Node | undefined = resolveValue(receiver);
    if (target && Node.isIdentifier(target)) target = importedValue(target);
    if (target === obj) values.push(wrapNode(sf, cn.right));
    else if (!target || !Node.isObjectLiteralExpression(target)) return 'open';
  }
  followedMembers.add(key);
  try {
    return weakest(values.length ? values.map((v) => destinationShape(v, files, depth + 1)) : ['configured']);
  } finally {
    followedMembers.delete(key);
  }
}
const followedMembers = new Set<string>();

/** `process.argv`, a slice of it, or a const holding one. */
function commandLine(node: Node, depth = 0): boolean {
  const n = unwrap(node);
  if (depth > 3) return false;
  if (n.getText().replace(/\s+/g, '') === 'process.argv') return true;
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    return Node.isPropertyAccessExpression(callee) && callee.getName() === 'slice' && commandLine(callee.getExpression(), depth + 1);
  }
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    // A `var` of down-levelled code (`var args = process.argv.slice(2)`) that nothing assigns again is a const too.
    // The initializer is read first: the assignments (a walk of the whole file) only for one that holds the command line.
    if (!Node.isVariableDeclaration(d)) return false;
    const i = initializerOf(d);
    if (!i || !commandLine(i, depth + 1)) return false;
    const list = d.getParent();
    if (Node.isVariableDeclarationList(list) && String(list.getDeclarationKind()) === 'const') return true;
    const name = d.getNameNode();
    return Node.isIdentifier(name) && assignedValues(name).length === 0;
  }
  return false;
}

/** Array methods that pick or test an element of the command line (the callback given to them is no value). */
const ARGV_PICKS = new Set(['find', 'findLast', 'at', 'filter', 'includes', 'indexOf', 'some']);
/** `process.argv.find((a) => a.startsWith('--kubeconfig='))`, `argv.at(-1)` of `const argv = process.argv.slice(2)`. */
function argvPick(n: Node): boolean {
  if (!Node.isCallExpression(n)) return false;
  const callee = unwrap(n.getExpression());
  return Node.isPropertyAccessExpression(callee) && ARGV_PICKS.has(callee.getName()) && commandLine(callee.getExpression());
}
/**
 * The options commander parsed from the command line: `program.opts()` / `optsWithGlobals()` on a `program` imported
 * from commander or a `new Command()` (chained calls on it allowed: `program.parse().opts()`), or a const holding them.
 */
function commanderOptions(node: Node, depth = 0): boolean {
  const n = unwrap(node);
  if (depth > 3) return false;
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const constant = Node.isVariableDeclaration(d) && d.getFirstAncestor((a) => Node.isVariableDeclarationList(a))?.getText().startsWith('const');
    const i = constant ? initializerOf(d) : undefined;
    return !!i && commanderOptions(i, depth + 1);
  }
  if (!Node.isCallExpression(n)) return false;
  const callee = unwrap(n.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !['opts', 'optsWithGlobals'].includes(callee.getName())) return false;
  let root = unwrap(callee.getExpression());
  for (let i = 0; i < 8 && Node.isCallExpression(root); i++) {
    const c = unwrap(root.getExpression());
    if (!Node.isPropertyAccessExpression(c)) return false;
    root = unwrap(c.getExpression());
  }
  if (rawOriginOf(root.compilerNode)?.module === 'commander') return true;
  // `const program = new Command()` / `createCommand()`.
  const d = Node.isIdentifier(root) ? declarationOf(root) : undefined;
  const init = Node.isVariableDeclaration(d) ? d.getInitializer() : undefined;
  const made = init && unwrap(init);
  return !!made && (Node.isNewExpression(made) || Node.isCallExpression(made)) && rawOriginOf(made.getExpression().compilerNode)?.module === 'commander';
}

/** Of several possible values: open if any is; 'origin' or 'root' only when every value is one of them. */
function weakest(shapes: DestShape[]): DestShape {
  if (!shapes.length || shapes.includes('open')) return 'open';
  if (shapes.includes('configured')) return 'configured';
  if (shapes.every((x) => x === 'root')) return 'root';
  return 'origin';
}

/** A template or concatenation: its constant start (configured values as \0), then the first value that is not configured. */
function piecesShape(n: Node, files: [string, SourceFile][], depth: number): DestShape {
  const pieces: (string | Node)[] = [];
  const flatten = (x: Node): void => {
    const u = unwrap(x);
    if (Node.isBinaryExpression(u) && u.getOperatorToken().getText() === '+') {
      flatten(u.getLeft());
      flatten(u.getRight());
    } else if (Node.isTemplateExpression(u)) {
      pieces.push(u.getHead().getLiteralText());
      for (const sp of u.getTemplateSpans()) {
        pieces.push(sp.getExpression());
        pieces.push(sp.getLiteral().getLiteralText());
      }
    } else pieces.push(stringValue(u) ?? u);
  };
  flatten(n);
  let prefix = '';
  for (const p of pieces) {
    if (typeof p === 'string') {
      prefix += p;
      continue;
    }
    const shape = destinationShape(p, files, depth + 1);
    // A fixed or configured value: its text when known (what follows its host matters), else a stand-in.
    if (shape === 'configured' || (shape === 'origin' && prefix === '')) {
      prefix += (shape === 'origin' ? staticString(p) : undefined) ?? '\0';
      continue;
    }
    if (/^(?:[a-z][a-z0-9+.-]*|\0+):\/\/[^/?#@]+[/?#]/i.test(prefix) || /^\0+[\w.~%-]*(?:\/(?!\/)|[?#])/.test(prefix)) return 'origin';
    if (shape === 'root' && /^(?:(?:[a-z][a-z0-9+.-]*|\0+):\/\/[^/?#@]+|\0+)$/i.test(prefix)) return 'origin';
    if ((prefix === '' && shape === 'root') || /^(?:\/(?!\/)|[?#])/.test(prefix)) return 'root';
    return 'open';
  }
  if (/^(?:[a-z][a-z0-9+.-]*|\0+):\/\/[^/?#@]+/i.test(prefix) || /^\0/.test(prefix)) return /^\0+$/.test(prefix) ? 'configured' : 'origin';
  return /^(?:\/(?!\/)|[?#])/.test(prefix) ? 'root' : 'configured';
}

/** The constant text a template or concatenation starts with. */
function prefixOf(node: Node | undefined): string | undefined {
  if (!node) return undefined;
  const n = unwrap(node);
  const s = stringValue(n);
  if (s !== undefined) return s;
  if (Node.isTemplateExpression(n)) return n.getHead().getLiteralText();
  if (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '+') return prefixOf(n.getLeft());
  return undefined;
}

/* ---------------- guards ---------------- */

/** `null`, `undefined`, `void 0`. */
function nullish(n: Node): boolean {
  const u = unwrap(n);
  return Node.isNullLiteral(u) || (Node.isIdentifier(u) && u.getText() === 'undefined') || Node.isVoidExpression(u);
}

interface Guards {
  allowlist: boolean;
  library: boolean;
  /** The first hand-written address check found. */
  handWritten?: Node;
}

/** The literal strings of an array or Set written in place or in a const. */
function collectionValues(n: Node): string[] | undefined {
  let v = resolveValue(n);
  if (v && Node.isNewExpression(v)) v = v.getArguments()[0] ? resolveValue(v.getArguments()[0]) : undefined;
  if (!v || !Node.isArrayLiteralExpression(v)) return undefined;
  return v.getElements().map((e) => stringValue(e)).filter((s): s is string => s !== undefined);
}

/**
 * The functions whose checks count for a site: its own and the functions it is nested in (a callback runs
 * after the checks of the function around it), their callers (a few levels), and the local helpers they call.
 */
function scopeOf(site: Node, files: [string, SourceFile][], sources: ReturnType<typeof parsedSources>): Node[] {
  const out: Node[] = [];
  const add = (fn: Node | undefined): void => {
    if (fn && !out.includes(fn)) out.push(fn);
  };
  const nest: Node[] = [];
  for (let fn = enclosingFunction(site); fn && nest.length < 4; fn = enclosingFunction(fn)) nest.push(fn);
  let level: Node[] = nest.length ? nest : [site.getSourceFile()];
  for (let depth = 0; depth < 3 && level.length; depth++) {
    const next: Node[] = [];
    for (const fn of level) {
      add(fn);
      for (const c of callersOf(fn, files)) next.push(enclosingFunction(c.node) ?? c.node.getSourceFile());
    }
    level = next.filter((f) => !out.includes(f));
  }
  for (const fn of [...out]) {
    for (const n of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn))) {
      if (Node.isCallExpression(n)) add(functionOf(n.getExpression(), sources));
    }
  }
  return out;
}

/**
 * A local helper given the site's own access path (`validateUrl(request.params.url, …)` before
 * `page.goto(request.params.url)`): its parameter at that position is the influenced value too, so that the checks
 * of its body (scopeOf reads them) count, as for a helper given a name the value went through.
 */
function addHelperParameters(scope: Node[], url: Node | undefined, names: Set<string>, sources: ReturnType<typeof parsedSources>): void {
  const u = url && unwrap(url);
  if (!u || !Node.isPropertyAccessExpression(u)) return;
  const path = u.getText().replace(/\s+/g, '');
  for (const fn of scope) {
    for (const n of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn) && cn.arguments.some((a) => ts.isPropertyAccessExpression(a)))) {
      if (!Node.isCallExpression(n)) continue;
      const i = n.getArguments().findIndex((a) => Node.isPropertyAccessExpression(a) && a.getText().replace(/\s+/g, '') === path);
      if (i < 0) continue;
      const helper = functionOf(n.getExpression(), sources) as unknown as { getParameters?(): Node[] } | undefined;
      const p = helper?.getParameters?.()[i];
      const name = p && Node.isParameterDeclaration(p) ? p.getNameNode() : undefined;
      if (name && Node.isIdentifier(name)) names.add(name.getText());
    }
  }
}

const EQUALITY = afterLoad(() => new Set<ts.SyntaxKind>([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]));
/** Every callee name guardsIn reads a check from. */
const GUARD_METHODS = new Set(['has', 'includes', 'startsWith', 'endsWith', 'test', 'exec', 'match', 'split']);

function guardsIn(scope: Node[], influence: Influence): Guards {
  const g: Guards = { allowlist: false, library: false };
  /** The expression mentions the influenced value (an identifier it went through). */
  const related = (x: Node | undefined, depth = 0): boolean => {
    if (!x || depth > 3) return false;
    return findNodes(x, ts.isIdentifier).some((d) => {
      if (!Node.isIdentifier(d)) return false;
      if (influence.names.has(d.getText())) return true;
      const decl = declarationOf(d);
      const i = initializerOf(decl);
      if (i) return i !== x && related(i, depth + 1);
      // `let parsed; try { parsed = new URL(url) } catch { … }`: the values assigned to it.
      const name = Node.isVariableDeclaration(decl) ? decl.getNameNode() : undefined;
      return !!name && Node.isIdentifier(name) && assignedValues(name).some((v) => v !== x && related(v, depth + 1));
    });
  };
  /** A host (or the URL itself) of the influenced value: u.hostname with u from it, a const or destructured hostname of it. */
  const onPath = (x: Node): boolean => {
    const u = unwrap(x);
    if (Node.isPropertyAccessExpression(u)) return ['hostname', 'host', 'origin', 'href'].includes(u.getName()) && related(u.getExpression());
    if (!Node.isIdentifier(u)) return false;
    if (influence.names.has(u.getText())) return true;
    const d = declarationOf(u);
    if (d && Node.isBindingElement(d)) {
      const owner = d.getFirstAncestor((a) => Node.isVariableDeclaration(a));
      return ['hostname', 'host', 'origin'].includes(d.getPropertyNameNode()?.getText() ?? d.getName()) && !!owner && Node.isVariableDeclaration(owner) && related(owner.getInitializer());
    }
    const i = initializerOf(d);
    return !!i && Node.isPropertyAccessExpression(i) && onPath(i);
  };
  /** A field or variable whose every assigned value is the influenced value itself. */
  const sameValue = (x: Node): boolean => {
    const u = unwrap(x);
    let values = Node.isPropertyAccessExpression(u) && Node.isThisExpression(unwrap(u.getExpression())) ? fieldValues(u) : [];
    // A module-level `let` that keeps the last destination (`let current = null; … current = uri`): its initializer
    // and the values its file assigns to it.
    if (Node.isIdentifier(u)) {
      const d = declarationOf(u);
      const name = Node.isVariableDeclaration(d) ? d.getNameNode() : undefined;
      if (Node.isVariableDeclaration(d) && name && Node.isIdentifier(name) && !d.getFirstAncestor((a) => Node.isVariableDeclarationList(a))?.getText().startsWith('const')) {
        const init = d.getInitializer();
        values = [...(init ? [init] : []), ...assignedValues(name)];
      }
    }
    return values.length > 0 && values.every((v) => nullish(v) || related(v));
  };
  const hand = (n: Node): void => {
    g.handWritten ??= n;
  };
  // Only calls and equality tests are read: found on compiler nodes, the rest is never wrapped.
  const interesting = (cn: ts.Node): boolean => {
    if (ts.isBinaryExpression(cn)) return EQUALITY().has(cn.operatorToken.kind);
    if (!ts.isCallExpression(cn)) return false;
    if (GUARD_METHODS.has(rawCalleeName(cn) ?? '')) return true;
    const o = rawOriginOf(cn.expression);
    return !!o && o.module !== GLOBAL && !!libraryOf(o.module);
  };
  for (const fn of scope) {
    for (const n of findNodes(fn, (cn) => cn !== fn.compilerNode && interesting(cn))) {
      if (Node.isCallExpression(n)) {
        const o = originOf(n.getExpression());
        if (o && o.module !== GLOBAL && libraryOf(o.module) && !Node.isExpressionStatement(n.getParent())) g.library = true;
        const name = calleeName(n) ?? '';
        const a0 = n.getArguments()[0];
        const callee = n.getExpression();
        const recv = Node.isPropertyAccessExpression(callee) ? unwrap(callee.getExpression()) : undefined;
        if ((name === 'has' || name === 'includes') && a0 && recv && onPath(a0)) {
          const values = collectionValues(recv);
          if (values && values.some((v) => ADDRESS_LITERAL.test(v))) hand(n);
          else if (!(values === undefined && /deny|block|private|internal|forbid/i.test(recv.getText()))) g.allowlist = true;
          else hand(n);
        } else if (['startsWith', 'endsWith', 'includes'].includes(name) && recv && onPath(recv)) {
          const lit = stringValue(a0);
          if (lit !== undefined && ADDRESS_LITERAL.test(lit)) hand(n);
          else if (name === 'endsWith' && lit?.startsWith('.')) g.allowlist = true;
        } else if ((name === 'test' || name === 'exec' || name === 'match') && recv && (name === 'match' ? onPath(recv) : !!a0 && onPath(a0))) {
          const re = resolveValue(name === 'match' ? a0 : recv);
          if (re && Node.isRegularExpressionLiteral(re) && ADDRESS_REGEX.test(re.getLiteralText())) hand(n);
        } else if (name === 'split' && recv && onPath(recv) && stringValue(a0) === '.') hand(n);
      } else if (Node.isBinaryExpression(n) && ['===', '!==', '==', '!='].includes(n.getOperatorToken().getText())) {
        const [l, r] = [n.getLeft(), n.getRight()];
        const side = onPath(l) ? r : onPath(r) ? l : undefined;
        if (!side) continue;
        const lit = stringValue(side);
        if (lit === undefined) {
          // A null test (`x !== null`, the `_a !== void 0` of a down-levelled `??`) or a comparison with the
          // value kept from the last call (`this.current === target`) decides nothing about where it goes.
          if (!nullish(side) && !sameValue(side) && (!Node.isIdentifier(unwrap(side)) || !influence.names.has(unwrap(side).getText()))) g.allowlist = true;
        } else if (ADDRESS_LITERAL.test(lit)) hand(n);
        else if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(lit)) g.allowlist = true;
      }
    }
  }
  return g;
}

/** Members of a parsed URL that name where it goes (a check on one of them decides the destination). */
const HOST_MEMBERS = new Set(['hostname', 'host', 'origin', 'href']);
/** A literal that is only a scheme (`'https:'`, `'http://'`): a test against it decides the scheme, not the host. */
const SCHEME_ONLY = /^(?:[a-z][a-z0-9+.-]*:(?:\/\/)?)$/i;

/**
 * The flow's deciding allowlist check (at flow.guardAt) looks at the URL's scheme only: `ALLOWED_PROTOCOLS.includes(u.protocol)`,
 * `u.protocol === 'https:'`, `url.startsWith('https://')`. Such a check keeps `file:` out but lets any host through, so
 * it is no allowlist of destinations. Read on the one statement (an `if`'s condition) written at that line; false when
 * it cannot be found or names a host member too.
 */
function schemeOnlyCheck(flow: Flow, sources: ReturnType<typeof parsedSources>): boolean {
  const at = flow.guardAt;
  const sf = at ? sources.files.get(at.file) : undefined;
  if (!at || !sf) return false;
  const text = sf.getFullText();
  const lineStart = sf.compilerNode.getPositionOfLineAndCharacter(at.line - 1, 0);
  const first = lineStart + (/^\s*/.exec(text.slice(lineStart, lineStart + 400))?.[0].length ?? 0);
  let n: Node | undefined = sf.getDescendantAtPos(first);
  while (n && !Node.isStatement(n) && !Node.isSourceFile(n)) n = n.getParent();
  if (!n || Node.isSourceFile(n)) return false;
  const checked = Node.isIfStatement(n) ? n.getExpression() : Node.isReturnStatement(n) ? n.getExpression() : Node.isExpressionStatement(n) ? n.getExpression() : undefined;
  if (!checked || Node.isBlock(checked)) return false;
  let scheme = false;
  const names = new Set<string>();
  for (const d of [checked, ...checked.getDescendants()]) {
    if (Node.isPropertyAccessExpression(d)) {
      if (HOST_MEMBERS.has(d.getName())) return false;
      if (d.getName() === 'protocol') {
        scheme = true;
        const r = unwrap(d.getExpression());
        if (Node.isIdentifier(r)) names.add(r.getText());
      }
    } else if (Node.isCallExpression(d) && calleeName(d) === 'startsWith') {
      const lit = stringValue(d.getArguments()[0]);
      if (lit !== undefined) {
        if (!SCHEME_ONLY.test(lit)) return false;
        scheme = true;
        const callee = d.getExpression();
        const r = Node.isPropertyAccessExpression(callee) ? unwrap(callee.getExpression()) : undefined;
        if (r && Node.isIdentifier(r)) names.add(r.getText());
      }
    }
  }
  // The function holding the scheme check may check the host too, in another statement or through a helper given
  // the parsed URL (`if (!isAllowed(u))` over `HOSTS.has(u.hostname)`): then the scheme check is one of two.
  let fn: Node | undefined = n.getParent();
  while (fn && !isFunctionLike(fn) && !Node.isSourceFile(fn)) fn = fn.getParent();
  if (scheme && names.size && fn && isFunctionLike(fn) && checksHost(fn, names, sources)) return false;
  return scheme;
}

/** Host members whose comparison decides the destination (`href` is left out: a test on it is often the scheme's). */
const HOST_ONLY_MEMBERS = new Set(['hostname', 'host', 'origin']);

/**
 * The conditions a function decides on: its `if` conditions and returned values (an arrow's expression body
 * included), not those of functions nested in it other than callbacks written inside those conditions.
 */
function decidingExpressions(fn: Node): Node[] {
  const out: Node[] = [];
  const body = (fn as unknown as { getBody?(): Node | undefined }).getBody?.();
  if (!body) return out;
  if (!Node.isBlock(body)) return [body];
  const visit = (cn: ts.Node): void => {
    if (ts.isFunctionLike(cn) || ts.isClassLike(cn)) return;
    if (ts.isIfStatement(cn)) out.push(wrapNode(fn.getSourceFile(), cn.expression));
    else if (ts.isReturnStatement(cn) && cn.expression) out.push(wrapNode(fn.getSourceFile(), cn.expression));
    ts.forEachChild(cn, visit);
  };
  visit(body.compilerNode);
  return out;
}

/**
 * `u.hostname` (or `new URL(x).hostname`) of one of `names` compared where it stands: an argument of `has` /
 * `includes`, a side of an equality with a value that is not nullish, the receiver of `endsWith` / `startsWith` / `match`.
 */
function hostComparedIn(exprs: Node[], names: Set<string>): boolean {
  for (const e of exprs) {
    for (const d of [e, ...e.getDescendants()]) {
      if (!Node.isPropertyAccessExpression(d) || !HOST_ONLY_MEMBERS.has(d.getName())) continue;
      let r = unwrap(d.getExpression());
      if (Node.isNewExpression(r) && r.getExpression().getText() === 'URL') r = unwrap(r.getArguments()[0] ?? r);
      if (!Node.isIdentifier(r) || !names.has(r.getText())) continue;
      // A test against internal addresses (`'localhost'`, a `BLOCKED_HOSTS` set) is a hand-written deny check, not an allowlist.
      const p = d.getParentOrThrow();
      if (Node.isCallExpression(p) && p.getArguments().includes(d) && ['has', 'includes', 'indexOf'].includes(calleeName(p) ?? '')) {
        const callee = p.getExpression();
        const recv = Node.isPropertyAccessExpression(callee) ? unwrap(callee.getExpression()) : undefined;
        const values = recv ? collectionValues(recv) : undefined;
        if (recv && !values?.some((v) => ADDRESS_LITERAL.test(v)) && !/deny|block|private|internal|forbid/i.test(recv.getText())) return true;
      }
      if (Node.isBinaryExpression(p) && ['===', '!==', '==', '!='].includes(p.getOperatorToken().getText())) {
        const other = p.getLeft() === d ? p.getRight() : p.getLeft();
        const lit = stringValue(other);
        if (!nullish(other) && lit !== '' && !(lit !== undefined && ADDRESS_LITERAL.test(lit))) return true;
      }
      if (Node.isPropertyAccessExpression(p) && ['endsWith', 'startsWith', 'match'].includes(p.getName()) && Node.isCallExpression(p.getParent())) {
        const a0 = (p.getParent() as Node & { getArguments(): Node[] }).getArguments()[0];
        const lit = a0 ? stringValue(a0) : undefined;
        if (p.getName() !== 'match' && !(lit !== undefined && ADDRESS_LITERAL.test(lit))) return true;
      }
    }
  }
  return false;
}

const hostCheckMemo = new WeakMap<ts.Node, Map<string, boolean>>();
/**
 * The function compares the host of a URL named in `names` (or of `new URL(name)` kept in a local), in its own
 * conditions or in those of a helper it calls with that URL (one call deep). Memoised per function and names.
 */
function checksHost(fn: Node, names: Set<string>, sources: ReturnType<typeof parsedSources>): boolean {
  const key = [...names].sort().join(',');
  const memo = hostCheckMemo.get(fn.compilerNode) ?? new Map<string, boolean>();
  hostCheckMemo.set(fn.compilerNode, memo);
  const hit = memo.get(key);
  if (hit !== undefined) return hit;
  const all = new Set(names);
  // `const u = new URL(raw)` beside a check on `raw` (or the reverse): both name the same destination.
  for (const v of findNodes(fn, (cn) => ts.isVariableDeclaration(cn) && !!cn.initializer && ts.isNewExpression(cn.initializer))) {
    if (!Node.isVariableDeclaration(v)) continue;
    const init = v.getInitializer();
    const a0 = init && Node.isNewExpression(init) && init.getExpression().getText() === 'URL' ? unwrap(init.getArguments()[0] ?? init) : undefined;
    const id = v.getNameNode();
    if (!a0 || !Node.isIdentifier(a0) || !Node.isIdentifier(id)) continue;
    if (names.has(a0.getText())) all.add(id.getText());
    if (names.has(id.getText())) all.add(a0.getText());
  }
  const exprs = decidingExpressions(fn);
  let found = hostComparedIn(exprs, all);
  for (const e of found ? [] : exprs) {
    for (const c of [e, ...e.getDescendants()]) {
      if (found || !Node.isCallExpression(c)) continue;
      const i = c.getArguments().findIndex((a) => Node.isIdentifier(unwrap(a)) && all.has(unwrap(a).getText()));
      if (i < 0) continue;
      const helper = functionOf(c.getExpression(), sources);
      const param = helper?.getParameters()[i]?.getNameNode();
      if (helper && helper !== fn && param && Node.isIdentifier(param)) found = hostComparedIn(decidingExpressions(helper), new Set([param.getText()]));
    }
  }
  memo.set(key, found);
  return found;
}

/** True when the source resolves host names itself (dns lookup / resolve) or uses a resolving filter. */
function resolves(files: [string, SourceFile][]): boolean {
  const modules = ['dns', 'dns/promises', ...RESOLVING_LIBRARIES];
  // Judged on compiler nodes (origins are read on them): no call is wrapped.
  return files.some(
    ([, sf]) =>
      namesAnyModule(sf, modules) &&
      rawOfKinds(sf, K.call, (cn) => {
        if (!ts.isCallExpression(cn)) return false;
        const o = rawOriginOf(cn.expression);
        if (!o) return false;
        if ((o.module === 'dns' || o.module === 'dns/promises') && /^(lookup|resolve|resolve4|resolve6|resolveAny)$/.test(o.path[o.path.length - 1] ?? '')) return true;
        return RESOLVING_LIBRARIES.has(o.module);
      }).length > 0,
  );
}

/* ---------------- clients ---------------- */

interface Client {
  label: string;
  url: Node | undefined;
  /** True / false when known; undefined when the options are not readable here. */
  followsRedirects: boolean | undefined;
  /** The request names a host (http.request({ hostname })), not a URL. */
  hostOnly?: boolean;
}

function objectOf(n: Node | undefined): Node | undefined {
  const v = n ? resolveValue(n) : undefined;
  return v && Node.isObjectLiteralExpression(v) ? v : undefined;
}

/**
 * A redirect option read from configurations, nearest first (the call's options, then the instance's): the
 * first that sets one of `keys` decides; undefined when a configuration cannot be read (a parameter, a spread).
 */
function redirectOption(configs: (Node | undefined)[], keys: string[]): { set: boolean; key?: string; value?: string } | undefined {
  for (const c of configs) {
    if (c === undefined) continue;
    const o = objectOf(c);
    if (!o || !Node.isObjectLiteralExpression(o)) return undefined;
    for (const key of keys) {
      const p = propertyOf(o, key);
      if (p) return { set: true, key, value: staticString(p) ?? p.getText() };
    }
    if (o.getProperties().some((x) => Node.isSpreadAssignment(x))) return undefined;
  }
  return { set: false };
}

/** The request a sink site makes: its URL and whether it follows redirects (facts/flow httpRequestOf, with the instance's configuration). */
function clientOf(site: SinkSite, sources: ReturnType<typeof parsedSources>): Client | undefined {
  const call = site.node;
  if (!Node.isCallExpression(call) && !Node.isNewExpression(call)) return undefined;
  const label = call.getExpression().getText().replace(/\s+/g, '').slice(0, 60);
  if (site.family === 'connect') {
    // A connection (database, WebSocket, socket): a connection string or URL, or a host; no redirects to follow.
    const a = args(call);
    // A KubeConfig loaded from a kubeconfig (a path, a YAML text, options listing clusters) or switched to a context.
    if (kubeCalls.has(call.compilerNode)) {
      const o = objectOf(a[0]);
      return { label, url: o ? (propertyOf(o, 'clusters') ?? a[0]) : a[0], followsRedirects: false };
    }
    // A cluster client launched with the cluster chosen on its command line (kubectl --context X).
    const launcher = calleeOrigin(call);
    if (launcher && LAUNCHERS.has(launcher.module)) return { label, url: clusterValues(a).values[0], followsRedirects: false, hostOnly: true };
    const first = objectOf(a[0]);
    if (first) {
      const url = ['connectionString', 'uri', 'url', 'browserWSEndpoint', 'browserURL', 'wsEndpoint', 'endpointURL', 'node', 'nodes'].map((k) => propertyOf(first, k)).find((v) => !!v);
      if (url) return { label: `${Node.isNewExpression(call) ? 'new ' : ''}${label}`, url, followsRedirects: false };
      return { label: `${Node.isNewExpression(call) ? 'new ' : ''}${label}`, url: propertyOf(first, 'host') ?? propertyOf(first, 'hostname') ?? propertyOf(first, 'server') ?? propertyOf(first, 'address'), followsRedirects: false, hostOnly: true };
    }
    if (/^(?:net|tls)\./.test(label) || /^(?:connect|createConnection)$/.test(label) && a.length >= 2 && !stringValue(a[0])?.includes('://')) {
      return { label, url: a[1], followsRedirects: false, hostOnly: true };
    }
    return { label: `${Node.isNewExpression(call) ? 'new ' : ''}${label}`, url: a[0], followsRedirects: false };
  }
  if (site.family === 'browser') {
    // A browser follows redirects by itself; the navigation's URL is its first argument (or its url option).
    const a0 = args(call)[0];
    const url = a0 && Node.isObjectLiteralExpression(a0) ? propertyOf(a0, 'url') : calleeName(call) === 'send' && stringValue(a0) === 'Page.navigate' ? propertyOf(objectOf(args(call)[1]), 'url') : (urlArgument(args(call)) ?? a0);
    return { label, url, followsRedirects: undefined };
  }
  const req = httpRequestOf(call, sources);
  if (!req) return undefined;
  const unreadable = req.instance.some((c) => c === undefined);
  const configs = [req.options, ...req.instance];
  if (req.library === 'fetch' || req.library === 'ky') {
    const r = redirectOption(configs, ['redirect']);
    return { label, url: req.url, followsRedirects: r && !unreadable ? !(r.set && (r.value === 'manual' || r.value === 'error')) : undefined };
  }
  if (req.library === 'axios') {
    const r = redirectOption(configs, ['maxRedirects']);
    return { label, url: req.url, followsRedirects: r && !unreadable ? !(r.set && r.value === '0') : undefined };
  }
  if (req.library === 'got') {
    const r = redirectOption(configs, ['followRedirect', 'maxRedirects']);
    return { label, url: req.url, followsRedirects: r && !unreadable ? !(r.set && (r.value === 'false' || r.value === '0')) : undefined };
  }
  // node http/https/http2 and undici.request do not follow redirects.
  const first = objectOf(args(call)[0]);
  if (first) return { label, url: propertyOf(first, 'hostname') ?? propertyOf(first, 'host'), followsRedirects: false, hostOnly: true };
  return { label, url: args(call)[0], followsRedirects: false };
}

/**
 * A connection no tool reaches whose destination the operator sets: a configured value (the environment, the
 * command line, a literal, through consts, `let`s, fields and callers' arguments), or none at all (`new Pool()`,
 * `createClient()`: the library's defaults and its environment variables).
 */
function configuredConnection(s: SinkSite, sources: ReturnType<typeof parsedSources>, files: [string, SourceFile][]): boolean {
  const call = s.node;
  if (!Node.isCallExpression(call) && !Node.isNewExpression(call)) return false;
  const a = args(call);
  if (a.length === 0) return true;
  const client = clientOf(s, sources);
  if (!client) return false;
  // A cluster client whose command line, read whole, names no cluster: the operator's kubeconfig and context.
  const launch = launchOf(s);
  if (launch) {
    // Every value that chooses the cluster or names what it fetches, through the lists a helper's callers pass.
    const cluster = clusterValues(args(call));
    if (cluster.values.length) return weakest(cluster.values.map((v) => destinationShape(v, files))) !== 'open';
    return launch.read || cluster.read;
  }
  // Options that name no destination of their own: what their spreads bring must be configured too.
  if (!client.url) return !!objectOf(a[0]) && destinationShape(objectOf(a[0]), files) !== 'open';
  return destinationShape(client.url, files) !== 'open';
}

/**
 * The values of a cluster client's command line that choose the cluster, and whether it was read whole (facts/flow
 * clusterLaunch); through a helper's parameter (`run(args) { execFileSync('kubectl', args) }`), those of the lists
 * its callers pass (`kubectl.run(['get', 'pods', '--context', context])`), read whole when every caller's is.
 */
function clusterValues(a: Node[]): { values: Node[]; read: boolean; callers: Node[] } {
  const second = a[1] && unwrap(a[1]);
  const argv = second && !Node.isObjectLiteralExpression(second) ? second : undefined;
  const direct = [...clusterArguments(a[0], argv), ...clusterLineValues(a[0])];
  if (direct.length) return { values: direct, read: true, callers: [] };
  // A list that spreads a helper's parameter (`[...args, '-o', 'json']`): the lists its callers pass.
  const list = argv && unwrap(argv);
  if (list && Node.isArrayLiteralExpression(list) && reading.files) {
    const values: Node[] = [];
    const callers: Node[] = [];
    let read = true;
    for (const el of list.getElements()) {
      if (!Node.isSpreadElement(el)) continue;
      const e = unwrap(el.getExpression());
      if (Node.isArrayLiteralExpression(e)) continue;
      const p = Node.isIdentifier(e) ? declarationOf(e) : undefined;
      const passed = p && Node.isParameterDeclaration(p) ? callerArguments(p, reading.files) : undefined;
      if (!passed?.length) {
        read = false;
        continue;
      }
      for (const c of passed) {
        const l = c ? clusterLaunch(a[0], c, false) : undefined;
        if (!l?.read) read = false;
        values.push(...(l?.values ?? []));
        if (c) callers.push(c);
      }
    }
    return { values, read, callers };
  }
  const d = argv && Node.isIdentifier(argv) ? declarationOf(argv) : undefined;
  if (!d || !Node.isParameterDeclaration(d) || !reading.files) return { values: [], read: false, callers: [] };
  const passed = callerArguments(d, reading.files);
  if (!passed?.length) return { values: [], read: false, callers: [] };
  const launches = passed.map((c) => (c ? clusterLaunch(a[0], c, false) : undefined));
  return { values: launches.flatMap((l) => l?.values ?? []), read: launches.every((l) => l?.read), callers: passed.filter((c): c is Node => !!c) };
}

/** The origin of a call's callee, through the `(0, mod.fn)(…)` of compiled and bundled code. */
function calleeOrigin(call: Node): ReturnType<typeof originOf> {
  if (!Node.isCallExpression(call) && !Node.isNewExpression(call)) return undefined;
  let e = unwrap(call.getExpression());
  if (Node.isBinaryExpression(e) && e.getOperatorToken().getKind() === ts.SyntaxKind.CommaToken) e = unwrap(e.getRight());
  return originOf(e);
}

/** A launch of a cluster client (kubectl, helm, oc) by child_process, execa or cross-spawn, as a connection (facts/flow clusterLaunch). */
function launchOf(s: SinkSite): ReturnType<typeof clusterLaunch> {
  const call = s.node;
  if (!Node.isCallExpression(call)) return undefined;
  const o = calleeOrigin(call);
  if (!o || !LAUNCHERS.has(o.module)) return undefined;
  const a = args(call);
  const shellLine = o.module === 'child_process' && /^exec(?:Sync)?$/.test(o.path[o.path.length - 1] ?? '');
  const second = a[1] && unwrap(a[1]);
  return clusterLaunch(a[0], second && !Node.isObjectLiteralExpression(second) ? second : undefined, shellLine);
}

/**
 * Libraries that open connections of their own (database drivers, a cluster's API client, SSH, HTTP clients, a
 * browser driver): a package that declares one may connect through it wherever its code is.
 */
const CLIENT_LIBRARIES = new Set([
  ...Object.keys(CONNECT_MODULES).filter((m) => !['ws', 'net', 'tls'].includes(m)),
  '@kubernetes/client-node', '@mongodb-js/devtools-connect', 'axios', 'got', 'node-fetch', 'cross-fetch', 'undici', 'ky', 'superagent', 'needle',
  ...SSH_MODULES,
]);
const packageName = (spec: string): string => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
const declaredDependencies = (pkg: Record<string, unknown>): string[] =>
  ['dependencies', 'optionalDependencies', 'peerDependencies'].flatMap((k) => Object.keys((pkg[k] as Record<string, unknown> | undefined) ?? {}));

/**
 * The network client libraries the package depends on that no file read imports: those of the followed dependencies
 * that hold the server's code (the reading follows only their server's part), and the package's own when some of its
 * files were not read. A connection made through one of them is one the reading did not see, so that no connection
 * found is no evidence of none made. Each as `name` or `name (via dependency)`.
 */
function unreadClientLibraries(repo: RepoFacts, sources: ReturnType<typeof parsedSources>): string[] {
  // Files of the server's code that were not read already keep the verdict from being clean (the runner names them).
  if (sources.unread.length > 0) return [];
  const imported = new Set<string>();
  for (const sf of sources.files.values()) for (const spec of moduleSpecs(sf)) imported.add(packageName(spec));
  const out: string[] = [];
  const own = repo.object('package.json');
  if (own.ok && sources.screened.length > 0) {
    for (const d of declaredDependencies(own.value)) if (CLIENT_LIBRARIES.has(d) && !imported.has(d)) out.push(d);
  }
  for (const dep of sources.dependencies) {
    const r = readInside(dep.folder, 'package.json', 1024 * 1024);
    if (!r.ok) continue;
    let pkg: Record<string, unknown>;
    try {
      pkg = JSON.parse(r.text) as Record<string, unknown>;
    } catch {
      continue;
    }
    for (const d of declaredDependencies(pkg)) if (CLIENT_LIBRARIES.has(d) && !imported.has(d)) out.push(`${d} (${dep.name})`);
  }
  return [...new Set(out)].sort();
}

/**
 * Libraries that connect somewhere, beside those whose connections the reading models (CLIENT_LIBRARIES): a
 * cluster's API client whose context a call may switch, drivers reached through an instance's methods. A file read
 * that imports one while no connection of it was found leaves the destination unread, not shown configured.
 */
const UNMODELLED_CLIENTS = ['@kubernetes/client-node', 'cassandra-driver', 'neo4j-driver', '@clickhouse/client', 'oracledb', 'snowflake-sdk', '@opensearch-project/opensearch', 'couchbase', 'amqplib', 'kafkajs', 'nats', 'mqtt'];

/**
 * The network client libraries that files read import and through which no connection site was found (by package
 * name), with the first file importing each: a connection made through one is one the reading did not see, so no
 * connection found (or only configured ones) is no evidence that none is steered.
 */
function unseenClientImports(sources: ReturnType<typeof parsedSources>, seen: SinkSite[]): { libraries: string[]; file?: string } {
  const known = new Set([...CLIENT_LIBRARIES, ...BROWSER_MODULES, ...UNMODELLED_CLIENTS]);
  const found = new Set<string>();
  for (const s of seen) {
    if (kubeCalls.has(s.node.compilerNode)) found.add(KUBE_CLIENT);
    const ssh = s.family === 'connect' ? sshConnectModule(s.node, sources) : undefined;
    if (ssh) found.add(ssh);
    const o = calleeOrigin(s.node);
    if (o && o.module !== GLOBAL) found.add(packageName(o.module.replace(/^node:/, '')));
  }
  const libraries: string[] = [];
  let file: string | undefined;
  for (const [rel, sf] of sources.files) {
    for (const spec of moduleSpecs(sf)) {
      const name = packageName(spec);
      if (!known.has(name) || found.has(name) || libraries.includes(name)) continue;
      libraries.push(name);
      file ??= rel;
    }
  }
  return { libraries: libraries.sort(), ...(file ? { file } : {}) };
}

/** The call or `new` that starts at a 1-based line and column of a source file. */
function callAt(sources: ReturnType<typeof parsedSources>, file: string, line: number, column: number): Node | undefined {
  const sf = sources.files.get(file);
  if (!sf) return undefined;
  const pos = sf.compilerNode.getPositionOfLineAndCharacter(line - 1, column - 1);
  for (let n: Node | undefined = sf.getDescendantAtPos(pos); n && n.getStart() === pos; n = n.getParent()) {
    if (Node.isCallExpression(n) || Node.isNewExpression(n)) return n;
  }
  return undefined;
}

/* ---------------- Kubernetes clients ---------------- */

const KUBE_CLIENT = '@kubernetes/client-node';
/** The KubeConfig calls found (by compiler node of the call): their destination is their first argument. */
const kubeCalls = new WeakSet<ts.Node>();
const kubeSiteMemo = new WeakMap<SourceFile, SinkSite[]>();

/**
 * The calls of a file that set where a @kubernetes/client-node client connects (`kc.loadFromDefault()`,
 * `kc.loadFromFile(path)`, `kc.loadFromString(yaml)`, `kc.setCurrentContext(name)`, on a KubeConfig kept in a
 * const, a field or a singleton's field), as connections: the cluster named by a kubeconfig or context the caller
 * gives is one the caller chooses, like `kubectl --context` / `--kubeconfig`; no argument (the operator's kubeconfig,
 * the in-cluster account) is the operator's. One indexed pass per file, memoised.
 */
function kubeSitesOf(rel: string, sf: SourceFile, sources: ReturnType<typeof parsedSources>): SinkSite[] {
  const known = kubeSiteMemo.get(sf);
  if (known) return known;
  const out: SinkSite[] = [];
  const filter = namedFilter(KUBE_CLUSTER_METHODS, (cn) => ts.isCallExpression(cn) && ts.isPropertyAccessExpression(cn.expression) && KUBE_CLUSTER_METHODS.includes(cn.expression.name.text));
  for (const cn of rawOfKinds(sf, K.call, filter)) {
    const n = wrapNode(sf, cn);
    if (!kubeClusterCall(n, sources)) continue;
    kubeCalls.add(cn);
    const callee = (n as unknown as { getExpression(): Node }).getExpression();
    out.push({ family: 'connect', call: callee.getText().replace(/\s+/g, '').slice(0, 60), file: rel, ...positionOf(n), node: n });
  }
  kubeSiteMemo.set(sf, out);
  return out;
}

/** Kubernetes client connections in the files read (only those that import the client library can hold one). */
function kubeSites(sources: ReturnType<typeof parsedSources>): SinkSite[] {
  const importers = [...sources.files].filter(([, sf]) => [...moduleSpecs(sf)].some((m) => m === KUBE_CLIENT || m.startsWith(KUBE_CLIENT + '/')));
  if (!importers.length) return [];
  // The KubeConfig may be made in one file and loaded in another (a manager class): every file read is looked at.
  return [...sources.files].flatMap(([rel, sf]) => kubeSitesOf(rel, sf, sources));
}

/* ---------------- client libraries a bundle inlines ---------------- */

/** Client libraries whose connecting class or function a bundle may inline (the socket modules are Node's own or low-level). */
const INLINABLE_CLIENTS = Object.keys(CONNECT_MODULES).filter((m) => !['ws', 'net', 'tls'].includes(m) && !m.includes('/', m.startsWith('@') ? m.indexOf('/') + 1 : 0));
const inlinedMemo = new WeakMap<SourceFile, { sites: SinkSite[]; regions: Array<readonly [number, number]> }>();

/**
 * In a bundle that inlines a client library (esbuild's `// node_modules/mongodb/lib/mongo_client.js` module
 * comments), the library's connecting class or function (`var MongoClient = class …`, `function createPool(…)`,
 * named as CONNECT_MODULES names the import) is declared in the bundle: a `new MongoClient(uri)` / `createPool(opts)`
 * of the bundle's own code that names that declaration is a connection like the one made through an import. The
 * library's own regions are returned too: the sockets it opens inside are the ones those calls reach. One pass per
 * file, memoised; only files whose text names such a package under node_modules are walked.
 */
function inlinedClientSites(rel: string, sf: SourceFile): { sites: SinkSite[]; regions: Array<readonly [number, number]> } {
  const known = inlinedMemo.get(sf);
  if (known) return known;
  const text = sf.getFullText();
  const declared = new Map<string, string>();
  const regions: Array<readonly [number, number]> = [];
  for (const mod of INLINABLE_CLIENTS) {
    if (!text.includes(`node_modules/${mod}/`)) continue;
    const rs = libraryRegions(text, new Set([mod]));
    if (!rs.length) continue;
    regions.push(...rs);
    const within = (at: number): boolean => rs.some(([a, b]) => at >= a && at < b);
    for (const st of sf.compilerNode.statements) {
      if (!within(st.getStart(sf.compilerNode))) continue;
      const names: string[] = [];
      if (ts.isClassDeclaration(st) || ts.isFunctionDeclaration(st)) {
        if (st.name) names.push(st.name.text);
      } else if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
      }
      for (const n of names) {
        // esbuild renames a clash (`MongoClient2`): the trailing digits are its own.
        const base = n.replace(/\d+$/, '');
        if (base && CONNECT_MODULES[mod]!.test(base)) declared.set(n, mod);
      }
    }
  }
  const sites: SinkSite[] = [];
  if (declared.size) {
    const inLibrary = (at: number): boolean => regions.some(([a, b]) => at >= a && at < b);
    const filter = namedFilter(declared.keys(), (cn) => (ts.isNewExpression(cn) || ts.isCallExpression(cn)) && ts.isIdentifier(cn.expression) && declared.has(cn.expression.text));
    for (const cn of rawOfKinds(sf, K.calls, filter)) {
      if (inLibrary(cn.getStart(sf.compilerNode))) continue;
      const n = wrapNode(sf, cn);
      const callee = (n as unknown as { getExpression(): Node }).getExpression();
      // The name must be the bundle's declaration, not a local of the same name.
      const d = Node.isIdentifier(callee) ? declarationOf(callee) : undefined;
      if (!d || !inLibrary(d.getStart())) continue;
      sites.push({ family: 'connect', call: callee.getText(), file: rel, ...positionOf(n), node: n });
    }
  }
  const out = { sites, regions: sites.length ? regions : [] };
  inlinedMemo.set(sf, out);
  return out;
}

/* ---------------- the detector ---------------- */

function judgeSources(repo: RepoFacts): Verdict {
  const src = readSources(repo, { pythonPart: true });
  if ('verdict' in src) return src.verdict;
  const sources = parsedSources(repo);
  const inputs = new Map<ts.Node, string>();
  for (const e of serverModel(repo).entries) {
    if (e.kind !== 'tool' || e.name === 'tools/call') continue;
    for (const i of e.inputs) {
      const p = e.fn.getParameters()[i.param];
      if (p) inputs.set(p.compilerNode, e.name);
    }
  }
  reading.inputs = inputs;
  reading.sources = sources;
  try {
    return judgeRead(repo, src.files, sources);
  } finally {
    reading.inputs = new Map();
    reading.sources = undefined;
    reading.files = undefined;
    reading.witness = undefined;
  }
}

/** A connection no flow reaches: configured, its destination unread, or (through a store the flows do not follow) a tool's argument. */
function connectionReading(s: SinkSite, sources: ReturnType<typeof parsedSources>, files: [string, SourceFile][]): { configured: true } | { configured: false; tool?: string; names?: string[] } {
  reading.witness = undefined;
  reading.names = undefined;
  reading.trail = [];
  const configured = configuredConnection(s, sources, files);
  const tool = reading.witness;
  const names = reading.names;
  reading.witness = undefined;
  reading.names = undefined;
  return configured ? { configured: true } : { configured: false, ...(tool ? { tool, names } : {}) };
}

function judgeRead(repo: RepoFacts, files: [string, SourceFile][], sources: ReturnType<typeof parsedSources>): Verdict {
  reading.files = files;
  const all = sinkSites(repo);
  const sites = all.filter((s) => s.family === 'http' || s.family === 'browser');
  // Connections that are not HTTP requests (databases, WebSockets, sockets) count only where a tool argument
  // decides their destination: a server whose database is configured keeps the rule's condition false.
  const connections = all.filter((s) => s.family === 'connect');
  const flows = toolFlows(repo).filter((f) => f.sinkKind === 'http' || f.sinkKind === 'navigate' || f.sinkKind === 'connect');
  // Sinks only a flow finds (a navigation sent over a socket to a browser extension, a Kubernetes context
  // chosen by a tool): the call at the flow's position.
  for (const f of flows) {
    if ([...sites, ...connections].some((s) => s.file === f.file && s.line === f.line && s.column === f.column)) continue;
    const node = callAt(sources, f.file, f.line, f.column);
    if (!node) continue;
    const site: SinkSite = { family: f.sinkKind === 'navigate' ? 'browser' : f.sinkKind === 'connect' ? 'connect' : 'http', call: f.sinkCall, file: f.file, line: f.line, column: f.column, node };
    (site.family === 'connect' ? connections : sites).push(site);
  }
  // A client library the bundle inlines: the bundle's own calls of its connecting class or function are its
  // connections; the sockets the library opens inside are what those calls reach (not sites of their own).
  const inlined = [...sources.files].map(([rel, sf]) => ({ rel, ...inlinedClientSites(rel, sf) })).filter((x) => x.sites.length);
  if (inlined.length) {
    const inside = (s: SinkSite): boolean =>
      inlined.some((x) => x.rel === s.file && x.regions.some(([a, b]) => s.node.getStart() >= a && s.node.getStart() < b));
    for (let i = connections.length - 1; i >= 0; i--) if (inside(connections[i]!)) connections.splice(i, 1);
    for (const x of inlined) for (const k of x.sites) if (!connections.some((c) => c.file === k.file && c.line === k.line && c.column === k.column)) connections.push(k);
  }
  // A Kubernetes API client connects to the cluster its KubeConfig loads or switches to.
  for (const k of kubeSites(sources)) {
    if (!connections.some((c) => c.file === k.file && c.line === k.line && c.column === k.column)) connections.push(k);
  }
  // A cluster client launched on a command line (kubectl, helm, oc) connects to a cluster: the one its command line
  // names, else its operator's kubeconfig.
  const launches: SinkSite[] = all.filter((s) => s.family === 'process');
  // Launches only a flow finds (a tool's arguments reaching a command line): the call at the flow's position.
  for (const f of toolFlows(repo)) {
    if (!['shell', 'process', 'argument'].includes(f.sinkKind) || launches.some((s) => s.file === f.file && s.line === f.line && s.column === f.column)) continue;
    const node = callAt(sources, f.file, f.line, f.column);
    if (node) launches.push({ family: 'process', call: f.sinkCall, file: f.file, line: f.line, column: f.column, node });
  }
  for (const s of launches) {
    if (connections.some((c) => c.file === s.file && c.line === s.line && c.column === s.column)) continue;
    if (launchOf(s)) connections.push({ ...s, family: 'connect' });
  }
  const flowAtSite = (s: SinkSite): boolean => flows.some((f) => f.file === s.file && f.line === s.line && f.column === s.column);
  const readings = new Map<SinkSite, ReturnType<typeof connectionReading>>();
  for (const s of connections) if (!flowAtSite(s)) readings.set(s, connectionReading(s, sources, files));
  // A navigation no flow reaches may still take a tool's argument the flows do not follow (a tool object's handler).
  for (const s of sites) if (s.family === 'browser' && !flowAtSite(s)) readings.set(s, connectionReading(s, sources, files));
  const steered = (s: SinkSite): string | undefined => {
    const r = readings.get(s);
    return r && !r.configured ? r.tool : undefined;
  };
  if (sites.length === 0 && !connections.some((s) => flowAtSite(s) || steered(s))) {
    // No connection seen (or only configured ones) is evidence of none steered only when every network client the
    // package depends on was read.
    const clients = unreadClientLibraries(repo, sources);
    if (clients.length) return couldNotJudge('client-library-unread', { libraries: clients.slice(0, 4).join(', ') });
    // Connections no tool argument was found reaching: the condition is false only when each one's
    // destination is shown to be the operator's (configured, or the library's defaults); else not known.
    const unread = connections.filter((s) => !readings.get(s)?.configured);
    const calls = (list: SinkSite[]): string => [...new Set(list.map((s) => s.call))].slice(0, 4).join(', ');
    if (unread.length) {
      const first = unread[0]!;
      return couldNotJudge('connection-destination-unread', { count: unread.length, calls: calls(unread), file: first.file, line: first.line });
    }
    // Not-applicable needs every file read and every client seen. A file skipped by the parse budget (its screen
    // found no registration) may hold a connection.
    if (sources.screened.length) return couldNotJudge('file-not-read', fileNotReadData(sources.screened[0]!));
    // A client library imported by a file read through which no connection was found: its destination was not read.
    const unseen = unseenClientImports(sources, connections);
    if (unseen.libraries.length) return couldNotJudge('client-connection-unseen', { libraries: unseen.libraries.slice(0, 4).join(', '), file: unseen.file ?? '' });
    if (!connections.length) {
      // No connection and no tool found: the server's code was not read (a launcher over a native binary, a bundle
      // not followed), so nothing shows that it makes no request (support/source/tool-absence decides).
      if (!serverModel(repo).entries.some((e) => e.kind === 'tool')) {
        const v = noToolsFound(repo);
        if (v.state !== 'not-applicable' || v.reason?.code !== 'no-tools-registered') return v;
      }
      return notApplicable('no-outbound-http');
    }
    return notApplicable('configured-connections', { calls: calls(connections) });
  }
  const widest = { url: 2, host: 1, path: 0 } as const;
  /** The flow reaching a site that reaches the most of its destination (several tools may reach one site). */
  const flowAt = (file: string, node: Node): Flow | undefined => {
    const { line, column } = positionOf(node);
    return flows
      .filter((f) => f.file === file && f.line === line && f.column === column)
      .sort((a, b) => widest[b.urlShape ?? 'url'] - widest[a.urlShape ?? 'url'] || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0))[0];
  };
  const dns = resolves(files);
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const push = (f: Finding): void => {
    const key = `${f.messageId}|${f.location?.file}:${f.location?.line}`;
    if (!seen.has(key)) findings.push(f);
    seen.add(key);
  };
  /** Sites whose destination is not shown fixed (written in the code, or a fixed origin the arguments only add a path to). */
  let open = 0;
  /** Connections no flow reaches whose destination is not shown configured. */
  const unreadConnections: SinkSite[] = [];
  /** Browser navigations whose destination is open and no source of it was found. */
  const unreadNavigations: SinkSite[] = [];
  for (const s of [...sites, ...connections]) {
    const client = clientOf(s, sources);
    if (!client) {
      if (s.family !== 'connect') open++;
      continue;
    }
    const flow = flowAt(s.file, s.node);
    const via = (s.family === 'connect' || s.family === 'browser') && !flow ? steered(s) : undefined;
    if (s.family === 'connect' && !flow && !via) {
      // No tool argument was found reaching it: it keeps the verdict clean only when its destination is shown
      // to be the operator's, as where the source opens connections only.
      if (!readings.get(s)?.configured) unreadConnections.push(s);
      continue;
    }
    // The arguments reach only the path or query of a fixed origin: the destination is not theirs to choose.
    if (flow?.urlShape === 'path' && !client.hostOnly) continue;
    const names = new Set<string>();
    let influence: Influence | undefined;
    if (flow || via) {
      if (client.url) metadataTaint(client.url, names, files);
      const r = via ? readings.get(s) : undefined;
      if (r && !r.configured) for (const x of r.names ?? []) names.add(x);
      influence = { source: 'tool_argument', name: flow?.tool ?? via!, names };
    } else {
      const field = metadataTaint(client.url, names, files);
      if (field) influence = { source: 'oauth_metadata', name: field, names };
    }
    if (!influence) {
      if (client.hostOnly ? !(client.url && stringValue(client.url) !== undefined) : !fixedDestination(client.url, files)) {
        open++;
        // A browser navigation to a destination neither fixed nor traced to its source (a tool object's handle the
        // flows do not follow): where it goes is not read, so it cannot count as checked.
        if (s.family === 'browser') unreadNavigations.push(s);
      }
      continue;
    }
    const written = client.hostOnly ? (client.url && stringValue(client.url) !== undefined ? 'fixed' : 'host') : shapeOf(client.url, influence.source === 'oauth_metadata' ? files : undefined);
    const shape = written !== 'fixed' && flow?.urlShape === 'host' ? 'host' : written;
    if (shape === 'fixed') continue;
    open++;
    // A cluster chosen in the lists a helper's callers pass: the checks around those calls count too.
    const launchCallers = s.family === 'connect' && launchOf(s) ? clusterValues(Node.isCallExpression(s.node) ? args(s.node) : []).callers : [];
    const scope = [...scopeOf(s.node, files, sources), ...launchCallers.flatMap((c) => enclosingFunction(c) ?? [])];
    addHelperParameters(scope, client.url, influence.names, sources);
    const g = guardsIn(scope, influence);
    if (flow?.guard === 'sound' && flow.guardDetail === 'allowlist' && !schemeOnlyCheck(flow, sources)) g.allowlist = true;
    const at = locationOf(s.file, s.node);
    const data = { call: client.label, source: influence.source, name: influence.name };
    if (!g.allowlist && !g.library) {
      if (g.handWritten) {
        const file = sources.rel(g.handWritten.getSourceFile());
        push({ messageId: 'hand-written-address-check', data: { call: client.label }, location: locationOf(file, g.handWritten) });
      } else push({ messageId: s.family === 'connect' ? 'unvalidated-connection' : shape === 'url' ? 'unvalidated-url' : 'unvalidated-host', data, location: at });
    } else if (!g.allowlist && g.library && !dns) {
      push({ messageId: 'no-resolution-check', data: { call: client.label }, location: at });
    }
    if (client.followsRedirects) push({ messageId: 'redirects-followed', data: { call: client.label }, location: at });
  }
  if (findings.length) return { state: 'non-conforming', findings };
  // A connection whose destination could not be read (a connection string kept on a registry entry the reading
  // does not follow) may be one a tool chooses: neither clean nor red.
  if (unreadConnections.length) {
    const first = unreadConnections[0]!;
    const calls = [...new Set(unreadConnections.map((c) => c.call))].slice(0, 4).join(', ');
    return couldNotJudge('connection-destination-unread', { count: unreadConnections.length, calls, file: first.file, line: first.line });
  }
  if (unreadNavigations.length) {
    const first = unreadNavigations[0]!;
    return couldNotJudge('navigation-destination-unread', { count: unreadNavigations.length, call: first.call, file: first.file, line: first.line });
  }
  // Every destination is written in the code (an API wrapper over its own host): nobody else can influence one.
  return open === 0 ? notApplicable('fixed-destinations') : present();
}

export default [
  defineDetector({
    ruleId: 'S-10',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'unvalidated-url': ['call', 'source', 'name'],
      'unvalidated-host': ['call', 'source', 'name'],
      'unvalidated-connection': ['call', 'source', 'name'],
      'hand-written-address-check': ['call'],
      'no-resolution-check': ['call'],
      'redirects-followed': ['call'],
    },
    judge({ inputs: { repo } }): Verdict {
      return judgeSources(repo);
    },
  }),
  python,
];
