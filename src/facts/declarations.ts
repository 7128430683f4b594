import { Node, SyntaxKind, type ObjectLiteralExpression } from './morph.js';
import type { RepoFacts } from './repo.js';
import { declarationOf, valueOfDeclaration } from './scope.js';
import { fieldOf, onItem, thisField } from './server-model/class-tools.js';
import { serverModel, type ToolDef } from './server-model.js';
import { parsedSources, positionOf, propertyName, stringValue, unwrap, type ParsedSources } from './ts-source.js';
import { noteSourceRead } from './not-read.js';
import { DECLARATIONS_KEY } from './declarations-key.js';
import { declField, isDeclObject, OPEN, UNKNOWN, type DeclObject, type DeclValue } from './declarations-value.js';

/**
 * The declarations a tool carries for the trunk's closed vocabularies (C-8 authority, C-9 verb, C-10
 * search mechanism, C-11 pagination, C-12 targets, C-13 context cost): the object under the `_meta` key
 * `dev.mcp-doctor/declarations` of each tool definition, read from the source without running it.
 *
 * The value is evaluated syntactically: literals, arrays and object literals; identifiers followed to their
 * `const` (same file or a relative import); spreads of such objects and arrays merged; computed keys whose
 * expression is such a constant (`[DECLARATIONS_KEY]`). Anything else (a call, a parameter, a value built at
 * run time) becomes UNKNOWN, and an object with a spread or a computed key that could not be read is open:
 * a key it does not show may still be there at run time. Memoised per RepoFacts.
 */

export { DECLARATIONS_KEY };

export { declField, isDeclObject, OPEN, UNKNOWN, type DeclObject, type DeclValue };

export interface SourceDeclarations {
  tool: ToolDef;
  /**
   * 'declared': the declarations object was found (its value may still hold UNKNOWN parts);
   * 'none': the tool definition shows no declarations;
   * 'unknown': the definition or its `_meta` is built at run time, so whether it declares anything is not known.
   */
  status: 'declared' | 'none' | 'unknown';
  value: DeclValue;
  file: string;
  /** The line of the declarations property, or of the tool's name when there is none. */
  line: number;
  /** The line where the value at `path` is written (the closest written ancestor when it is not). */
  lineOf(path: readonly string[]): number;
}

interface Evaluated {
  value: DeclValue;
  /** Lines of the properties of every object evaluated, by object. */
  lines: WeakMap<object, Map<string, number>>;
}

/** A constant string: a literal, or an identifier followed to a literal (same file or relative import). */
function keyString(node: Node, sources: ParsedSources, owner?: ToolDef, depth = 0): string | undefined {
  const n = unwrap(node);
  const s = stringValue(n);
  if (s !== undefined || depth > 4) return s;
  const v = Node.isIdentifier(n) || Node.isPropertyAccessExpression(n) ? resolved(n, sources, owner) : undefined;
  return v && v !== n ? keyString(v, sources, owner, depth + 1) : undefined;
}

/** What an identifier (or `Obj.key` over a const object, or `this.key` of a tool declared as a class) stands for, when it is a constant of the source. */
function resolved(n: Node, sources: ParsedSources, owner?: ToolDef): Node | undefined {
  // A tool declared as a class reads `this.key` on its class; a tool registered in a loop reads `item.key` on its item.
  const own = owner?.self && thisField(n);
  if (own) return fieldOf(owner.self!, own, sources);
  const fromItem = owner?.item ? onItem(n, owner.item) : undefined;
  if (fromItem && fromItem !== n) return fromItem;
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return undefined;
    const v = valueOfDeclaration(d, sources);
    if (!v || Node.isSourceFile(v) || Node.isFunctionDeclaration(v) || Node.isClassDeclaration(v)) return undefined;
    return Node.isVariableDeclaration(v) ? v.getInitializer() : v;
  }
  if (Node.isPropertyAccessExpression(n)) {
    const holder = unwrap(n.getExpression());
    const obj = Node.isObjectLiteralExpression(holder) ? holder : resolved(holder, sources, owner);
    const o = obj && unwrap(obj);
    if (!o || !Node.isObjectLiteralExpression(o)) return undefined;
    for (const p of o.getProperties()) {
      if (Node.isPropertyAssignment(p) && propertyName(p.getNameNode()) === n.getName()) return p.getInitializerOrThrow();
    }
  }
  return undefined;
}

/** Evaluate an expression; with `onlyKey`, an object literal at the top keeps that key only (and its spreads). */
function evaluate(node: Node, sources: ParsedSources, onlyKey?: string, owner?: ToolDef): Evaluated {
  const lines = new WeakMap<object, Map<string, number>>();
  const seen = new Set<Node>();
  const walk = (raw: Node, depth: number): DeclValue => {
    if (depth > 12) return UNKNOWN;
    const n = unwrap(raw);
    if (seen.has(n)) return UNKNOWN;
    const s = stringValue(n);
    if (s !== undefined) return s;
    if (Node.isNumericLiteral(n)) return n.getLiteralValue();
    if (Node.isPrefixUnaryExpression(n) && n.getOperatorToken() === SyntaxKind.MinusToken) {
      const v = walk(n.getOperand(), depth + 1);
      return typeof v === 'number' ? -v : UNKNOWN;
    }
    if (Node.isTrueLiteral(n)) return true;
    if (Node.isFalseLiteral(n)) return false;
    if (Node.isNullLiteral(n)) return null;
    if (Node.isIdentifier(n) && n.getText() === 'undefined') return undefined;
    if (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '+') {
      const l = walk(n.getLeft(), depth + 1);
      const r = walk(n.getRight(), depth + 1);
      if (typeof l === 'string' && (typeof r === 'string' || typeof r === 'number')) return l + r;
      if (typeof l === 'number' && typeof r === 'number') return l + r;
      if (typeof l === 'number' && typeof r === 'string') return l + r;
      return UNKNOWN;
    }
    if (Node.isIdentifier(n) || Node.isPropertyAccessExpression(n)) {
      const v = resolved(n, sources, owner);
      if (!v) return UNKNOWN;
      seen.add(n);
      const out = walk(v, depth + 1);
      seen.delete(n);
      return out;
    }
    if (Node.isArrayLiteralExpression(n)) {
      const out: DeclValue[] = [];
      for (const el of n.getElements()) {
        if (Node.isSpreadElement(el)) {
          const v = walk(el.getExpression(), depth + 1);
          if (!Array.isArray(v)) return UNKNOWN;
          out.push(...v);
        } else out.push(walk(el, depth + 1));
      }
      return out;
    }
    if (Node.isObjectLiteralExpression(n)) return object(n, depth, depth === 0 ? onlyKey : undefined);
    return UNKNOWN;
  };
  const object = (o: ObjectLiteralExpression, depth: number, only?: string): DeclObject => {
    const out: DeclObject = {};
    const at = new Map<string, number>();
    lines.set(out, at);
    for (const p of o.getProperties()) {
      if (Node.isSpreadAssignment(p)) {
        const v = walk(p.getExpression(), depth + 1);
        if (isDeclObject(v)) {
          for (const k of Object.keys(v)) if (!only || k === only) out[k] = v[k];
          if (v[OPEN]) out[OPEN] = true;
          for (const [k, l] of lines.get(v) ?? []) at.set(k, l);
        } else out[OPEN] = true;
        continue;
      }
      let key: string | undefined;
      let value: DeclValue;
      if (Node.isPropertyAssignment(p)) {
        const nameNode = p.getNameNode();
        key = Node.isComputedPropertyName(nameNode) ? keyString(nameNode.getExpression(), sources, owner) : propertyName(nameNode);
        if (key === undefined) {
          out[OPEN] = true;
          continue;
        }
        if (only && key !== only) continue;
        value = walk(p.getInitializerOrThrow(), depth + 1);
      } else if (Node.isShorthandPropertyAssignment(p)) {
        key = p.getName();
        value = walk(p.getNameNode(), depth + 1);
      } else {
        const nameNode = (p as { getNameNode?: () => Node }).getNameNode?.();
        key = nameNode ? propertyName(nameNode) : undefined;
        if (key === undefined) {
          out[OPEN] = true;
          continue;
        }
        value = UNKNOWN;
      }
      if (only && key !== only) continue;
      out[key] = value;
      at.set(key, positionOf(p).line);
    }
    return out;
  };
  return { value: walk(node, 0), lines };
}

/** The `_meta` object of a tool definition, evaluated, or why it cannot be. */
function metaOf(t: ToolDef, sources: ParsedSources): { value: DeclValue; lines: WeakMap<object, Map<string, number>> } | 'none' | 'unknown' {
  if (t.api === 'tool') return 'none';
  if (!t.config) return 'unknown';
  const cfg = evaluate(t.config, sources, '_meta', t);
  const meta = declField(cfg.value, ['_meta']);
  if (meta === undefined) return 'none';
  return { value: meta, lines: cfg.lines };
}

function readTool(t: ToolDef, sources: ParsedSources): SourceDeclarations {
  const base = { tool: t, file: t.file, line: t.nameLine };
  const fixed = (status: 'none' | 'unknown'): SourceDeclarations => ({ ...base, status, value: status === 'none' ? undefined : UNKNOWN, lineOf: () => t.nameLine });
  const meta = metaOf(t, sources);
  if (meta === 'none' || meta === 'unknown') return fixed(meta);
  const value = declField(meta.value, [DECLARATIONS_KEY]);
  if (value === UNKNOWN) return fixed('unknown');
  if (value === undefined) return fixed('none');
  const declLine = isDeclObject(meta.value) ? (meta.lines.get(meta.value)?.get(DECLARATIONS_KEY) ?? t.nameLine) : t.nameLine;
  const lineOf = (path: readonly string[]): number => {
    let line = declLine;
    let cur: DeclValue = value;
    for (const k of path) {
      if (!isDeclObject(cur)) break;
      const l = meta.lines.get(cur)?.get(k);
      if (l === undefined) break;
      line = l;
      cur = cur[k];
    }
    return line;
  };
  return { ...base, status: 'declared', value, line: declLine, lineOf };
}

const memo = new WeakMap<RepoFacts, SourceDeclarations[]>();

/** The declarations of every tool registered in the source (facts/server-model), in the model's order. */
export function sourceDeclarations(repo: RepoFacts): SourceDeclarations[] {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const out = serverModel(repo).tools.map((t) => readTool(t, sources));
  memo.set(repo, out);
  return out;
}
