import { createRequire } from 'node:module';
import type * as TM from 'ts-morph';

/**
 * ts-morph (and the TypeScript compiler under it: about 1.2 s and 110 MB to load) loaded the first time a value
 * of it is used, not when a module that uses it is imported. Every module of mcp-doctor imports ts-morph from
 * here; a probe that reads no package (`--no-source`, an HTTP target, a command that is not a package) never
 * touches these values, so TypeScript never loads. The first use replaces the stand-ins below with the
 * library's own objects (ES module bindings are live), so the analyser then runs at full speed.
 *
 * A test (src/probe/no-source.test.ts) checks that importing the runner and judging a session without a package
 * does not load ts-morph.
 */
export type * from 'ts-morph';

let mod: typeof TM | undefined;
/** ts-morph itself, loaded once (a CommonJS package: require is synchronous, judging stays synchronous). */
export function tsMorph(): typeof TM {
  if (mod) return mod;
  mod = createRequire(import.meta.url)('ts-morph') as typeof TM;
  if (process.env.MCP_DOCTOR_TRACE_MORPH) process.stderr.write(`ts-morph loaded by:\n${new Error().stack}\n`);
  Node = mod.Node;
  SyntaxKind = mod.SyntaxKind;
  ts = mod.ts;
  Project = mod.Project;
  return mod;
}

/** Whether ts-morph has been loaded in this process (for tests and benchmarks). */
export const tsMorphLoaded = (): boolean => mod !== undefined;

/**
 * A module constant built from ts-morph's values (sets of syntax kinds…), built at its first use rather than when
 * the module loads: `const KINDS = afterLoad(() => new Set([SyntaxKind.X]))`, then `KINDS()`.
 */
export function afterLoad<T>(make: () => T): () => T {
  let v: T | undefined;
  let done = false;
  return () => {
    if (!done) {
      v = make();
      done = true;
    }
    return v as T;
  };
}

/** A stand-in that loads ts-morph at its first use and forwards to the real object. */
function lazy<T extends object>(pick: (m: typeof TM) => T): T {
  return new Proxy(function () {} as unknown as T, {
    get: (_t, k) => Reflect.get(pick(tsMorph()), k),
    has: (_t, k) => Reflect.has(pick(tsMorph()), k),
    construct: (_t, args) => Reflect.construct(pick(tsMorph()) as unknown as new (...a: unknown[]) => object, args),
    apply: (_t, self, args) => Reflect.apply(pick(tsMorph()) as unknown as (...a: unknown[]) => unknown, self, args),
    getPrototypeOf: () => Reflect.getPrototypeOf(pick(tsMorph())),
  });
}

export type Node<T extends TM.ts.Node = TM.ts.Node> = TM.Node<T>;
export let Node: typeof TM.Node = lazy((m) => m.Node);
export type SyntaxKind = TM.SyntaxKind;
export let SyntaxKind: typeof TM.SyntaxKind = lazy((m) => m.SyntaxKind);
export type Project = TM.Project;
export let Project: typeof TM.Project = lazy((m) => m.Project);
export let ts: typeof TM.ts = lazy((m) => m.ts);
/** The TypeScript compiler's types, as `ts.X` (the value `ts` above is the compiler itself). */
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace ts {
  type NodeArray<T extends TM.ts.Node> = TM.ts.NodeArray<T>;
  type ArrayBindingPattern = TM.ts.ArrayBindingPattern;
  type ArrowFunction = TM.ts.ArrowFunction;
  type BinaryExpression = TM.ts.BinaryExpression;
  type BindingElement = TM.ts.BindingElement;
  type BindingName = TM.ts.BindingName;
  type CallExpression = TM.ts.CallExpression;
  type ClassDeclaration = TM.ts.ClassDeclaration;
  type ClassLikeDeclaration = TM.ts.ClassLikeDeclaration;
  type DeleteExpression = TM.ts.DeleteExpression;
  type ElementAccessExpression = TM.ts.ElementAccessExpression;
  type Expression = TM.ts.Expression;
  type FunctionDeclaration = TM.ts.FunctionDeclaration;
  type FunctionExpression = TM.ts.FunctionExpression;
  type FunctionLikeDeclaration = TM.ts.FunctionLikeDeclaration;
  type Identifier = TM.ts.Identifier;
  type ImportDeclaration = TM.ts.ImportDeclaration;
  type JsonSourceFile = TM.ts.JsonSourceFile;
  type JsxAttribute = TM.ts.JsxAttribute;
  type JsxChild = TM.ts.JsxChild;
  type JsxElement = TM.ts.JsxElement;
  type JsxOpeningLikeElement = TM.ts.JsxOpeningLikeElement;
  type JsxSelfClosingElement = TM.ts.JsxSelfClosingElement;
  type LiteralLikeNode = TM.ts.LiteralLikeNode;
  type MethodDeclaration = TM.ts.MethodDeclaration;
  type NewExpression = TM.ts.NewExpression;
  type Node = TM.ts.Node;
  type NodeFlags = TM.ts.NodeFlags;
  type ObjectLiteralElementLike = TM.ts.ObjectLiteralElementLike;
  type ObjectLiteralExpression = TM.ts.ObjectLiteralExpression;
  type ParameterDeclaration = TM.ts.ParameterDeclaration;
  type ParenthesizedExpression = TM.ts.ParenthesizedExpression;
  type PropertyAccessExpression = TM.ts.PropertyAccessExpression;
  type PropertyAssignment = TM.ts.PropertyAssignment;
  type PropertyName = TM.ts.PropertyName;
  type ReturnStatement = TM.ts.ReturnStatement;
  type SignatureDeclarationBase = TM.ts.SignatureDeclarationBase;
  type SourceFile = TM.ts.SourceFile;
  type Statement = TM.ts.Statement;
  type StringLiteral = TM.ts.StringLiteral;
  type StringLiteralLike = TM.ts.StringLiteralLike;
  type SyntaxKind = TM.ts.SyntaxKind;
  type TaggedTemplateExpression = TM.ts.TaggedTemplateExpression;
  type TypeAliasDeclaration = TM.ts.TypeAliasDeclaration;
  type TypeNode = TM.ts.TypeNode;
  type VariableDeclaration = TM.ts.VariableDeclaration;
}
