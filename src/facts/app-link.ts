import { ownModules } from './bundle-regions.js';
import { ts } from './morph.js';

/**
 * Whether a JavaScript/TypeScript file's own code (not its comments, not a bundle's library modules) links a
 * tool to a `ui://` View on the server side: it holds a `ui://` string and a link (the `resourceUri` key, the
 * flat `"ui/resourceUri"` key or the App MIME type `text/html;profile=mcp-app`), and one of them sits in a
 * registration (the arguments of a `registerTool`/`tool(`/`registerResource`/`resource(` call and their App
 * variants) or under a `_meta` key. A client that reads `tool._meta.ui.resourceUri`, a JSDoc example and a
 * library bundled into the file link nothing of the package's own.
 */
const REGISTRATION = /^(?:registerTool|registerResource|registerAppTool|registerAppResource|tool|resource|addTool|addResource)$/;
const LINK_STRING = /^(?:ui\/resourceUri|text\/html;\s*profile=mcp-app)$/;

export function linksAppView(file: string, text: string): boolean {
  const own = ownModules(text)?.text ?? text;
  if (!own.includes('ui://')) return false;
  const kind = /\.[cm]?tsx?$/.test(file) ? (file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS) : file.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
  const sf = ts.createSourceFile(file, own, ts.ScriptTarget.Latest, false, kind);
  let uri = false;
  let link = false;
  let registered = false;
  const propName = (n: ts.PropertyName): string | undefined =>
    ts.isIdentifier(n) || ts.isStringLiteralLike(n) ? n.text : undefined;
  const visit = (node: ts.Node, inRegistration: boolean): void => {
    if (registered && uri && link) return;
    let inside = inRegistration;
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : undefined;
      if (name && REGISTRATION.test(name)) {
        for (const a of node.arguments) visit(a, true);
        visit(callee, inRegistration);
        return;
      }
    }
    if (ts.isPropertyAssignment(node) && propName(node.name) === '_meta') inside = true;
    let hit = false;
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) && /^ui:\/\/[\w$-]/.test(node.text)) {
      uri = true;
      hit = true;
    }
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && LINK_STRING.test(node.text)) {
      link = true;
      hit = true;
    }
    if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && propName(node.name) === 'resourceUri') {
      link = true;
      hit = true;
    }
    if (hit && inside) registered = true;
    ts.forEachChild(node, (c) => visit(c, inside));
  };
  visit(sf, false);
  return uri && link && registered;
}
