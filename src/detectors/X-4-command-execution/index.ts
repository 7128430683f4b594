import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { toolFlows, type Flow } from '../../facts/flow.js';
import { sourceGap } from '../../facts/server-model.js';
import { noHandlersFound } from '../support/source/tool-absence.js';
import python from './python.js';

/**
 * command execution from tool arguments (static, JavaScript/TypeScript part). Reads the taint flows
 * of facts/flow from the arguments of every tool (prompt, resource template) handler to process and code
 * sinks, and reports each sink reached without a sound guard, at the sink's line:
 *   - 'argument-in-shell-command': the value reaches a command run by a shell (exec, execSync, shell: true,
 *     `sh -c`, shelljs, execa with the shell option);
 *   - 'argument-chooses-program': the value is the program launched (spawn/execFile/fork/execa/
 *     StdioClientTransport command);
 *   - 'argument-reaches-eval': eval, Function, the vm module, gray-matter's `matter(text)` (its default engines
 *     eval a `---js` front matter; not when the options replace the `javascript` engine), or a language runtime given the value as code on
 *     its command line (`spawn('python3', ['-c', code])`, `node -e`, through wrappers that name the runtime), or
 *     a dot-command given to the sqlite3 shell (`-cmd line`, not with `-safe`);
 *   - 'argument-as-option': the value is an element of a fixed program's argument array where it may be read as
 *     an option (`execFile('kubectl', ['get', kind])`, execa with an array): not after `--`, not glued to fixed
 *     text, not the value of a fixed option, with no allowlist, anchored pattern or `startsWith('-')` check
 *     before it and no pattern in the schema;
 *   - 'blocklist-guard': the only check before the sink is a blocklist (`includes(';')`, an unanchored
 *     regex, `replace`), where an allowlist is required.
 * Sound guards (see facts/flow): an allowlist (`includes`/`has`/`in`/`===`/`switch` on literals), an
 * anchored allowlist regex, a schema restricting the argument to an enum, number, boolean or strict pattern,
 * shell quoting (a function of the package named `escapeShellArg`/`quote…` counts unless its body only wraps the value in
 * double quotes, where `$(…)` still runs, or writes HTML entities: see facts/flow), a confirmation the human gives (the value handed to a function that asks through an
 * elicitation, whose answer decides whether the handler goes on; not one that lets the command through when the
 * question fails or before it is asked: a client that cannot elicit gets the command run).
 * The commands are followed through classes (exported instances, singletons, fields, constructors) and
 * modules (see facts/flow).
 * No JavaScript/TypeScript source: could-not-judge 'no-source', or not-applicable 'no-js-source' when the
 * repository is Python (judged by the Python part, python.ts); source but no handler: noHandlersFound of
 * support/source/tool-absence (could-not-judge 'no-tools-in-source', or not-applicable on a relay).
 * One finding per sink; the tools that reach it are named together.
 */

const MESSAGE: Record<string, string> = {
  shell: 'argument-in-shell-command',
  process: 'argument-chooses-program',
  eval: 'argument-reaches-eval',
  argument: 'argument-as-option',
};
const rank = { none: 2, unsound: 1, sound: 0 } as const;
const KIND_ORDER = ['shell', 'eval', 'process', 'argument'];

export default [
  defineDetector({
    ruleId: 'X-4',
    genre: 'static',
    needs: ['repo'],
    partial: true,
    messages: {
      'argument-in-shell-command': ['entry', 'name', 'call'],
      'argument-chooses-program': ['entry', 'name', 'call'],
      'argument-reaches-eval': ['entry', 'name', 'call'],
      'argument-as-option': ['entry', 'name', 'call'],
      'blocklist-guard': ['entry', 'name', 'call', 'guardLine'],
    },
    judge({ inputs: { repo } }) {
      const gap = sourceGap(repo);
      if (gap === 'no-js-source') return notApplicable(gap);
      // No handler at all: support/source/tool-absence (unread files named, a relay not-applicable, else could-not-judge).
      if (gap === 'no-tools-in-source') return noHandlersFound(repo);
      if (gap) return couldNotJudge(gap);
      const bySink = new Map<string, Flow[]>();
      for (const f of toolFlows(repo)) {
        if (!(f.sinkKind in MESSAGE) || f.guard === 'sound') continue;
        const key = `${f.file}:${f.line}:${f.column}`;
        bySink.set(key, [...(bySink.get(key) ?? []), f]);
      }
      const findings: Finding[] = [];
      for (const flows of bySink.values()) {
        // The worst flow decides: no guard, then a blocklist; a shell, then code, a program, an option.
        const worst = [...flows].sort((a, b) => rank[b.guard] - rank[a.guard] || KIND_ORDER.indexOf(a.sinkKind) - KIND_ORDER.indexOf(b.sinkKind))[0]!;
        const names = [...new Set(flows.map((f) => f.tool))].sort().join(', ');
        const data = { entry: worst.entryKind, name: names, call: worst.sinkCall };
        const location = { file: worst.file, line: worst.line, column: worst.column };
        if (worst.guard === 'unsound') findings.push({ messageId: 'blocklist-guard', data: { ...data, guardLine: worst.guardAt?.line ?? worst.line }, location });
        else findings.push({ messageId: MESSAGE[worst.sinkKind]!, data, location });
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
  python,
];
