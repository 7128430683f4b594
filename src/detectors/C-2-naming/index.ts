import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { toolsInSource } from '../../facts/tools-in-source.js';
import { str, unreadable } from '../support.js';
import dynamic from './dynamic.js';

/**
 * C-2 — naming (static). The package name (package.json `name`) is lowercase kebab-case, an npm scope
 * `@scope/name` allowed with both parts kebab-case; every tool name read from the source (see
 * facts/tools-in-source) is snake_case. A wrong tool name is red even when the manifest cannot be read.
 */

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
      for (const t of toolsInSource(repo)) {
        if (!isSnake(t.name)) {
          findings.push({
            messageId: 'tool-name-not-snake',
            data: { name: t.name, suggestion: toSnake(t.name) },
            location: { file: t.file, line: t.line },
          });
        }
      }
      // The package name; when it cannot be read, wrong tool names are still a red verdict.
      let unjudged: Verdict | undefined;
      const manifest = 'package.json';
      if (!repo.has(manifest)) unjudged = couldNotJudge(repo.has('pyproject.toml') ? 'pyproject-not-read' : 'no-package-manifest');
      else {
        const pj = repo.object(manifest);
        if (!pj.ok) unjudged = unreadable(pj);
        else {
          const name = str(pj.value.name);
          if (!name) unjudged = couldNotJudge('no-package-name', { file: manifest });
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
      return unjudged ?? present();
    },
  }),
  dynamic,
];
