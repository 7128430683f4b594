// C-4 fix: close open input schemas. Adds `additionalProperties: false` to JSON-schema
// object literals (type "object" with properties) used as `inputSchema`, and `.strict()`
// to zod `z.object(...)` passed as inputSchema. Pure ts-morph edit; caller decides to save.
import { Node, SyntaxKind, type SourceFile } from '../facts/morph.js';
import { positionOf } from '../facts/ts-source.js';
import type { Fix, FixerResult, TextEdit } from './edits.js';
import { locate, type Reading } from './reading.js';

export interface FixEdit { rule: "C-4"; file: string; line: number; }

function closeJsonSchema(obj: Node, file: string, edits: FixEdit[]): void {
  if (!Node.isObjectLiteralExpression(obj)) return;
  const type = obj.getProperty("type");
  const isObject = type && Node.isPropertyAssignment(type) &&
    /^["']object["']$/.test(type.getInitializer()?.getText() ?? "");
  if (!isObject || obj.getProperty("additionalProperties")) return;
  obj.addPropertyAssignment({ name: "additionalProperties", initializer: "false" });
  edits.push({ rule: "C-4", file, line: obj.getStartLineNumber() });
}

export function fixOpenSchemas(sf: SourceFile): FixEdit[] {
  const edits: FixEdit[] = [];
  const file = sf.getFilePath();
  for (const pa of sf.getDescendantsOfKind(SyntaxKind.PropertyAssignment)) {
    if (pa.wasForgotten() || pa.getName() !== "inputSchema") continue;
    const init = pa.getInitializer();
    if (!init) continue;
    if (Node.isObjectLiteralExpression(init)) { closeJsonSchema(init, file, edits); continue; }
    if (Node.isCallExpression(init) && /^z\.object$/.test(init.getExpression().getText())) {
      init.replaceWithText(`${init.getText()}.strict()`);
      edits.push({ rule: "C-4", file, line: pa.getStartLineNumber() });
    }
  }
  return edits;
}

/*
 * The `mcp-doctor fix` side: C-4's 'source-catch-all' findings whose remedy is mechanical. An input schema
 * object that declares its properties and opens the rest with `additionalProperties: true` is closed
 * (`false`): the declared properties stay accepted. An object without declared properties is left alone (the
 * handler reads properties the schema does not name: declaring them is not mechanical), and so are output
 * schemas (closing one could fail results the handler already returns) and missing schemas.
 */
export function fixCatchAlls(r: Reading): FixerResult {
  const fixes: Fix[] = [];
  const closable = (f: { messageId: string; data?: Record<string, string | number> }) =>
    f.messageId === 'source-catch-all' && f.data?.construct === 'additional_properties_true' && f.data?.schema === 'input';
  const { located, skips } = locate(r, 'C-4', ['source-catch-all', 'source-missing-schema', 'python-catch-all', 'python-missing-schema'], closable);
  for (const { target, file, line, sf } of located) {
    const edits: TextEdit[] = [];
    for (const pa of sf.getDescendantsOfKind(SyntaxKind.PropertyAssignment)) {
      if (pa.getName().replace(/^["']|["']$/g, '') !== 'additionalProperties' || positionOf(pa).line !== line) continue;
      const v = pa.getInitializer();
      const obj = pa.getParent();
      const props = Node.isObjectLiteralExpression(obj) ? obj.getProperty('properties') : undefined;
      const declared = props && Node.isPropertyAssignment(props) ? props.getInitializer() : undefined;
      if (!v || !Node.isTrueLiteral(v) || !declared || !Node.isObjectLiteralExpression(declared) || declared.getProperties().length === 0) continue;
      edits.push({ file, start: v.getStart(), end: v.getEnd(), text: 'false' });
    }
    if (edits.length) fixes.push({ targets: [target], edits });
    else skips.push({ target, reason: 'not-mechanical' });
  }
  return { fixes, skips };
}
