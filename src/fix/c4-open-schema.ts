// C-4 fix: close open input schemas. Adds `additionalProperties: false` to JSON-schema
// object literals (type "object" with properties) used as `inputSchema`, and `.strict()`
// to zod `z.object(...)` passed as inputSchema. Pure ts-morph edit; caller decides to save.
import { Node, SyntaxKind, type SourceFile } from '../facts/morph.js';

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
