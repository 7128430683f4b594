import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Node } from './morph.js';
import { httpRequestOf, sinkSites, toolFlows } from './flow.js';
import { RepoFacts } from './repo.js';
import { classOf } from './scope.js';
import { parsedSources } from './ts-source.js';

/**
 * Facts of facts/flow that the detectors' fixtures exercise only through verdicts: how much of a request's
 * destination a tool argument reaches (Flow.urlShape), the configuration of an HTTP client instance, the class
 * of an instance. Each case is a tiny repository written to a temporary folder.
 */

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function repoOf(files: Record<string, string>): RepoFacts {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-flow-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return RepoFacts.gather(dir);
}

/** A v2 server with one tool `t` taking a string `x`, whose handler body is `body`. */
const oneTool = (body: string, head = ''): Record<string, string> => ({
  'package.json': '{ "name": "t", "version": "1.0.0", "type": "module" }',
  'src/index.ts': `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
${head}
const server = new McpServer({ name: 't', version: '1.0.0' });
server.registerTool('t', { description: 'd', inputSchema: z.object({ x: z.string() }) }, async ({ x }) => {
${body}
  return { content: [] };
});
`,
});

const shapes = (repo: RepoFacts): string[] => toolFlows(repo).map((f) => `${f.sinkKind}:${f.urlShape}`);

describe('facts/flow: how much of a destination an argument reaches', () => {
  const cases: [string, string, string, string?][] = [
    ['a whole URL', 'await fetch(x);', 'http:url'],
    ['a host after a written scheme', 'await fetch(`https://${x}/status`);', 'http:host'],
    ['a path after a written origin', 'await fetch(`https://api.example.com/items/${x}`);', 'http:path'],
    ['a path after a configured base', 'await fetch(`${BASE}/items/${encodeURIComponent(x)}`);', 'http:path', "const BASE = process.env.API ?? 'https://api.example.com';"],
    ['a configured base followed directly by the argument', 'await fetch(`${BASE}${x}`);', 'http:url', "const BASE = process.env.API ?? 'https://api.example.com';"],
    ['a concatenation after a base', "await fetch(BASE + '/items/' + x);", 'http:path', "const BASE = 'https://api.example.com';"],
    ['a relative reference against a base', 'await fetch(new URL(`/items/${x}`, BASE));', 'http:path', "const BASE = 'https://api.example.com';"],
    ['a reference that may be absolute', 'await fetch(new URL(x, BASE));', 'http:url', "const BASE = 'https://api.example.com';"],
    ['a query appended to a base URL', 'let u = BASE;\n  u += `?q=${encodeURIComponent(x)}`;\n  await fetch(u);', 'http:path', "const BASE = 'https://api.example.com/search';"],
    ['a relative URL on an axios instance with a baseURL', 'await api.get(`/items/${x}`);', 'http:path', "import axios from 'axios';\nconst api = axios.create({ baseURL: 'https://api.example.com', timeout: 5000 });"],
    ['an absolute URL on an axios instance with a baseURL', 'await api.get(x);', 'http:url', "import axios from 'axios';\nconst api = axios.create({ baseURL: 'https://api.example.com', timeout: 5000 });"],
    ['any URL on a got instance with a prefixUrl', 'await client.get(x);', 'http:path', "import got from 'got';\nconst client = got.extend({ prefixUrl: 'https://api.example.com' });"],
  ];
  for (const [name, body, want, head] of cases) {
    it(name, () => assert.deepEqual(shapes(repoOf(oneTool(body, head))), [want]));
  }
});

describe('facts/flow: HTTP client instances', () => {
  it('reads the configuration of an instance exported by another module, and of one kept in a field', () => {
    const repo = repoOf({
      'package.json': '{ "name": "t", "version": "1.0.0", "type": "module" }',
      'src/http.ts': "import axios from 'axios';\nexport const api = axios.create({ baseURL: 'https://a.example', timeout: 1000 });\n",
      'src/use.ts': `import { api } from './http.js';
import got from 'got';
export async function one() { return api.get('/x'); }
export class Client {
  private http = got.extend({ prefixUrl: 'https://b.example' });
  async two() { return this.http.post('y'); }
}
`,
    });
    const sources = parsedSources(repo);
    const sites = sinkSites(repo).filter((s) => s.family === 'http');
    assert.deepEqual(sites.map((s) => `${s.file}:${s.line}:${s.call}`).sort(), ['src/use.ts:3:api.get', 'src/use.ts:6:this.http.post']);
    const reqs = sites.map((s) => httpRequestOf(s.node, sources)!);
    assert.deepEqual(reqs.map((r) => `${r.library}.${r.method}`).sort(), ['axios.get', 'got.post']);
    for (const r of reqs) {
      assert.equal(r.instance.length, 1);
      assert.ok(r.instance[0] && Node.isObjectLiteralExpression(r.instance[0]), 'the instance configuration is read');
    }
  });

  it('says when an instance configuration cannot be read', () => {
    const repo = repoOf({
      'package.json': '{ "name": "t", "version": "1.0.0", "type": "module" }',
      'src/use.ts': "import axios from 'axios';\nexport async function one(make: () => typeof axios) { const api = axios.create(make()); return api.get('/x'); }\n",
    });
    const [site] = sinkSites(repo).filter((s) => s.family === 'http');
    const req = httpRequestOf(site!.node, parsedSources(repo))!;
    assert.equal(req.library, 'axios');
    assert.ok(req.instance.length === 1 && !Node.isObjectLiteralExpression(req.instance[0]!), 'a configuration made at run time is not an object literal');
  });
});

describe('facts/scope: the class of an instance', () => {
  it('follows a getInstance() singleton, an exported instance, a typed field and a let assigned later', () => {
    const repo = repoOf({
      'package.json': '{ "name": "t", "version": "1.0.0", "type": "module" }',
      'src/mgr.ts': `export class Manager {
  private static instance: Manager | undefined;
  static getInstance(): Manager { if (!Manager.instance) Manager.instance = new Manager(); return Manager.instance; }
  run(c: string) { return c; }
}
export const shared = new Manager();
`,
      'src/use.ts': `import { Manager, shared } from './mgr.js';
let later;
later = new Manager();
class Holder { constructor(private readonly mgr: Manager) {} go() { return this.mgr; } }
export const a = Manager.getInstance();
export const b = shared;
export const c = later;
export const d = (h: Holder) => h;
`,
    });
    const sources = parsedSources(repo);
    const use = sources.files.get('src/use.ts')!;
    const names = (v: string) => {
      const decl = use.getVariableDeclarationOrThrow(v);
      return classOf(decl.getInitializerOrThrow(), sources)?.getName();
    };
    assert.equal(names('a'), 'Manager');
    assert.equal(names('b'), 'Manager');
    assert.equal(names('c'), 'Manager');
    const go = use.getClassOrThrow('Holder').getMethodOrThrow('go');
    const ret = go.getStatements()[0]!.getFirstDescendant((n) => Node.isPropertyAccessExpression(n))!;
    assert.equal(classOf(ret, sources)?.getName(), 'Manager');
  });
});

describe('facts/flow: path checks met before a file call (X-5)', () => {
  const guards = (repo: RepoFacts): string[] => toolFlows(repo).filter((f) => f.sinkKind === 'fs').map((f) => `${f.guard}:${f.guardDetail ?? ''}`);
  const head = "import { readFile } from 'node:fs/promises';\nimport path from 'node:path';\nconst ROOT = path.resolve(process.env.ROOT ?? '.');\nconst refusal = { content: [], isError: true };";
  const cases: [string, string, string, string?][] = [
    ['path.relative tested with startsWith(\'..\' + sep)', "const p = path.resolve(ROOT, x);\n  if (path.relative(ROOT, p).startsWith('..' + path.sep)) throw new Error('outside');\n  await readFile(p);", 'sound:relative-check'],
    ['a refusal returned by name', 'const p = path.resolve(ROOT, x);\n  if (!p.startsWith(ROOT + path.sep)) return refusal;\n  await readFile(p);', 'sound:separator-prefix'],
    ['a prefix without separator, refused by name', 'const p = path.resolve(ROOT, x);\n  if (!p.startsWith(ROOT)) return refusal;\n  await readFile(p);', 'unsound:prefix-without-separator'],
    ['a value returned only inside the root', 'const p = inside(x);\n  if (!p) return refusal;\n  await readFile(p);', 'sound:separator-prefix', "function inside(f: string) {\n  const p = path.resolve(ROOT, f);\n  return p.startsWith(ROOT + path.sep) ? p : undefined;\n}"],
    ['a value returned past an { ok: false } answer', "const at = locate(x);\n  if (!at.ok) return refusal;\n  await readFile(at.real);", 'sound:separator-prefix', "function locate(f: string) {\n  const real = path.resolve(ROOT, f);\n  if (!real.startsWith(ROOT + path.sep)) return { ok: false, cause: 'outside-root' };\n  return { ok: true, real };\n}"],
    ['a value returned whatever the check says', 'const p = inside(x);\n  await readFile(p);', 'none:', "function inside(f: string) {\n  const p = path.resolve(ROOT, f);\n  return p.startsWith(ROOT + path.sep) ? p : path.resolve(f);\n}"],
    ['a constructor keeping the path in a field', 'await new Notes(x).read();', 'none:', "class Notes {\n  private file: string;\n  constructor(file: string) {\n    this.file = file;\n  }\n  read() {\n    return readFile(this.file);\n  }\n}"],
  ];
  for (const [name, body, want, extra] of cases) {
    it(name, () => assert.deepEqual(guards(repoOf(oneTool(body, `${head}\n${extra ?? ''}`))), [want]));
  }
});

describe('facts/flow: checks on a caller-written SQL statement (X-5 Flow.sqlFirstWordOnly, Flow.sqlServer)', () => {
  const sql = (repo: RepoFacts): string[] => toolFlows(repo).filter((f) => f.sinkKind === 'sql').map((f) => `${f.guard}:${f.sqlFirstWordOnly ? 'first-word' : ''}:${f.sqlServer ? 'server' : ''}`);
  const pg = "import pg from 'pg';\nconst pool = new pg.Pool();\nconst refusal = { content: [], isError: true };";
  const sqlite = "import Database from 'better-sqlite3';\nconst db = new Database('app.db');\nconst refusal = { content: [], isError: true };";
  const cases: [string, string, string, string][] = [
    ['startsWith on the trimmed, upper-cased statement', "if (!x.trim().toUpperCase().startsWith('SELECT')) return refusal;\n  await pool.query(x);", pg, 'unsound:first-word:server'],
    ['an anchored keyword pattern', 'if (!/^\\s*(select|with)\\b/i.test(x)) return refusal;\n  await pool.query(x);', pg, 'unsound:first-word:server'],
    ["the first word compared (not a check the flow keeps: red as unchecked)", "if (x.trim().split(' ')[0].toUpperCase() !== 'SELECT') return refusal;\n  await pool.query(x);", pg, 'none::server'],
    ['a pattern over the whole statement', 'if (!/^\\s*SELECT\\s+[\\w,\\s]+\\s+FROM\\s+\\w+\\s*$/i.test(x)) return refusal;\n  await pool.query(x);', pg, 'unsound::server'],
    ['a first word and a semicolon refused', "if (!x.trim().toUpperCase().startsWith('SELECT') || x.includes(';')) return refusal;\n  await pool.query(x);", pg, 'unsound::server'],
    ['no check', 'await pool.query(x);', pg, 'none::server'],
    ['a first word, on SQLite', "if (!x.trim().toLowerCase().startsWith('select')) return refusal;\n  db.prepare(x).all();", sqlite, 'unsound:first-word:'],
  ];
  for (const [name, body, head, want] of cases) {
    it(name, () => assert.deepEqual(sql(repoOf({ ...oneTool(body, head), 'package.json': '{ "name": "t", "version": "1.0.0", "type": "module", "dependencies": { "pg": "8.13.0", "better-sqlite3": "11.0.0" } }' })), [want]));
  }
});
