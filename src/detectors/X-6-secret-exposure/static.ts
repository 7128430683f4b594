import { SyntaxKind, Node, ts } from '../../facts/morph.js';
import { defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { ofKinds, isTestPath, positionOf, propertyName, unwrap } from '../../facts/ts-source.js';
import { codeOf, sinkOf, type Code } from '../support/source/code-paths.js';
import { isSecretName, looksLikeSecretValue, matchShape, redact, withoutScheme } from './patterns.js';
import { named } from '../support/source/source-support.js';

/**
 * secret exposure (static part). Three looks at the source, one finding per occurrence, the
 * secret itself never copied (evidence: its first 4 characters):
 *   - string literals (and template chunks) matching a known token shape (patterns.ts);
 *   - a high-entropy literal assigned to a secret-named variable, property, parameter or header
 *     (`apiKey = '…'`, `{ Authorization: 'Bearer …' }`), and the same in a committed `.env` file;
 *   - the environment placed in a tool result: `process.env` whole (as is, spread, JSON.stringify'd,
 *     Object.entries'd) or a secret-named variable of it, flowing syntactically into `content` or
 *     `structuredContent` (directly, or through one local variable).
 * Test and fixture folders are not read (facts/ts-source), nor example env files (.env.example…). A
 * Python tree is judged by python.ts; this part then only reads its .env files (not-applicable otherwise).
 */

const ENV_FILE = /(?:^|\/)\.env(?:\.[\w.-]+)?$/;
const ENV_EXAMPLE = /\.(?:example|sample|template|tpl|dist|defaults?|schema)$/i;

/** The name a literal is written to: variable, property, class field, parameter default or assignment target. */
function holderName(lit: Node): string | undefined {
  let cur: Node = lit;
  for (;;) {
    const p = cur.getParent();
    if (!p) return undefined;
    if (Node.isParenthesizedExpression(p) || Node.isAsExpression(p) || Node.isSatisfiesExpression(p) || Node.isNonNullExpression(p)) cur = p;
    else if (Node.isConditionalExpression(p) && p.getCondition() !== cur) cur = p;
    else if (Node.isBinaryExpression(p) && ['??', '||'].includes(p.getOperatorToken().getText()) && p.getRight() === cur) cur = p;
    else break;
  }
  const p = cur.getParent();
  if ((Node.isVariableDeclaration(p) || Node.isPropertyDeclaration(p) || Node.isParameterDeclaration(p)) && p.getInitializer() === cur) {
    return Node.isIdentifier(p.getNameNode()) ? p.getNameNode().getText() : undefined;
  }
  if (Node.isPropertyAssignment(p) && p.getInitializer() === cur) return propertyName(p.getNameNode());
  if (Node.isBinaryExpression(p) && p.getOperatorToken().getText() === '=' && p.getRight() === cur) {
    const left = unwrap(p.getLeft());
    if (Node.isIdentifier(left)) return left.getText();
    if (Node.isPropertyAccessExpression(left)) return left.getName();
    if (Node.isElementAccessExpression(left)) {
      const arg = left.getArgumentExpression();
      return arg && (Node.isStringLiteral(arg) || Node.isNoSubstitutionTemplateLiteral(arg)) ? arg.getLiteralValue() : undefined;
    }
  }
  return undefined;
}

function literalText(n: Node): string | undefined {
  if (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)) return n.getLiteralValue();
  if (Node.isTemplateHead(n) || Node.isTemplateMiddle(n) || Node.isTemplateTail(n)) return n.getLiteralText();
  return undefined;
}

function literalFindings(code: Code): Finding[] {
  const out: Finding[] = [];
  for (const [file, sf] of code.files) {
    const kinds = [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral, SyntaxKind.TemplateHead, SyntaxKind.TemplateMiddle, SyntaxKind.TemplateTail];
    // Raw pre-filter: only literals the text tests below can flag are wrapped.
    for (const n of ofKinds(sf, kinds, (cn) => {
      const text = (cn as ts.LiteralLikeNode).text ?? '';
      return text.length >= 16 && (!!matchShape(text) || ((ts.isStringLiteral(cn) || ts.isNoSubstitutionTemplateLiteral(cn)) && looksLikeSecretValue(text)));
    })) {
      const text = literalText(n);
      if (text === undefined || text.length < 16) continue;
      const parent = n.getParent();
      if (Node.isImportDeclaration(parent) || Node.isExportDeclaration(parent) || Node.isLiteralTypeNode(parent)) continue;
      const { line } = positionOf(n);
      const shape = matchShape(text);
      if (shape) {
        out.push({ messageId: 'hardcoded-secret', data: { kind: shape.id }, location: { file, line }, evidence: redact(shape.match) });
        continue;
      }
      if (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)) {
        const name = holderName(n);
        if (name && isSecretName(name) && looksLikeSecretValue(text)) {
          out.push({ messageId: 'hardcoded-secret-value', data: { name }, location: { file, line }, evidence: redact(withoutScheme(text)) });
        }
      }
    }
  }
  return out;
}

/** Committed .env files (not examples, not under test folders): KEY=value lines. */
function envFileFindings(repo: RepoFacts): Finding[] {
  const out: Finding[] = [];
  for (const file of repo.files.filter((f) => ENV_FILE.test(f) && !ENV_EXAMPLE.test(f) && !isTestPath(f))) {
    const t = repo.text(file);
    if (!t.ok) continue;
    t.value.split('\n').forEach((raw, i) => {
      const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/.exec(raw);
      if (!m) return;
      const [, key, rawValue] = m as unknown as [string, string, string];
      const q = /^(['"])(.*)\1$/.exec(rawValue);
      const value = q ? q[2]! : rawValue.replace(/\s+#.*$/, '');
      const shape = matchShape(value);
      if (shape) out.push({ messageId: 'hardcoded-secret', data: { kind: shape.id }, location: { file, line: i + 1 }, evidence: redact(shape.match) });
      else if (isSecretName(key) && looksLikeSecretValue(value)) {
        out.push({ messageId: 'hardcoded-secret-value', data: { name: key }, location: { file, line: i + 1 }, evidence: redact(withoutScheme(value)) });
      }
    });
  }
  return out;
}

function envFindings(code: Code): Finding[] {
  const out: Finding[] = [];
  for (const [file, sf] of code.files) {
    for (const n of ofKinds(sf, [SyntaxKind.PropertyAccessExpression], named(new Set(['env']), (cn) => ts.isPropertyAccessExpression(cn) && cn.name.text === 'env' && /^\(*process\b/.test(cn.expression.getText())))) {
      if (!Node.isPropertyAccessExpression(n) || n.getName() !== 'env' || unwrap(n.getExpression()).getText() !== 'process') continue;
      const p = n.getParent();
      let from: Node = n;
      let variable: string | undefined;
      if (Node.isPropertyAccessExpression(p) && p.getExpression() === n) {
        variable = p.getName();
        from = p;
      } else if (Node.isElementAccessExpression(p) && p.getExpression() === n) {
        const arg = p.getArgumentExpression();
        variable = arg && (Node.isStringLiteral(arg) || Node.isNoSubstitutionTemplateLiteral(arg)) ? arg.getLiteralValue() : '';
        from = p;
      }
      if (variable !== undefined && !isSecretName(variable)) continue;
      const sink = sinkOf(from);
      if (sink?.kind !== 'field') continue;
      const field = sink.name;
      const location = { file, line: positionOf(n).line };
      const evidence = from.getText().slice(0, 80);
      if (variable === undefined) out.push({ messageId: 'env-in-result', data: { field }, location, evidence });
      else out.push({ messageId: 'secret-env-in-result', data: { variable, field }, location, evidence });
    }
  }
  return out;
}

export default defineDetector({
  ruleId: 'X-6',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'hardcoded-secret': ['kind'],
    'hardcoded-secret-value': ['name'],
    'env-in-result': ['field'],
    'secret-env-in-result': ['variable', 'field'],
  },
  judge({ inputs: { repo } }) {
    const findings = envFileFindings(repo);
    const src = codeOf(repo, { pythonPart: true });
    if (src.ok) findings.push(...literalFindings(src.code), ...envFindings(src.code));
    if (findings.length) return { state: 'non-conforming', findings };
    return src.ok ? present() : src.verdict;
  },
});
