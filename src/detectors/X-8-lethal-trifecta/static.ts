import { couldNotJudge, defineDetector } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { sinkSites, toolFlows } from '../../facts/flow.js';
import { PARAMIKO_EXEC, pythonFlows } from '../../facts/python-flow.js';
import { pythonModel } from '../../facts/python-model.js';
import { unreadableVerdict } from '../support/python/python-support.js';
import { hasPythonSource } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import { schemaOutline, schemaPropertyNames, serverModel } from '../../facts/server-model.js';
import { Node, ts } from '../../facts/morph.js';
import { declarationOf, findNodes, rawOriginOf } from '../../facts/scope.js';
import { parsedSources, unwrap } from '../../facts/ts-source.js';
import { asksUser, pyReachedPieces, reachedPieces, rootModule, usesModule } from './reach.js';
import { asksBefore, gatesOf, type Gate } from './approval.js';
import { noToolsFound } from '../support/source/tool-absence.js';
import { pyprojectFields } from '../../probe/package-of.js';
import { toolsToJudge } from '../support/source/generated-tools.js';
import { documentOperations, operationsOf, shippedOpenApiDocument, type DocumentOperation } from '../support/source/document-operations.js';
import { addHits, classifyTool, emptyLegs, schemaFacts, EXTENSION_BRIDGE, EXTENSION_PROSE, isTrifecta, legEvidence, nameWords, toolList, VERBS, type LegHit, type LegMap, type Leg } from './legs.js';

/**
 * lethal trifecta in one server (static). Reads the tools a server registers in its source — the
 * JavaScript/TypeScript server model and the Python model — and sorts each into the legs of legs.ts from
 * what the source says of it (name, title, description, input schema property names, literal annotations)
 * and from what its handler does:
 *
 *  - the flows of facts/flow (JS/TS) and facts/python-flow: a request to a URL that comes from the tool's
 *    arguments is an outbound channel and untrusted content (only untrusted content when the URL is checked
 *    against an allowlist first: the destinations are then fixed by the operator); a file read at a path that
 *    comes from the arguments is private data; a command the arguments choose (no allowlist before it), run
 *    over SSH or in a container or pod, is the three legs at once;
 *  - the APIs of SOURCE_APIS: a client library for mail, chat, databases or browsers, imported by the
 *    handler's file (and, when the entry lists calls, one of them written in the handler).
 *
 * Red when the tools together cover the three legs; the finding sits at the registration of an outbound tool.
 * could-not-judge when there is no source, no registration, or when tool names computed at run time leave
 * legs unread and fewer than three legs were found.
 */

/** Client libraries whose use puts a handler on a leg. `calls`, when given, must appear in the handler. */
export const SOURCE_APIS: readonly { id: string; lang: 'js' | 'py'; modules: readonly string[]; calls?: readonly string[]; legs: readonly Leg[] }[] = [
  { id: 'api-mail-send', lang: 'js', modules: ['nodemailer', '@sendgrid/mail', 'resend', 'postmark', 'mailgun.js'], calls: ['sendMail', 'send', 'sendEmail'], legs: ['outbound'] },
  { id: 'api-mail-read', lang: 'js', modules: ['imapflow', 'imap', 'node-imap', 'imap-simple', 'mailparser'], legs: ['private', 'untrusted'] },
  { id: 'api-database', lang: 'js', modules: ['pg', 'mysql', 'mysql2', 'mysql2/promise', 'better-sqlite3', 'sqlite3', 'sqlite', 'mssql', 'oracledb', 'mongodb', 'mongoose', '@prisma/client', 'knex', 'redis', 'ioredis', '@supabase/supabase-js'], legs: ['private'] },
  { id: 'api-chat-post', lang: 'js', modules: ['@slack/web-api', '@slack/bolt', 'discord.js', 'telegraf', 'twilio'], calls: ['postMessage', 'uploadV2', 'send', 'sendMessage', 'create'], legs: ['outbound'] },
  { id: 'api-chat-read', lang: 'js', modules: ['@slack/web-api', 'discord.js'], calls: ['history', 'replies', 'fetch'], legs: ['private', 'untrusted'] },
  { id: 'api-browser', lang: 'js', modules: ['playwright', 'playwright-core', 'puppeteer', 'puppeteer-core', 'selenium-webdriver'], calls: ['goto', 'get'], legs: ['untrusted', 'outbound'] },
  { id: 'api-html-parse', lang: 'js', modules: ['cheerio', 'jsdom', '@mozilla/readability', 'turndown', 'node-html-parser'], legs: ['untrusted'] },
  { id: 'api-forge-write', lang: 'js', modules: ['@octokit/rest', 'octokit', '@octokit/core', '@gitbeaker/rest', '@linear/sdk', 'jira-client'], calls: ['createComment', 'createIssue', 'createPullRequest', 'addComment'], legs: ['outbound'] },
  { id: 'api-mail-send', lang: 'py', modules: ['smtplib', 'aiosmtplib', 'sendgrid', 'yagmail'], legs: ['outbound'] },
  { id: 'api-mail-read', lang: 'py', modules: ['imaplib', 'aioimaplib', 'imap_tools', 'poplib'], legs: ['private', 'untrusted'] },
  { id: 'api-database', lang: 'py', modules: ['sqlite3', 'aiosqlite', 'psycopg', 'psycopg2', 'asyncpg', 'pymysql', 'mysql', 'sqlalchemy', 'pymongo', 'motor', 'redis', 'duckdb'], legs: ['private'] },
  { id: 'api-chat-post', lang: 'py', modules: ['slack_sdk', 'discord', 'telegram', 'twilio'], legs: ['outbound'] },
  { id: 'api-browser', lang: 'py', modules: ['playwright', 'selenium', 'pyppeteer'], legs: ['untrusted', 'outbound'] },
  { id: 'api-html-parse', lang: 'py', modules: ['bs4', 'trafilatura', 'readability', 'markdownify', 'html2text', 'lxml'], legs: ['untrusted'] },
];

/** Launchers that run their command on another machine: a remote host over SSH, a container, a pod. */
const REMOTE_LAUNCHERS: ReadonlySet<string> = new Set(['ssh', 'docker', 'kubernetes']);

/** The leftmost literal text of an expression built by `+` or a template, if any. */
function leadingText(n: Node | undefined, depth = 0): string | undefined {
  if (!n || depth > 8) return undefined;
  const u = unwrap(n);
  if (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u)) return u.getLiteralValue();
  if (Node.isTemplateExpression(u)) return u.getHead().getLiteralText();
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getText() === '+') return leadingText(u.getLeft(), depth + 1);
  if (Node.isNewExpression(u) || Node.isCallExpression(u)) {
    // new URL(path, 'https://api.example.com') — the base fixes the host when the first argument is a path.
    const [first, base] = u.getArguments();
    const lead = leadingText(first, depth + 1);
    if (lead !== undefined && /^\//.test(lead)) return leadingText(base, depth + 1);
    return lead;
  }
  return undefined;
}

/** The leftmost piece of a URL built by `+` or a template (`this.baseUrl + path`, `${BASE}/issue/${key}`). */
function leadingPiece(n: Node | undefined, depth = 0): Node | undefined {
  if (!n || depth > 8) return undefined;
  const u = unwrap(n);
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getText() === '+') return leadingPiece(u.getLeft(), depth + 1);
  if (Node.isTemplateExpression(u) && u.getHead().getLiteralText() === '') return leadingPiece(u.getTemplateSpans()[0]?.getExpression(), depth + 1);
  return u;
}

/** Names of a base address set once by the operator's configuration (`baseUrl`, `JIRA_BASE_URL`, `this.apiHost`). */
const BASE_NAME = /(?:base|root|api|server|instance|site|host)_?(?:url|uri|address|endpoint)?$|^(?:url|host|origin|endpoint)$/i;

/**
 * A URL whose leftmost piece is a base address fixed before any call: a field of the client object
 * (`this.baseUrl`, set when it is built) or a module-level constant, named as a base address. Tool arguments
 * then fill only the path or the query: the destination is the operator's, not the caller's.
 */
function configuredBase(first: Node | undefined): boolean {
  const p = leadingPiece(first);
  if (!p || p === (first && unwrap(first))) return false;
  if (Node.isPropertyAccessExpression(p)) return Node.isThisExpression(unwrap(p.getExpression())) && BASE_NAME.test(p.getName());
  if (!Node.isIdentifier(p) || !BASE_NAME.test(p.getText())) return false;
  const d = declarationOf(p)?.getParent();
  return !!d && Node.isVariableDeclaration(d) && Node.isSourceFile(d.getVariableStatement()?.getParent());
}

/** Whether a request call's URL starts with a literal scheme and host, or a configured base address: its destination is fixed before the call. */
function fixedHost(site: Node): boolean {
  const call = Node.isCallExpression(site) || Node.isNewExpression(site) ? site : site.getFirstAncestor((a) => Node.isCallExpression(a));
  if (!call || !(Node.isCallExpression(call) || Node.isNewExpression(call))) return false;
  const lead = leadingText(call.getArguments()[0]);
  return (lead !== undefined && /^https?:\/\/[^/?#\s]+[/?#]/i.test(lead)) || configuredBase(call.getArguments()[0]);
}

/** HTTP methods read as the verb of an operation whose path names none. */
const METHOD_VERBS: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

/**
 * The legs of one API operation a tool is built from: its own name and summary, as a served tool would say
 * them, and its method and path read as a name (`GET /me/messages` reads `get me messages`; `POST /me/sendMail`
 * reads `me send mail`, the path's own verb first). `{parameters}` and version segments are left out.
 */
export function operationHits(op: DocumentOperation, context: string): LegHit[] {
  const words = op.path
    .split('/')
    .filter((seg) => seg && !/^[{:]/.test(seg) && !/^v\d+(?:\.\d+)?$/i.test(seg) && !/^(?:api|rest)$/i.test(seg))
    .flatMap((seg) => nameWords(seg));
  const pathName = (words.some((w) => VERBS.has(w)) ? words : [METHOD_VERBS[op.method] ?? 'get', ...words]).join('_');
  const ctx = context.trim() ? { context: context.trim() } : {};
  const hits = classifyTool({ name: pathName, ...(op.summary ? { description: op.summary } : {}), properties: op.params, ...ctx });
  if (op.name) for (const h of classifyTool({ name: op.name, ...(op.summary ? { description: op.summary } : {}), properties: op.params, ...ctx })) if (!hits.some((x) => x.leg === h.leg)) hits.push(h);
  return hits;
}

/** A constructor that may be a WebSocket server (`new WebSocketServer(…)`, `new WebSocket.Server(…)`, `new ws.Server(…)`): a cheap filter before the origin is read. */
const WS_SERVER = /\bnew\s+(?:WebSocketServer|[\w$]+\.(?:WebSocketServer|Server))\s*\(/;
/** A browser named within a few words of "extension" (`No browser connected: open the extension`), not a file extension. */
const BROWSER_NEAR_EXTENSION = /\b(?:browser|chrome|firefox)\b(?:\W+\w+){0,4}?\W+extension\b|\bextension\b(?:\W+\w+){0,4}?\W+(?:browser|chrome|firefox)\b/i;
const namesBrowserExtension = (text: string): boolean => EXTENSION_PROSE.test(text) || BROWSER_NEAR_EXTENSION.test(text);

/** Does the file construct a WebSocket server of the `ws` package (the constructor imported from 'ws', not an http.Server or Hapi.Server)? */
function wsServer(sf: Node): boolean {
  return findNodes(sf, (cn) => {
    if (!ts.isNewExpression(cn)) return false;
    const name = ts.isIdentifier(cn.expression) ? cn.expression.text : ts.isPropertyAccessExpression(cn.expression) ? cn.expression.name.text : '';
    if (name !== 'WebSocketServer' && name !== 'Server') return false;
    return rawOriginOf(cn.expression)?.module === 'ws';
  }).length > 0;
}

/**
 * Whether the server drives a browser through an extension installed in the user's own browser: one of its files opens
 * a WebSocket server of `ws` (the local bridge the extension connects to), and that file or the package's description
 * or keywords name a browser extension (`Chrome extension`, not a file extension). Read once per audit, over the file
 * texts already parsed.
 */
export function extensionBridge(repo: RepoFacts, sources: ReturnType<typeof parsedSources>): boolean {
  const pkg = repo.object('package.json');
  const about = pkg.ok ? [pkg.value.description, ...(Array.isArray(pkg.value.keywords) ? pkg.value.keywords : [])].filter((x): x is string => typeof x === 'string').join(' ') : '';
  const described = namesBrowserExtension(about.replace(/-/g, ' '));
  for (const [rel, sf] of sources.files) {
    if (rel.startsWith('node_modules/')) continue;
    const text = sf.getFullText();
    if (!WS_SERVER.test(text) || !(described || namesBrowserExtension(text))) continue;
    if (wsServer(sf)) return true;
  }
  return false;
}

interface Located {
  file: string;
  line: number;
}

/** Legs of the tools a repository registers, with where each tool is registered; a Verdict when unreadable. */
export function sourceLegs(repo: RepoFacts): { ok: true; legs: LegMap; at: Map<string, Located>; tools: number; computed: number; confirmed: string[]; unread?: Verdict } | { ok: false; verdict: Verdict } {
  const model = serverModel(repo);
  // Tools written one by one, else the tools a template builds at run time (support/source/generated-tools).
  const jsTools = toolsToJudge(repo);
  const python = hasPythonSource(repo);
  const py = python ? pythonModel(repo) : undefined;
  const pyTools = (py?.tools ?? []).filter((t) => t.kind === 'tool');
  if (model.files.length === 0 && !python) return { ok: false, verdict: couldNotJudge('no-source') };
  if (jsTools.length === 0 && pyTools.length === 0) {
    if (python && !py) return { ok: false, verdict: couldNotJudge('source-language-not-read') };
    return { ok: false, verdict: noToolsFound(repo) };
  }
  const legs = emptyLegs();
  const at = new Map<string, Located>();
  // The package's name says which product the server wraps (legs.ts productOf).
  const pkg = repo.object('package.json');
  // A Python server's name is its pyproject.toml's ([project], else [tool.poetry]).
  const pyproject = !pkg.ok && python ? repo.text('pyproject.toml') : undefined;
  const pkgName = pkg.ok && typeof pkg.value.name === 'string' ? pkg.value.name : pyproject?.ok ? pyprojectFields(pyproject.value)?.name : undefined;
  // A browser reached through an extension of the user's own browser: its pages carry the user's profile (legs.ts).
  const bridged = jsTools.length > 0 && extensionBridge(repo, parsedSources(repo));
  const context = bridged ? `${pkgName ?? ''} ${EXTENSION_BRIDGE}`.trim() : pkgName;
  /** Tools whose handler asks the user before it acts: their requests go out only with the user's approval. */
  const confirmed = new Set<string>();
  let computed = 0;

  // JavaScript / TypeScript.
  if (jsTools.length) {
    const sources = parsedSources(repo);
    const flowHits = new Map<string, LegHit[]>();
    const sites = new Map(sinkSites(repo).map((x) => [`${x.file}:${x.line}:${x.column}`, x]));
    for (const f of toolFlows(repo)) {
      const hits = flowHits.get(f.tool) ?? [];
      if (f.sinkKind === 'http') {
        const site = sites.get(`${f.file}:${f.line}:${f.column}`);
        if (f.guard === 'sound') hits.push({ leg: 'untrusted', rule: 'request-to-allowlisted-url' });
        else if (site && fixedHost(site.node)) hits.push({ leg: 'untrusted', rule: 'request-to-fixed-host' });
        else hits.push({ leg: 'untrusted', rule: 'request-to-argument-url' }, { leg: 'outbound', rule: 'request-to-argument-url' });
      }
      if (f.sinkKind === 'fs' && f.access === 'read') hits.push({ leg: 'private', rule: 'reads-argument-path' });
      // A command the arguments choose, run on a remote host (SSH) or in a container or pod, whatever the tool is called:
      // the three legs at once (what the host holds, output others wrote, and any destination the command names).
      if ((f.sinkKind === 'shell' || f.sinkKind === 'process') && f.guard !== 'sound') {
        if (f.launcher && REMOTE_LAUNCHERS.has(f.launcher)) for (const leg of ['private', 'untrusted', 'outbound'] as const) hits.push({ leg, rule: 'argument-command-on-remote-host' });
      }
      flowHits.set(f.tool, hits);
    }
    const rowDocuments = new Map<string, ReturnType<typeof operationsOf> | undefined>();
    const handlerReach = new Map<Node, { hits: LegHit[]; gates: Gate[] }>();
    for (const t of jsTools) {
      if (!t.nameIsLiteral) {
        // Names computed from an API document shipped in the package: each operation is a tool, read from the document.
        const doc = documentOperations(repo, t) ?? shippedOpenApiDocument(repo);
        if (!doc) {
          computed++;
          continue;
        }
        for (const op of doc.operations) {
          const label = op.name ?? `${op.method} ${op.path}`;
          addHits(legs, label, operationHits(op, `${doc.context} ${context ?? ''}`));
          if (!at.has(label)) at.set(label, { file: t.file, line: t.nameLine ?? t.line });
        }
        continue;
      }
      const hits: LegHit[] = classifyTool({
        name: t.name,
        ...(t.title !== undefined ? { title: t.title } : {}),
        ...(t.description !== undefined ? { description: t.description } : {}),
        properties: schemaPropertyNames(t.inputSchema, sources),
        annotations: t.annotations ?? {},
        // What the served schema would show beyond the names: URL-typed arguments and the operation selector's enum.
        ...schemaFacts(schemaOutline(t.inputSchema, sources)),
        ...(context ? { context } : {}),
      });
      // A row of a data document the package ships (facts/data-documents): its operation as the document says it, and
      // the flows of the one handler the rows share (named by the registration's name expression).
      const shared = (t.item?.document || t.item?.table) && Node.isCallExpression(t.node) && t.node.getArguments()[0] ? unwrap(t.node.getArguments()[0]!).getText() : undefined;
      if (t.item?.document) {
        if (!rowDocuments.has(t.item.document)) {
          const read = repo.json(t.item.document);
          rowDocuments.set(t.item.document, read.ok ? operationsOf(read.value) : undefined);
        }
        const doc = rowDocuments.get(t.item.document);
        const op = doc?.operations.find((o) => o.name === t.name);
        if (doc && op) hits.push(...operationHits(op, `${doc.context} ${context ?? ''}`));
      }
      hits.push(...(flowHits.get(t.name) ?? (shared ? flowHits.get(shared) : undefined) ?? []));
      if (t.handler) {
        // One reading per handler: the rows of a data document share theirs.
        let reached = handlerReach.get(t.handler);
        if (!reached) {
          const pieces = reachedPieces(t.handler, sources);
          const apiHits: LegHit[] = [];
          for (const api of SOURCE_APIS.filter((a) => a.lang === 'js')) {
            if (api.modules.map(rootModule).some((m) => usesModule(pieces, m, api.calls))) for (const leg of api.legs) apiHits.push({ leg, rule: api.id });
          }
          // The places it asks the human, each with the tool names its branches require (approval.ts).
          handlerReach.set(t.handler, (reached = { hits: apiHits, gates: asksUser(pieces) ? gatesOf(t.handler, sources) : [] }));
        }
        hits.push(...reached.hits);
        if (asksBefore(reached.gates, t.name)) confirmed.add(t.name);
      }
      addHits(legs, t.name, hits);
      if (!at.has(t.name)) at.set(t.name, { file: t.file, line: t.nameLine ?? t.line });
    }
  }

  // Python.
  if (py && pyTools.length) {
    const flowHits = new Map<string, LegHit[]>();
    for (const f of pythonFlows(py, 'http')) {
      const hits = flowHits.get(f.handler) ?? [];
      hits.push(...(f.problem === undefined ? [{ leg: 'untrusted' as const, rule: 'request-to-allowlisted-url' }] : [{ leg: 'untrusted' as const, rule: 'request-to-argument-url' }, { leg: 'outbound' as const, rule: 'request-to-argument-url' }]));
      flowHits.set(f.handler, hits);
    }
    // A command the arguments choose, sent over SSH (paramiko): the three legs at once, as for JS above.
    for (const f of pythonFlows(py, 'command')) {
      if (f.sink !== PARAMIKO_EXEC || f.problem === undefined) continue;
      flowHits.set(f.handler, [...(flowHits.get(f.handler) ?? []), ...(['private', 'untrusted', 'outbound'] as const).map((leg) => ({ leg, rule: 'argument-command-on-remote-host' }))]);
    }
    for (const f of pythonFlows(py, 'file')) {
      if (!/open|read|load|glob|iterdir|listdir|scandir|walk/i.test(f.sink)) continue;
      flowHits.set(f.handler, [...(flowHits.get(f.handler) ?? []), { leg: 'private', rule: 'reads-argument-path' }]);
    }
    for (const t of pyTools) {
      const hits: LegHit[] = classifyTool({ name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), properties: t.params.map((p) => p.name), ...(context ? { context } : {}) });
      hits.push(...(flowHits.get(t.name) ?? []));
      const file = py.sources.files.get(t.file);
      if (file && t.handler) {
        const pieces = pyReachedPieces(t.handler, file);
        for (const api of SOURCE_APIS.filter((a) => a.lang === 'py')) {
          if (api.modules.some((m) => usesModule(pieces, m, api.calls))) for (const leg of api.legs) hits.push({ leg, rule: api.id });
        }
        if (asksUser(pieces)) confirmed.add(t.name);
      }
      addHits(legs, t.name, hits);
      if (!at.has(t.name)) at.set(t.name, { file: t.file, line: t.line });
    }
  }
  // An outbound channel the user approves call by call, with its arguments shown, is not open to an injected
  // instruction (the field guide's fallback when the triangle cannot be broken).
  for (const name of confirmed) legs.outbound = legs.outbound.filter((x) => x.tool !== name);
  // A Python file left unread, or a tool whose code the parser had to repair, may hold a leg: no clean verdict over it.
  const unread = py ? unreadableVerdict(py) : undefined;
  return { ok: true, legs, at, tools: jsTools.length + pyTools.length, computed, confirmed: [...confirmed].sort(), ...(unread ? { unread } : {}) };
}

export default defineDetector({
  ruleId: 'X-8',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'source-trifecta': ['private', 'untrusted', 'outbound', 'tool'],
  },
  judge({ inputs: { repo } }) {
    const r = sourceLegs(repo);
    if (!r.ok) return r.verdict;
    const { legs, at } = r;
    if (isTrifecta(legs)) {
      const tool = [...legs.outbound.map((x) => x.tool)].sort()[0]!;
      const f: Finding = {
        messageId: 'source-trifecta',
        data: { private: toolList(legs.private), untrusted: toolList(legs.untrusted), outbound: toolList(legs.outbound), tool },
        evidence: legEvidence(legs),
      };
      const loc = at.get(tool);
      if (loc) f.location = { file: loc.file, line: loc.line };
      return { state: 'non-conforming', findings: [f] };
    }
    if (r.computed) return couldNotJudge('tool-legs-incomplete', { count: r.computed });
    if (r.unread) return r.unread;
    return { state: 'present', findings: [], reason: { code: 'trifecta-legs', data: { private: legs.private.length, untrusted: legs.untrusted.length, outbound: legs.outbound.length, tools: r.tools, confirmed: r.confirmed.length } } };
  },
});
