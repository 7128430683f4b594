import type { Node } from 'web-tree-sitter';
import { couldNotJudge, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { callParts, pythonHttpSetup, qualName, type PythonModel } from '../../facts/python-model.js';
import { allNodes, lineOf, within, type PythonFile } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';

/**
 * X-7, static part on a Python server (called by static.ts when the source is Python).
 * A stdio server: the source uses the SDK's `stdio_server()` or `run_stdio_async()`, runs a FastMCP server
 * with `run()` / `run("stdio")` / `run(transport="stdio")`, or builds a FastMCP server it never runs itself
 * (the `mcp run` and `fastmcp run` commands default to stdio), or a run whose transport is not a literal.
 * A source that only serves HTTP is not-applicable; one that shows no server at all is could-not-judge.
 * In the package's files (examples, scripts, docs and benchmarks folders and setup.py left out), each of
 * these is a finding 'python-stdout-write':
 *   - `print(...)` without a `file=` argument, or with `file=sys.stdout`;
 *   - `sys.stdout.write(...)`, `sys.stdout.writelines(...)`;
 *   - `logging.StreamHandler(sys.stdout)` and `logging.basicConfig(stream=sys.stdout)`.
 * Not findings: writes in a branch whose condition picks an HTTP transport or a CLI mode (`--help`,
 * `--version`, `--list-tools`), which never runs in stdio mode. With a recorded stdio session whose stdout
 * was clean, writes outside the tool, prompt and resource functions ran at start-up without showing and are
 * dropped; those in handlers stay (the probe calls no tool by default).
 */

const SKIPPED = /(?:^|\/)(?:examples?|scripts|docs|benchmarks?)\//;
const NOT_STDIO_MODE = /\b(?:sse|http|streamable|uvicorn|help|version|list_tools|list-tools)\b/i;

interface Mode {
  stdio: boolean;
  http: boolean;
}

function modeOf(model: PythonModel): Mode {
  const http = pythonHttpSetup(model);
  let stdio = http.unresolved.length > 0;
  let servers = 0;
  let runs = 0;
  for (const file of model.sources.files.values()) {
    for (const c of allNodes(file)) {
      if (c.type !== 'call') continue;
      const p = callParts(c);
      if (!p) continue;
      const q = qualName(p.fn, file) ?? '';
      if (/(?:^|\.)stdio_server$/.test(q) || /\.run_stdio_async$/.test(q)) stdio = true;
      else if (/(?:^|\.)(?:FastMCP|MCPServer)$/.test(q)) servers++;
      else if (p.fn.type === 'attribute' && /\.run$/.test(q) && (p.kw.has('transport') || /FastMCP|MCPServer|mcp|server|app/i.test(p.fn.childForFieldName('object')?.text ?? ''))) {
        runs++;
        const t = p.kw.get('transport') ?? p.args[0];
        if (!t || /^["']stdio["']$/.test(t.text)) stdio = true;
      }
    }
  }
  if (servers > 0 && runs === 0 && http.transports.length === 0) stdio = true;
  return { stdio, http: http.transports.length > 0 };
}

/** Is the node in a branch that stdio mode never takes? */
function neverOnStdio(n: Node): boolean {
  for (let x: Node | null = n.parent; x; x = x.parent) {
    const p = x.parent;
    if (!p) break;
    if ((p.type === 'if_statement' || p.type === 'elif_clause') && p.childForFieldName('consequence')?.id === x.id) {
      const cond = p.childForFieldName('condition')?.text ?? '';
      if (NOT_STDIO_MODE.test(cond) && !/stdio/i.test(cond)) return true;
    }
  }
  return false;
}

function writesOf(file: PythonFile): { node: Node; call: string }[] {
  const out: { node: Node; call: string }[] = [];
  for (const c of allNodes(file)) {
    if (c.type !== 'call') continue;
    const p = callParts(c);
    if (!p) continue;
    const q = qualName(p.fn, file) ?? '';
    if (q === 'print' || q === 'builtins.print') {
      const f = p.kw.get('file');
      if (!f || /^sys\.stdout$/.test(qualName(f, file) ?? '')) out.push({ node: c, call: 'print' });
    } else if (q === 'sys.stdout.write' || q === 'sys.stdout.writelines') out.push({ node: c, call: q });
    else if (q === 'logging.StreamHandler' && p.args[0] && qualName(p.args[0], file) === 'sys.stdout') out.push({ node: c, call: 'logging.StreamHandler(sys.stdout)' });
    else if (q === 'logging.basicConfig' && p.kw.get('stream') && qualName(p.kw.get('stream'), file) === 'sys.stdout') out.push({ node: c, call: 'logging.basicConfig(stream=sys.stdout)' });
  }
  return out;
}

export function judgePythonStdout(repo: RepoFacts, cleanSession: boolean, servedOnStdio: boolean): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  const mode = modeOf(model);
  if (!mode.stdio && !servedOnStdio) {
    if (mode.http) return notApplicable('no-stdio-transport');
    return unreadableVerdict(model) ?? couldNotJudge('python-no-server-found');
  }
  const handlers = model.handlers.map((h) => ({ file: h.file.rel, fn: h.fn }));
  const findings: Finding[] = [];
  for (const file of model.sources.files.values()) {
    if (SKIPPED.test(file.rel) || /(?:^|\/)(?:setup|noxfile)\.py$/.test(file.rel)) continue;
    for (const w of writesOf(file)) {
      if (neverOnStdio(w.node)) continue;
      if (cleanSession && !handlers.some((h) => h.file === file.rel && within(w.node, h.fn))) continue;
      findings.push({ messageId: 'python-stdout-write', data: { call: w.call }, location: { file: file.rel, line: lineOf(w.node) }, evidence: w.node.text.replace(/\s+/g, ' ').slice(0, 120) });
    }
  }
  if (findings.length) return { state: 'non-conforming', findings };
  return unreadableVerdict(model, { tools: false }) ?? present();
}
