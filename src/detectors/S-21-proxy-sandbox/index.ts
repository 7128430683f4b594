import { Node, type CallExpression } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { sinkSites } from '../../facts/flow.js';
import { isFunctionLike } from '../../facts/scope.js';
import { sourceGap } from '../../facts/server-model.js';
import { parsedSources, unwrap } from '../../facts/ts-source.js';
import { modelFiles } from '../../facts/server-model.js';
import { isProxiedLaunch } from './commands.js';

/**
 * S-21 — a stdio proxy sandboxes what it launches (static, conditional; judges the logging part only).
 * The condition holds when the source launches what it proxies: a process sink of facts/flow
 * (child_process spawn/exec/execFile/fork and their sync forms, execa and its `$`, cross-spawn, shelljs
 * exec, zx `$`, `new StdioClientTransport(…)`) outside the project's tooling folders (top-level scripts/,
 * example(s)/, docs/, bench/, benchmarks/) whose program comes from configuration or callers. A command sent over
 * SSH or through the Docker / Kubernetes API starts no local child process and is not a launch here
 * (commands.ts). A service's CLI wrapper that refuses every command not starting with its own program (and, through a
 * shell, any chaining) runs that program, not one its callers choose (commands.ts pinnedProgram). Fixed internal commands (a setup script shipped with the package, `git --version`) are
 * not proxying: when every launch is one, not-applicable 'no-proxied-launch' (the evidence: each launch's
 * program is fixed in the source); no launch at all: not-applicable 'no-process-launch'.
 *
 * Red, per proxied launch, at its line: no logging call in the same function (the innermost function around the
 * launch, nested callbacks included; the file's top level for a launch outside any function). A logging
 * call is, mechanically:
 *   - console.error / console.warn, process.stderr.write (stderr; console.log and console.info write to
 *     stdout, which a stdio server must keep for the protocol, and do not count);
 *   - a method info/warn/error/debug/trace/fatal/notice/verbose/log/audit on a receiver whose name
 *     contains "log" (logger.info, this.log.warn, ctx.logger.error…), other than console;
 *   - sendLoggingMessage (an MCP logging notification);
 *   - a function whose name starts with log, debug, trace or audit (log(…), logLaunch(…), debug(…)).
 * No JavaScript/TypeScript source: could-not-judge 'no-source' (not-applicable 'no-js-source' for a Python
 * repository, which this detector does not read).
 * Whether the child is confined and whether dangerous commands need approval is not judged here.
 */

/** Launches in these top-level folders belong to the project's tooling, not to the server. */
const OUTSIDE_SERVER = /^(?:scripts|examples?|docs|bench|benchmarks)\//;
/**
 * Launchers that start no local child process: a command sent over SSH runs on the remote host (its sshd starts
 * it), a command run through the Docker or Kubernetes API runs in a container the daemon starts. The server is a
 * remote shell or a container client, not a stdio proxy starting processes for its clients.
 */
const NOT_LOCAL = new Set(['ssh', 'docker', 'kubernetes']);
const LOG_METHODS = new Set(['info', 'warn', 'error', 'debug', 'trace', 'fatal', 'notice', 'verbose', 'log', 'audit']);
const LOG_FUNCTION = /^(?:log|debug|trace|audit)/i;

function lastName(n: Node): string {
  const u = unwrap(n);
  if (Node.isPropertyAccessExpression(u)) return u.getName();
  return u.getText();
}

export function isLoggingCall(call: CallExpression): boolean {
  const callee = unwrap(call.getExpression());
  if (Node.isIdentifier(callee)) return LOG_FUNCTION.test(callee.getText());
  if (!Node.isPropertyAccessExpression(callee)) return false;
  const m = callee.getName();
  const recv = callee.getExpression().getText().replace(/\s+/g, '');
  if (recv === 'console' || recv === 'globalThis.console') return m === 'error' || m === 'warn';
  if (recv === 'process.stderr' && m === 'write') return true;
  if (m === 'sendLoggingMessage') return true;
  return LOG_METHODS.has(m) && /log/i.test(lastName(callee.getExpression()));
}

function scopeOf(n: Node): Node {
  return n.getFirstAncestor((a) => isFunctionLike(a)) ?? n.getSourceFile();
}

function logsIn(scope: Node): boolean {
  let found = false;
  scope.forEachDescendant((d, trav) => {
    if (Node.isCallExpression(d) && isLoggingCall(d)) {
      found = true;
      trav.stop();
    }
  });
  return found;
}

export default [
  defineDetector({
    ruleId: 'S-21',
    genre: 'static',
    needs: ['repo'],
    partial: true,
    messages: {
      'launch-not-logged': ['call'],
    },
    judge({ inputs: { repo } }) {
      const gap = sourceGap(repo);
      if (gap === 'no-source') return couldNotJudge(gap);
      // No Python part for this rule: a Python-only tree is not read, so it is not judged (never not-applicable).
      if (gap === 'no-js-source') return couldNotJudge('source-language-not-read');
      const all = sinkSites(repo).filter((s) => s.family === 'process' && !OUTSIDE_SERVER.test(s.file) && !NOT_LOCAL.has(s.launcher ?? ''));
      if (all.length === 0) return notApplicable('no-process-launch');
      const sources = parsedSources(repo);
      const ctx = { files: modelFiles(sources).map(([, sf]) => sf), sources };
      const launches = all.filter((s) => isProxiedLaunch(s, ctx));
      if (launches.length === 0) return notApplicable('no-proxied-launch', { launches: all.length });
      const findings: Finding[] = [];
      const logged = new Map<Node, boolean>();
      for (const l of launches) {
        const scope = scopeOf(l.node);
        if (!logged.has(scope)) logged.set(scope, logsIn(scope));
        if (logged.get(scope)) continue;
        findings.push({ messageId: 'launch-not-logged', data: { call: l.call }, location: { file: l.file, line: l.line, column: l.column } });
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
