/**
 * S-11 fix: a hand-written tools/call dispatcher that answers an unknown tool name with a result (its
 * `default:` clause, or a return after its last `if (name === …)`) throws the JSON-RPC error Invalid params
 * instead, with the SDK's own error class, when the file uses the SDK:
 *   - SDK v1 (`@modelcontextprotocol/sdk`): `throw new McpError(ErrorCode.InvalidParams, …)` from `…/types.js`;
 *   - SDK v2 (`@modelcontextprotocol/server`): `throw new ProtocolError(ProtocolErrorCode.InvalidParams, …)`.
 * The names are imported when the file does not import them yet (ES module files only). A server that does not
 * use the SDK, or a CommonJS file, is left alone: not mechanical.
 */
import { SyntaxKind, type Node, type SourceFile } from '../facts/morph.js';
import { positionOf } from '../facts/ts-source.js';
import type { Fix, FixerResult, TextEdit } from './edits.js';
import { locate, type Reading } from './reading.js';

interface Sdk {
  module: string;
  error: string;
  code: string;
}
const V1: Sdk = { module: '@modelcontextprotocol/sdk/types.js', error: 'McpError', code: 'ErrorCode' };
const V2: Sdk = { module: '@modelcontextprotocol/server', error: 'ProtocolError', code: 'ProtocolErrorCode' };

function sdkOf(sf: SourceFile): Sdk | undefined {
  const specs = sf.getImportDeclarations().map((d) => d.getModuleSpecifierValue());
  if (specs.some((s) => s === '@modelcontextprotocol/server' || s.startsWith('@modelcontextprotocol/server/'))) return V2;
  if (specs.some((s) => s.startsWith('@modelcontextprotocol/sdk'))) return V1;
  return undefined;
}

/** The edits that import `names` from the SDK module unless the file imports them already. */
function importEdits(sf: SourceFile, file: string, sdk: Sdk): TextEdit[] {
  const imported = new Set(sf.getImportDeclarations().flatMap((d) => d.getNamedImports().map((n) => (n.getAliasNode() ?? n.getNameNode()).getText())));
  const need = [sdk.error, sdk.code].filter((n) => !imported.has(n));
  if (!need.length) return [];
  const same = sf.getImportDeclarations().find((d) => d.getModuleSpecifierValue() === sdk.module && !d.isTypeOnly() && d.getNamedImports().length > 0);
  if (same) {
    const last = same.getNamedImports().at(-1)!;
    return [{ file, start: last.getEnd(), end: last.getEnd(), text: `, ${need.join(', ')}` }];
  }
  const lastImport = sf.getImportDeclarations().at(-1)!;
  return [{ file, start: lastImport.getEnd(), end: lastImport.getEnd(), text: `\nimport { ${need.join(', ')} } from '${sdk.module}';` }];
}

/** The expression the dispatcher switches on (`request.params.name`), to name the tool in the error. */
function nameExpression(ret: Node): string | undefined {
  const sw = ret.getFirstAncestorByKind(SyntaxKind.SwitchStatement);
  return sw ? sw.getExpression().getText() : undefined;
}

export function fixUnknownTool(r: Reading): FixerResult {
  const fixes: Fix[] = [];
  const { located, skips } = locate(r, 'S-11', ['unknown-tool-result-in-source', 'python-unknown-tool-result']);
  for (const { target, file, line, sf } of located) {
    const sdk = sdkOf(sf);
    if (!sdk || sf.getImportDeclarations().length === 0) {
      skips.push({ target, reason: 'no-sdk' });
      continue;
    }
    const ret = sf.getDescendantsOfKind(SyntaxKind.ReturnStatement).find((s) => positionOf(s).line === line);
    if (!ret) {
      skips.push({ target, reason: 'not-found' });
      continue;
    }
    const name = nameExpression(ret);
    const message = name ? `\`Unknown tool: \${String(${name})}\`` : `'Unknown tool'`;
    const edits: TextEdit[] = [
      ...importEdits(sf, file, sdk),
      { file, start: ret.getStart(), end: ret.getEnd(), text: `throw new ${sdk.error}(${sdk.code}.InvalidParams, ${message});` },
    ];
    fixes.push({ targets: [target], edits });
  }
  return { fixes, skips };
}
