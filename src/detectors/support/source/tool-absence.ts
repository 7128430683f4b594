import { Node, SyntaxKind, ts } from '../../../facts/morph.js';
import { couldNotJudge, notApplicable } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { rawOriginOf } from '../../../facts/scope.js';
import { modelFiles, propertyValue, objectLiteralOf, serverModel } from '../../../facts/server-model.js';
import type { SessionFacts } from '../../../facts/session.js';
import { ofKinds, parsedSources, propertyName, sourceFilesOf, unwrap } from '../../../facts/ts-source.js';
import { servedTools } from '../live/dynamic-text.js';
import { fileNotReadData } from '../../../facts/not-read.js';
import { rawCallNamed } from './source-support.js';
import { relayOf } from './relay.js';

/**
 * What a static part says when it finds no tool registered in the source. Not finding a registration is
 * not evidence that there is none: a launcher over a bundle that was not read, tools registered by a
 * dependency, a registration written in a way the reading does not follow. not-applicable needs evidence
 * that the server serves no tool:
 *
 *   - with a recorded session, the served tools count: tools served → could-not-judge
 *     'served-tools-not-in-source' (the source reading missed them); no tool served (no tools capability,
 *     or an empty tools/list read to its end) → not-applicable 'no-tools-served';
 *   - without one, the source must show the whole server: every source file was read, and it builds its
 *     MCP server itself (`new McpServer(…)`, `new Server(…)`, `new FastMCP(…)` imported from an MCP SDK)
 *     — then not-applicable 'no-tools-registered'. A registration call whose tool could not be followed
 *     (`server.addTool(tool)` over a list built at run time, a wrapper called with a value built elsewhere) comes
 *     first: could-not-judge 'tool-registrations-not-read', naming the first call's file and line; so does a
 *     tools/list handler whose list could not be read (a Map filled from
 *     documents named at run time) — it serves tools, only the reading does not see them. A low-level `Server` whose capabilities literal
 *     declares `tools` serves tools the reading did not find: could-not-judge 'tools-declared-not-found'. A relay
 *     (support/source/relay.ts: a transport handler forwarding each message to another server, a request handler
 *     forwarding the request it receives to another client, a tools/list handler answering with another client's list) comes before both: not-applicable 'relays-upstream-tools' with its place.
 *     Anything else: could-not-judge 'no-tools-in-source'. A dependency named as holding the tools that could
 *     not be read (facts/published: not installed, too large) comes first: could-not-judge 'file-not-read' naming it.
 */

const SERVER_CLASSES: ReadonlySet<string> = new Set(['McpServer', 'Server', 'FastMCP']);
const SDK_MODULE = /^(?:@modelcontextprotocol\/(?:sdk(?:\/.*)?|server(?:\/.*)?)|fastmcp(?:\/.*)?)$/;

interface Construction {
  cls: string;
  /** For a low-level Server: does its capabilities literal declare tools (undefined when it cannot be read)? */
  declaresTools?: boolean;
}

/** The MCP servers the source builds itself. */
function constructions(repo: RepoFacts): Construction[] {
  const parsed = parsedSources(repo);
  const out: Construction[] = [];
  for (const [, sf] of modelFiles(parsed)) {
    for (const n of ofKinds(sf, [SyntaxKind.NewExpression], rawCallNamed(SERVER_CLASSES))) {
      if (!Node.isNewExpression(n)) continue;
      const callee = n.compilerNode.expression;
      const o = rawOriginOf(callee);
      const cls = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (!o || !SDK_MODULE.test(o.module) || !SERVER_CLASSES.has(o.path[o.path.length - 1] ?? cls)) continue;
      const c: Construction = { cls };
      if (cls === 'Server') {
        const opts = objectLiteralOf(n.getArguments()[1], parsed);
        const caps = opts ? propertyValue(opts, 'capabilities') : undefined;
        const capsObj = caps ? objectLiteralOf(unwrap(caps), parsed) : undefined;
        if (capsObj && !capsObj.getProperties().some((p) => Node.isSpreadAssignment(p))) {
          c.declaresTools = capsObj.getProperties().some((p) => (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p)) && propertyName(p.getNameNode()) === 'tools');
        }
      }
      out.push(c);
    }
  }
  return out;
}

/** The verdict of a static part that found no tool registered in the source (see the file header). */
export function noToolsFound(repo: RepoFacts, session?: SessionFacts): Verdict {
  if (session) {
    const served = servedTools(session);
    if (served.ok && served.tools.length > 0) return couldNotJudge('served-tools-not-in-source', { served: served.tools.length });
    if (served.ok && served.complete) return notApplicable('no-tools-served');
  }
  const parsed = parsedSources(repo);
  // A dependency the tools live in that could not be read (facts/published): named.
  const dependency = parsed.unread.find((u) => u.file.startsWith('node_modules/') && u.file.endsWith('/'));
  if (dependency) return couldNotJudge('file-not-read', fileNotReadData(dependency));
  const unread = sourceFilesOf(repo).filter((f) => !parsed.files.has(f));
  if (unread.length > 0) return couldNotJudge('no-tools-in-source', { unread: unread.length });
  // Registrations the reading found but could not follow (`server.addTool(tool)` over a list built at run time).
  const missed = serverModel(repo).unread;
  if (missed.length > 0) {
    const first = missed[0]!;
    return couldNotJudge('tool-registrations-not-read', { count: missed.length, expression: first.expression, file: first.file, line: first.line });
  }
  // A relay (a gateway or proxy forwarding its client's messages to another MCP server, support/source/relay.ts)
  // serves that server's tools and declares none of its own.
  const relay = relayOf(repo);
  if (relay) return notApplicable('relays-upstream-tools', { file: relay.file, line: relay.line });
  const built = constructions(repo);
  if (built.some((c) => c.declaresTools)) return couldNotJudge('tools-declared-not-found');
  // A tools/list handler whose list the reading could not follow (a proxy's `client.listTools()`, `this.tools.values()`
  // filled from documents given at run time): the server serves tools, named by the handler's place.
  const lists = serverModel(repo).requestHandlers.filter((r) => r.method === 'tools/list');
  if (lists.length > 0) {
    const first = lists[0]!;
    const text = first.node.getText().replace(/\s+/g, ' ');
    return couldNotJudge('tool-registrations-not-read', { count: lists.length, expression: text.length > 80 ? `${text.slice(0, 77)}...` : text, file: first.file, line: first.line });
  }
  return built.length > 0 ? notApplicable('no-tools-registered') : couldNotJudge('no-tools-in-source', { unread: 0 });
}

/**
 * The verdict of a part that reads tool handlers (commands, paths, outputs) when the source shows none. As
 * noToolsFound, except that a server built with no registration found stays could-not-judge 'no-tools-in-source':
 * these parts guard against harm, and a registration the reading does not follow (a wrapper, a table, a helper of
 * a dependency) would leave a wrong not-applicable behind. A relay is not-applicable on its evidence.
 */
export function noHandlersFound(repo: RepoFacts): Verdict {
  const v = noToolsFound(repo);
  return v.state === 'not-applicable' && v.reason?.code === 'no-tools-registered' ? couldNotJudge('no-tools-in-source', { unread: 0 }) : v;
}

/**
 * Before a static part says not-applicable because no tool it read meets the rule's condition (no list or search
 * tool, no tool of a kind), the evidence that it read every tool: undefined when nothing says a tool was missed,
 * else the could-not-judge verdict naming what was missed. In this order:
 *   - a recorded session serving tools whose names the source reading does not hold → 'served-tools-not-read'
 *     (how many, and the first);
 *   - registrations the reading found but could not follow → 'tool-registrations-not-read';
 *   - tools registered under a name computed at run time → 'tool-names-computed' (a computed name may be `list_…`);
 *   - tools read only as free-standing definitions (`{ name, inputSchema }` objects), with no registration and no
 *     tools/list handler in the source read: what lists them to clients (a server class of a dependency, an OpenAPI
 *     loader) was not read, and may list others → 'tools-listed-elsewhere', naming the first definition.
 * `read` are the tools the part judged (names and whether each name was read as written).
 */
export function catalogGap(repo: RepoFacts, read: readonly { name: string; nameIsLiteral: boolean; file?: string; line?: number }[], session?: SessionFacts): Verdict | undefined {
  if (session) {
    const served = servedTools(session);
    if (served.ok) {
      const names = new Set(read.filter((t) => t.nameIsLiteral).map((t) => t.name));
      const missed = served.tools.map((t) => t['name']).filter((n): n is string => typeof n === 'string' && !names.has(n));
      if (missed.length > 0) return couldNotJudge('served-tools-not-read', { count: missed.length, first: missed[0]! });
      // Every served tool was read from the source: the catalog is whole, whatever else the reading missed.
      if (served.complete) return undefined;
    }
  }
  const missed = serverModel(repo).unread;
  if (missed.length > 0) {
    const first = missed[0]!;
    return couldNotJudge('tool-registrations-not-read', { count: missed.length, expression: first.expression, file: first.file, line: first.line });
  }
  const computed = read.filter((t) => !t.nameIsLiteral);
  if (computed.length > 0) {
    const first = computed[0]!;
    return couldNotJudge('tool-names-computed', { count: computed.length, expression: first.name, file: first.file ?? '', line: first.line ?? 0 });
  }
  const model = serverModel(repo);
  if (model.tools.length > 0 && model.tools.every((t) => t.api === 'definition') && !model.requestHandlers.some((r) => r.method === 'tools/list')) {
    const first = model.tools[0]!;
    return couldNotJudge('tools-listed-elsewhere', { count: model.tools.length, tool: first.name, file: first.file, line: first.line });
  }
  return undefined;
}
