import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { toolsInSource } from '../../facts/tools-in-source.js';
import { str, unreadable } from '../support/verdicts.js';
import dynamic from './dynamic.js';
import { hasPythonSource } from '../../facts/python-source.js';
import { pythonModel } from '../../facts/python-model.js';
import { pyprojectFields } from '../../probe/package-of.js';
import { unreadableVerdict } from '../support/python/python-support.js';
import { serverModel } from '../../facts/server-model.js';
import { isGenerated, toolsToJudge } from '../support/source/generated-tools.js';
import { documentOperations } from '../support/source/document-operations.js';
import { noToolsFound } from '../support/source/tool-absence.js';
import type { RepoFacts } from '../../facts/repo.js';
import { parsedSources, positionOf } from '../../facts/ts-source.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * C-2 — naming (static). The package name (package.json `name`) is lowercase kebab-case, an npm scope
 * `@scope/name` allowed with both parts kebab-case; every tool name read from the source (see
 * facts/tools-in-source, and the Python model's FastMCP and low-level tools) is snake_case. A Python
 * package's name is read from pyproject.toml ([project] or [tool.poetry]). A wrong tool name is red even
 * when the manifest cannot be read.
 *
 * Tool names the source computes are not passed over: a tool built from a template over a table of classes is
 * named by its class's field; a tool whose name is `item.operationId` (or `item.toolName`, `item.name`…) over a
 * JSON document the package ships is named by that document's entries, checked at the entry's line; any other
 * computed name leaves the tool half undecided (could-not-judge 'tool-names-computed', with the expression), and
 * so does a server whose tools the reading did not find (the verdict of support/source/tool-absence). A wrong
 * name read anywhere is red all the same.
 */

const NAME_ACCESS = /^[A-Za-z_$][\w$]*(?:\?)?\.(operationId|toolName|name|alias|id)$/;

interface Named {
  name: string;
  file: string;
  line: number;
}

/**
 * The names of the tools the source computes, where they can be read: a generated tool with a literal name
 * (a class table's field), or the entries of the shipped JSON document a `item.key` name reads. `unread` lists
 * the expressions of the others.
 */
function computedNames(repo: RepoFacts): { named: Named[]; unread: { expression: string; file: string; line: number }[] } {
  const named: Named[] = [];
  const unread: { expression: string; file: string; line: number }[] = [];
  const literalInModel = serverModel(repo).tools.length > 0;
  for (const t of toolsToJudge(repo)) {
    if (t.nameIsLiteral) {
      // Literal names of the model are read by toolsInSource; those of generated tools (class fields) are not.
      if (!literalInModel && isGenerated(t) && t.name) {
        // The location is where the name is written: the class's field, else the template.
        const at = t.read('name');
        named.push(at ? { name: t.name, file: parsedSources(repo).rel(at.getSourceFile()), line: positionOf(at).line } : { name: t.name, file: t.file, line: t.nameLine });
      }
      continue;
    }
    const key = NAME_ACCESS.exec(t.name.replace(/\s+/g, ''))?.[1];
    const doc = key ? documentOperations(repo, t) : undefined;
    const lines = doc?.operations.map((op) => (op.name ? repo.lineOf(doc.file, new RegExp(`"${escapeRegExp(key!)}"\\s*:\\s*"${escapeRegExp(op.name)}"`)) : undefined));
    if (doc && lines && lines.every((l) => l !== undefined)) {
      doc.operations.forEach((op, i) => named.push({ name: op.name!, file: doc.file, line: lines[i]! }));
    } else unread.push({ expression: t.name.length > 80 ? `${t.name.slice(0, 77)}...` : t.name, file: t.file, line: t.nameLine });
  }
  // Registrations whose tool could not be followed at all (facts/server-model `unread`): their names are not known either.
  for (const u of serverModel(repo).unread) unread.push({ expression: u.expression, file: u.file, line: u.line });
  return { named, unread };
}


const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

const isKebab = (name: string): boolean => {
  const m = /^@([^/]+)\/([^/]+)$/.exec(name);
  return m ? KEBAB.test(m[1]!) && KEBAB.test(m[2]!) : KEBAB.test(name);
};
const isSnake = (name: string): boolean => SNAKE.test(name);

/** Words of an identifier: split on case changes and on anything that is not a letter or digit. */
const words = (s: string): string[] =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());

const toKebab = (name: string): string => {
  const m = /^@([^/]+)\/(.+)$/.exec(name);
  return m ? `@${words(m[1]!).join('-')}/${words(m[2]!).join('-')}` : words(name).join('-');
};
const toSnake = (name: string): string => {
  const s = words(name).join('_') || 'tool';
  return /^[a-z]/.test(s) ? s : `tool_${s}`;
};

export default [
  defineDetector({
    ruleId: 'C-2',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'package-name-not-kebab': ['name', 'suggestion'],
      'tool-name-not-snake': ['name', 'suggestion'],
    },
    judge({ inputs: { repo } }) {
      const findings: Finding[] = [];
      let unjudged: Verdict | undefined;
      const named = toolsInSource(repo).map((t) => ({ name: t.name, file: t.file, line: t.line }));
      const computed = computedNames(repo);
      named.push(...computed.named);
      let toolsUnjudged: Verdict | undefined;
      if (computed.unread.length) {
        const first = computed.unread[0]!;
        toolsUnjudged = couldNotJudge('tool-names-computed', { count: computed.unread.length, expression: first.expression, file: first.file, line: first.line });
      }
      // Python tools (FastMCP decorators, low-level Tool definitions), read from the Python model.
      if (hasPythonSource(repo)) {
        const model = pythonModel(repo);
        if (!model) unjudged = couldNotJudge('python-parser-unavailable');
        else {
          for (const t of model.tools) if (t.kind === 'tool' && t.name !== '?') named.push({ name: t.name, file: t.file, line: t.line });
          unjudged = unreadableVerdict(model);
        }
      }
      for (const t of named) {
        if (!isSnake(t.name)) {
          findings.push({
            messageId: 'tool-name-not-snake',
            data: { name: t.name, suggestion: toSnake(t.name) },
            location: { file: t.file, line: t.line },
          });
        }
      }
      // The package name; when it cannot be read, wrong tool names are still a red verdict.
      const manifest = 'package.json';
      const pyproject = 'pyproject.toml';
      if (!repo.has(manifest) && repo.has(pyproject)) {
        const t = repo.text(pyproject);
        const f = t.ok ? pyprojectFields(t.value) : undefined;
        if (!t.ok) unjudged ??= unreadable(t);
        else if (!f) unjudged ??= couldNotJudge('toml-invalid', { file: pyproject });
        else if (!f.name) unjudged ??= couldNotJudge('no-package-name', { file: pyproject });
        else if (!isKebab(f.name)) {
          findings.push({
            messageId: 'package-name-not-kebab',
            data: { name: f.name, suggestion: toKebab(f.name) },
            location: { file: pyproject, line: repo.lineOf(pyproject, /^\s*name\s*=/) ?? 1 },
          });
        }
      } else if (!repo.has(manifest)) unjudged ??= couldNotJudge('no-package-manifest');
      else {
        const pj = repo.object(manifest);
        if (!pj.ok) unjudged ??= unreadable(pj);
        else {
          const name = str(pj.value.name);
          if (!name) unjudged ??= couldNotJudge('no-package-name', { file: manifest });
          else if (!isKebab(name)) {
            findings.push({
              messageId: 'package-name-not-kebab',
              data: { name, suggestion: toKebab(name) },
              location: { file: manifest, line: repo.keyLine(manifest, 'name') ?? 1 },
            });
          }
        }
      }
      if (findings.length) return { state: 'non-conforming', findings };
      if (!unjudged && !toolsUnjudged && named.length === 0 && !(hasPythonSource(repo) && pythonModel(repo)?.tools.some((t) => t.kind === 'tool'))) {
        // No tool name was read: the tool half holds only when the server is shown to serve no tool.
        const none = noToolsFound(repo);
        if (none.state === 'could-not-judge') toolsUnjudged = none;
      }
      return unjudged ?? toolsUnjudged ?? present();
    },
  }),
  dynamic,
];
