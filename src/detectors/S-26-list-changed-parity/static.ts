import { Node, SyntaxKind, ts, type Identifier } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { hasPythonSource } from '../../facts/python-source.js';
import { declarationOf, functionOf, initializerOf, isFunctionLike } from '../../facts/scope.js';
import { modelFiles, serverModel } from '../../facts/server-model.js';
import { ofKinds, parsedSources, propertyName, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { listFacts, type Write } from '../support/source/list-sources.js';
import { callersOf } from '../support/source/source-support.js';
import { judgePythonListChanged } from './python.js';

/**
 * S-26 — declared listChanged is backed by notifications (static part, JavaScript/TypeScript). For the
 * prompts and resources lists whose capability declares listChanged (McpServer declares it, v1 and v2, for
 * every kind it registers; a low-level Server declares it in its capabilities), reads where each list
 * comes from (list-sources.ts: hand-written list handlers and template `list` callbacks) and every write
 * that changes it while requests are served: a mutation of the store it reflects, a file written or
 * deleted in the folder it lists. Each write must be followed by the matching notification on its path:
 * in the function that writes (and the callbacks it sits in, up to its handler), a function calling it,
 * or a source function one of these calls (two levels): `sendResourceListChanged()` / `sendPromptListChanged()`, a notification with
 * method notifications/{resources,prompts}/list_changed, `notify.resourcesChanged()` /
 * `notify.promptsChanged()` (createMcpHandler), or an McpServer call that notifies by itself
 * (registerResource / registerPrompt after start-up, `update`, `enable`, `disable`, `remove` on the handle
 * they return: SDK v1 and v2 send list_changed for those).
 *   - 'change-not-notified-in-source': a write with no notification on its path (at the write);
 * A list fed by data the source does not write (a database, an API, a folder changed by others), when
 * nothing is red: could-not-judge 'list-changes-outside-code'; a list whose origin cannot be followed:
 * 'list-source-unknown'. Lists that never change after start-up (registrations, fixed arrays): present.
 * Tools are S-6's: this part reads prompts and resources only.
 */

type Kind = 'prompts' | 'resources';

const EMITS: Record<Kind, { direct: RegExp; registers: RegExp; method: string }> = {
  resources: { direct: /^(?:sendResourceListChanged|resourcesChanged)$/, registers: /^(?:registerResource|resource)$/, method: 'notifications/resources/list_changed' },
  prompts: { direct: /^(?:sendPromptListChanged|promptsChanged)$/, registers: /^(?:registerPrompt|prompt)$/, method: 'notifications/prompts/list_changed' },
};
const HANDLE_METHODS = new Set(['update', 'enable', 'disable', 'remove']);

const kindOf = (method: string): Kind | undefined =>
  method === 'prompts/list' ? 'prompts' : method === 'resources/list' || method === 'resources/templates/list' ? 'resources' : undefined;

const calleeName = (call: Node): string => {
  if (!Node.isCallExpression(call)) return '';
  const e = unwrap(call.getExpression());
  return Node.isPropertyAccessExpression(e) ? e.getName() : Node.isIdentifier(e) ? e.getText() : '';
};

/** Does this call send the kind's list_changed (itself, or through McpServer)? */
function emits(call: Node, kind: Kind): boolean {
  if (!Node.isCallExpression(call)) return false;
  const name = calleeName(call);
  const e = EMITS[kind];
  if (e.direct.test(name) || e.registers.test(name)) return true;
  if (call.getArguments().some((a) => a.getText().includes(e.method))) return true;
  if (HANDLE_METHODS.has(name)) {
    const callee = unwrap(call.getExpression());
    const recv = Node.isPropertyAccessExpression(callee) ? unwrap(callee.getExpression()) : undefined;
    const decl = recv && Node.isIdentifier(recv) ? declarationOf(recv) : undefined;
    const init = decl ? initializerOf(decl) : undefined;
    const inner = init && Node.isAwaitExpression(init) ? unwrap(init.getExpression()) : init;
    return !!inner && Node.isCallExpression(inner) && e.registers.test(calleeName(inner));
  }
  return false;
}

/** Capabilities that declare listChanged: true for prompts or resources, written in a low-level server's options. */
function declaredInCapabilities(sources: ParsedSources): Set<Kind> {
  const out = new Set<Kind>();
  for (const [, sf] of modelFiles(sources)) {
    if (!sf.getFullText().includes('listChanged')) continue;
    for (const n of ofKinds(sf, [SyntaxKind.PropertyAssignment], (cn) => {
      const p = cn as ts.PropertyAssignment;
      return ts.isIdentifier(p.name) && p.name.text === 'listChanged' && p.initializer.kind === ts.SyntaxKind.TrueKeyword;
    })) {
      const holder = n.getParent()?.getParent();
      const key = Node.isPropertyAssignment(holder) ? propertyName(holder.getNameNode()) : undefined;
      if (key === 'prompts' || key === 'resources') out.add(key);
    }
  }
  return out;
}

class Paths {
  private readonly memo = new Map<string, boolean>();
  constructor(
    private readonly sources: ParsedSources,
    private readonly entries: ReadonlySet<Node>,
  ) {}

  /** A function, or a source function it calls (two levels), sends the kind's notification. */
  private sends(fn: Node, kind: Kind, depth = 0): boolean {
    const key = `${kind}|${fn.getSourceFile().getFilePath()}:${fn.getStart()}:${depth}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;
    this.memo.set(key, false);
    let found = false;
    for (const call of fn.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      if (emits(call, kind)) {
        found = true;
        break;
      }
      if (depth < 2) {
        const f = functionOf(call.getExpression(), this.sources);
        if (f && f !== fn && this.sources.files.has(this.sources.rel(f.getSourceFile())) && this.sends(f, kind, depth + 1)) {
          found = true;
          break;
        }
      }
    }
    this.memo.set(key, found);
    return found;
  }

  /**
   * The functions around a node that belong to the same path: its own function and, while that is a
   * callback (an argument of a call), the functions around it, up to a handler of the server model or a
   * declared function. A function that merely holds several handlers (`buildServer`) is not on the path.
   */
  private around(n: Node): Node[] {
    const out: Node[] = [];
    for (const a of n.getAncestors()) {
      if (!isFunctionLike(a)) continue;
      out.push(a);
      if (this.entries.has(a) || !Node.isCallExpression(a.getParent())) break;
    }
    return out;
  }

  /** The notification follows the write: in its function (or the callbacks around it), or in a caller of its function. */
  notified(w: Write, kind: Kind): boolean {
    const around = this.around(w.node);
    if (around.some((f) => this.sends(f, kind))) return true;
    const own = around[around.length - 1];
    if (!own || this.entries.has(own)) return false;
    for (const c of callersOf(own, modelFiles(this.sources))) {
      if (this.around(c.node).some((f) => this.sends(f, kind))) return true;
    }
    return false;
  }
}

export default defineDetector({
  ruleId: 'S-26',
  genre: 'static',
  needs: ['repo'],
  messages: { 'change-not-notified-in-source': ['kind', 'store'] },
  judge({ inputs: { repo } }) {
    const model = serverModel(repo);
    if (model.files.length === 0) return hasPythonSource(repo) ? judgePythonListChanged(repo) : couldNotJudge('no-source');
    const sources = parsedSources(repo);
    const declared = declaredInCapabilities(sources);
    if (model.prompts.some((p) => p.api === 'registerPrompt' || p.api === 'prompt')) declared.add('prompts');
    if (model.resources.some((r) => r.api === 'registerResource' || r.api === 'resource')) declared.add('resources');
    if (declared.size === 0) return notApplicable('list-changed-not-declared');

    const facts = listFacts(repo);
    const paths = new Paths(sources, new Set<Node>(model.entries.map((e) => e.fn)));
    const findings: Finding[] = [];
    const seen = new Set<string>();
    let outside = 0;
    let unknown = 0;
    for (const s of facts.sources) {
      const kind = kindOf(s.method);
      if (!kind || !declared.has(kind)) continue;
      if (s.items === 'unknown') unknown++;
      if (s.items !== 'data') continue;
      const inList = (w: Write) => w.node.getSourceFile() === s.fn.getSourceFile() && w.node.getStart() >= s.fn.getStart() && w.node.getEnd() <= s.fn.getEnd();
      const writes = [...s.stores.flatMap((d) => facts.writesOf(d)), ...s.folders.flatMap((f: Identifier) => facts.folderWrites(f))].filter(
        (w) => facts.atRequestTime(w.node) && !inList(w),
      );
      if (writes.length === 0) {
        outside++;
        continue;
      }
      for (const w of writes) {
        if (paths.notified(w, kind)) continue;
        const key = `${kind}|${w.file}:${w.line}`;
        if (seen.has(key)) continue;
        seen.add(key);
        findings.push({ messageId: 'change-not-notified-in-source', data: { kind, store: w.target.getText() }, location: { file: w.file, line: w.line } });
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    if (outside) return couldNotJudge('list-changes-outside-code', { count: outside });
    if (unknown) return couldNotJudge('list-source-unknown', { count: unknown });
    return present();
  },
});
