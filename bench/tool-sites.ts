import { resolve } from 'node:path';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';
import { parsedSources, sourceFilesOf, rawPositionOf } from '../src/facts/ts-source.js';
import { ts } from '../src/facts/morph.js';
import { noToolsFound } from '../src/detectors/support/source/tool-absence.js';

/**
 * Where tools may be registered and why the server model did not read them (diagnostic, not product output).
 * For one folder: the files read and not read, the model's tools / unread registrations / request handlers, then
 * every candidate registration site of the files read — a call of registerTool/tool/addTool/setRequestHandler,
 * a reference to ListToolsRequestSchema / CallToolRequestSchema, an object literal with a `name` and one of
 * inputSchema/input_schema/parameters/schema, a readdirSync or dynamic import() — with what the model holds there.
 * Run: node dist/bench/tool-sites.js <dir> [--json]
 */

const [, , dir, flag] = process.argv;
const repo = RepoFacts.gather(resolve(dir!));
const parsed = parsedSources(repo);
const model = serverModel(repo);
const short = (s: string): string => {
  const t = s.replace(/\s+/g, ' ');
  return t.length > 110 ? `${t.slice(0, 107)}...` : t;
};
const summary = {
  sourceFiles: sourceFilesOf(repo).length,
  parsed: parsed.files.size,
  modelFiles: model.files.length,
  unreadFiles: parsed.unread.map((u) => `${u.file} (${(u as { reason?: string }).reason ?? ''})`).slice(0, 10),
  dependencies: parsed.dependencies.map((d) => d.name),
  tools: model.tools.length,
  literalTools: model.tools.filter((t) => t.nameIsLiteral).length,
  toolsWithHandler: model.tools.filter((t) => t.handler).length,
  computedNames: model.tools.filter((t) => !t.nameIsLiteral).map((t) => `${t.file}:${t.line} ${short(t.name)}`).slice(0, 10),
  unreadRegistrations: model.unread.map((u) => `${u.file}:${u.line} ${u.expression}`).slice(0, 10),
  requestHandlers: model.requestHandlers.map((r) => `${r.file}:${r.line} ${r.method} handler=${r.handler ? 'yes' : 'no'}`),
  noToolsVerdict: model.tools.length === 0 ? noToolsFound(repo) : undefined,
};
if (flag === '--json') {
  console.log(JSON.stringify(summary));
  process.exit(0);
}
console.log(JSON.stringify(summary, null, 1));

const modelAt = new Set(model.tools.map((t) => `${t.file}:${t.line}`));
const REG = new Set(['registerTool', 'tool', 'addTool', 'setRequestHandler', 'addTools', 'registerTools']);
const SCHEMA_KEYS = new Set(['inputSchema', 'input_schema', 'parameters', 'schema', 'argsSchema']);
let shown = 0;
for (const f of model.files) {
  const sf = parsed.files.get(f);
  if (!sf) continue;
  const visit = (cn: ts.Node): void => {
    if (shown > 200) return;
    let why: string | undefined;
    if (ts.isCallExpression(cn)) {
      const e = cn.expression;
      const name = ts.isPropertyAccessExpression(e) ? e.name.text : ts.isIdentifier(e) ? e.text : '';
      if (REG.has(name)) why = `call ${name}(${cn.arguments.map((a) => ts.SyntaxKind[a.kind]).join(', ')})`;
      else if (name === 'readdirSync' || name === 'readdir' || e.kind === ts.SyntaxKind.ImportKeyword) why = `dynamic load ${name || 'import()'}`;
    } else if (ts.isIdentifier(cn) && /^(?:ListTools|CallTool)RequestSchema$/.test(cn.text) && !ts.isImportSpecifier(cn.parent)) {
      why = `reference ${cn.text} in ${ts.SyntaxKind[cn.parent.kind]}`;
    } else if (ts.isObjectLiteralExpression(cn)) {
      const keys = cn.properties.map((p) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : ''));
      const nameP = cn.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'name');
      if (nameP && keys.some((k) => SCHEMA_KEYS.has(k))) {
        const v = ts.isPropertyAssignment(nameP) ? ts.SyntaxKind[nameP.initializer.kind] : 'shorthand';
        why = `object {${keys.filter(Boolean).slice(0, 6).join(',')}} name=${v}`;
      }
    }
    if (why) {
      const { line } = rawPositionOf(cn);
      const held = modelAt.has(`${f}:${line}`) ? 'MODEL' : '-';
      console.log(`${held} ${f}:${line} ${why} :: ${short(cn.getText(sf.compilerNode))}`);
      shown++;
    }
    ts.forEachChild(cn, visit);
  };
  visit(sf.compilerNode);
}
