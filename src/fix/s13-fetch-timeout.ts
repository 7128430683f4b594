// S-13 fix: give `fetch(url)` / `fetch(url, { ... })` without a `signal` an
// `AbortSignal.timeout(...)`. Other clients are left to later fixes.
import { Node, SyntaxKind, type SourceFile } from '../facts/morph.js';

export const FETCH_TIMEOUT_MS = 10_000;
export interface TimeoutEdit { rule: "S-13"; file: string; line: number; }

export function fixFetchTimeouts(sf: SourceFile): TimeoutEdit[] {
  const edits: TimeoutEdit[] = [];
  const signal = `AbortSignal.timeout(${FETCH_TIMEOUT_MS})`;
  for (const call of sf.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    if (call.getExpression().getText() !== "fetch") continue;
    const args = call.getArguments();
    if (args.length === 1) {
      call.addArgument(`{ signal: ${signal} }`);
    } else if (args.length === 2 && Node.isObjectLiteralExpression(args[1])) {
      const opts = args[1];
      if (opts.getProperty("signal") || opts.getProperties().some((p) => Node.isSpreadAssignment(p))) continue;
      opts.addPropertyAssignment({ name: "signal", initializer: signal });
    } else continue;
    edits.push({ rule: "S-13", file: sf.getFilePath(), line: call.getStartLineNumber() });
  }
  return edits;
}
