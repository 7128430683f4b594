import { afterLoad, Node, SyntaxKind, type SourceFile } from '../../facts/morph.js';
import { defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { importsOf, positionOf, stringValue, unwrap } from '../../facts/ts-source.js';
import { codeOf } from '../support/source/code-paths.js';
import { staticString } from '../support/source/source-support.js';

/**
 * E-5 — no global effects (static). Reads every source file of the extension (tests left out) for writes
 * that leave the extension's own context:
 *   - 'global-write': a property set on `globalThis`, `global`, `window` or `self` (assignment, delete,
 *     Object.assign / Object.defineProperty on them);
 *   - 'prototype-change': a property set on a prototype the extension does not own (`Array.prototype.x =`,
 *     `Object.defineProperty(String.prototype, …)`, `Object.setPrototypeOf`, `__proto__`);
 *   - 'shared-function-replaced': a member of a shared object replaced: `console.*`, `JSON.*`, `Math.*`,
 *     `process.*` (other than the environment), or a member of an imported package (`http.request = …`);
 *   - 'env-write': `process.env` written, deleted or merged into;
 *   - 'process-handler': a process-wide listener (`process.on('uncaughtException' | …)`) or `process.exit(…)`;
 *   - 'other-extension-write': a write that goes through another extension's entry (an `extensions` or
 *     `registry` member keyed by an identifier other than the extension's own), or that sets an
 *     `identifier` on an object the extension does not define.
 * Reads are never flagged. The extension's own module state, its factory's object and the call context it
 * receives are its own.
 */

const GLOBALS = new Set(['globalThis', 'global', 'window', 'self']);
const SHARED = new Set(['console', 'JSON', 'Math', 'Reflect', 'Promise', 'Object', 'Array', 'String', 'Number', 'Date', 'Intl', 'Buffer', 'fetch', 'crypto']);
const PROCESS_EVENTS = /^(?:uncaughtException|unhandledRejection|uncaughtExceptionMonitor|warning|exit|beforeExit|SIGINT|SIGTERM|SIGHUP|SIGUSR1|SIGUSR2)$/;
const REGISTRY = /^(?:extensions|registry|registeredExtensions|middlewares|plugins)$/;

/** The chain of names of an access expression, root first: `a.b['c'].d` → ['a', 'b', 'c', 'd'] (undefined for a computed non-literal key). */
function chain(n: Node): (string | undefined)[] {
  const u = unwrap(n);
  if (Node.isIdentifier(u) || u.getKind() === SyntaxKind.ThisKeyword) return [u.getText()];
  if (Node.isPropertyAccessExpression(u)) return [...chain(u.getExpression()), u.getName()];
  if (Node.isElementAccessExpression(u)) return [...chain(u.getExpression()), staticString(u.getArgumentExpression())];
  if (Node.isCallExpression(u)) return [...chain(u.getExpression()), '()'];
  return ['?'];
}

interface Own {
  identifier?: string;
  classes: Set<string>;
}

/** Is this chain rooted in a local class or function (its own prototype)? */
function localDeclared(sf: SourceFile, name: string | undefined): boolean {
  if (!name) return false;
  return sf.getClasses().some((c) => c.getName() === name) || sf.getFunctions().some((f) => f.getName() === name);
}

/** What a written target is, or undefined when it is the extension's own. */
function classify(target: Node, sf: SourceFile, own: Own): { messageId: string; target: string } | undefined {
  const c = chain(target);
  const text = target.getText().replace(/\s+/g, ' ').slice(0, 80);
  const root = c[0];
  if (root && GLOBALS.has(root) && c.length > 1) return { messageId: 'global-write', target: text };
  const pi = c.indexOf('prototype');
  if (pi > 0 && c.length > pi + 1 && !localDeclared(sf, c[pi - 1])) return { messageId: 'prototype-change', target: text };
  if (c.includes('__proto__')) return { messageId: 'prototype-change', target: text };
  if (root === 'process' && c[1] === 'env') return { messageId: 'env-write', target: text };
  if (root === 'process' && c.length === 2 && c[1] !== 'exitCode') return { messageId: 'shared-function-replaced', target: text };
  if (root && SHARED.has(root) && c.length === 2 && !isShadowed(target, root)) return { messageId: 'shared-function-replaced', target: text };
  if (root && c.length >= 2) {
    const b = importsOf(sf).get(root);
    if (b && !b.module.startsWith('.') && !isShadowed(target, root)) return { messageId: 'shared-function-replaced', target: text };
  }
  const ri = c.findIndex((x) => x !== undefined && REGISTRY.test(x));
  if (ri >= 0 && c.length > ri + 2) {
    const key = c[ri + 1];
    if (key === undefined || key !== own.identifier) return { messageId: 'other-extension-write', target: text };
  }
  if (c[c.length - 1] === 'identifier' && c.length >= 2) return { messageId: 'other-extension-write', target: text };
  return undefined;
}

/** A local variable or parameter of the same name hides the global. */
function isShadowed(at: Node, name: string): boolean {
  for (let p: Node | undefined = at.getParent(); p; p = p.getParent()) {
    if (Node.isFunctionLikeDeclaration(p) || Node.isArrowFunction(p) || Node.isFunctionExpression(p)) {
      if (p.getParameters().some((q) => q.getName() === name)) return true;
    }
    if (Node.isBlock(p) || Node.isSourceFile(p)) {
      const locals = Node.isSourceFile(p) ? p.getVariableDeclarations() : p.getVariableStatements().flatMap((s) => s.getDeclarations());
      if (locals.some((d) => d.getName() === name)) return true;
    }
  }
  return false;
}

const ASSIGN = afterLoad(() => new Set([SyntaxKind.EqualsToken, SyntaxKind.PlusEqualsToken, SyntaxKind.MinusEqualsToken, SyntaxKind.BarBarEqualsToken, SyntaxKind.QuestionQuestionEqualsToken, SyntaxKind.AmpersandAmpersandEqualsToken]));

function findingsIn(file: string, sf: SourceFile, own: Own): Finding[] {
  const out: Finding[] = [];
  const add = (messageId: string, target: string, node: Node) => out.push({ messageId, data: { target }, location: { file, ...positionOf(node) } });
  for (const b of sf.getDescendantsOfKind(SyntaxKind.BinaryExpression)) {
    if (!ASSIGN().has(b.getOperatorToken().getKind())) continue;
    const left = unwrap(b.getLeft());
    if (!Node.isPropertyAccessExpression(left) && !Node.isElementAccessExpression(left)) continue;
    const hit = classify(left, sf, own);
    if (hit) add(hit.messageId, hit.target, b);
  }
  for (const d of sf.getDescendantsOfKind(SyntaxKind.DeleteExpression)) {
    const hit = classify(d.getExpression(), sf, own);
    if (hit) add(hit.messageId, hit.target, d);
  }
  for (const call of sf.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const callee = call.getExpression().getText().replace(/\s+/g, '');
    const a0 = call.getArguments()[0];
    if (['Object.assign', 'Object.defineProperty', 'Object.defineProperties', 'Reflect.set', 'Reflect.defineProperty', 'Object.setPrototypeOf'].includes(callee) && a0) {
      const c = chain(a0);
      const root = c[0];
      const text = a0.getText().replace(/\s+/g, ' ').slice(0, 80);
      if (callee === 'Object.setPrototypeOf' && !Node.isThisExpression(unwrap(a0))) add('prototype-change', text, call);
      else if (root && GLOBALS.has(root)) add('global-write', text, call);
      else if (c.includes('prototype') && !localDeclared(sf, c[c.indexOf('prototype') - 1])) add('prototype-change', text, call);
      else if (root === 'process' && c[1] === 'env') add('env-write', text, call);
      else if (root && (SHARED.has(root) || root === 'process') && c.length === 1 && !isShadowed(call, root)) add('shared-function-replaced', text, call);
      continue;
    }
    if (/^process\.(?:on|once|addListener|prependListener|prependOnceListener)$/.test(callee) && a0 && PROCESS_EVENTS.test(stringValue(a0) ?? '')) {
      add('process-handler', `${callee}('${stringValue(a0)}')`, call);
    } else if (/^process\.(?:exit|abort|removeAllListeners|setUncaughtExceptionCaptureCallback|chdir|umask|setuid|setgid)$/.test(callee)) {
      add('process-handler', `${callee}(…)`, call);
    } else {
      // registry.set('com.other/x', …), extensions.delete(id)
      const callee2 = unwrap(call.getExpression());
      if (Node.isPropertyAccessExpression(callee2) && ['set', 'delete', 'clear'].includes(callee2.getName())) {
        const c = chain(callee2.getExpression());
        const last = c[c.length - 1];
        if (last && REGISTRY.test(last)) {
          const key = a0 ? staticString(a0) : undefined;
          if (key === undefined || key !== own.identifier) add('other-extension-write', call.getText().replace(/\s+/g, ' ').slice(0, 80), call);
        }
      }
    }
  }
  return out;
}

export default [
  defineDetector({
    ruleId: 'E-5',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'global-write': ['target'],
      'prototype-change': ['target'],
      'shared-function-replaced': ['target'],
      'env-write': ['target'],
      'process-handler': ['target'],
      'other-extension-write': ['target'],
    },
    judge({ inputs: { repo } }): Verdict {
      const got = codeOf(repo);
      if (!got.ok) return got.verdict;
      const manifest = repo.object('extension.json');
      const own: Own = { identifier: manifest.ok && typeof manifest.value.identifier === 'string' ? manifest.value.identifier : undefined, classes: new Set() };
      const findings: Finding[] = [];
      for (const [file, sf] of [...got.code.sources.files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        findings.push(...findingsIn(file, sf, own));
      }
      findings.sort((a, b) => (a.location!.file === b.location!.file ? (a.location!.line ?? 0) - (b.location!.line ?? 0) : a.location!.file < b.location!.file ? -1 : 1));
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
