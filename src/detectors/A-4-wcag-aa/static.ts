import { parse, parseFragment } from 'parse5';
import { Node, ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { fileNotReadData } from '../../facts/not-read.js';
import { wrapNode } from '../../facts/ts-source.js';
import { lineIn, MAX_BUNDLE_BYTES, viewCode } from '../support/apps/app-source.js';
import { embeddedViewCode, embeddedViews, sourceOf } from '../support/apps/embedded-view.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * A-4 — WCAG 2.x AA (static half): what can be read before the View runs. In the built bundles' markup (parse5:
 * a tag inside a comment is no tag) and in the JSX of the UI source (ts-morph), the checks of axe-core's rules
 * that need no rendering:
 *   html-has-lang (the bundle's `<html>` has a non-empty `lang`), document-title (a non-empty `<title>`),
 *   image-alt (`<img>` with an `alt`, or a role of presentation/none, or an aria-label),
 *   button-name (a `<button>` with text, or aria-label / aria-labelledby / title),
 *   label (an `<input>`, `<select>` or `<textarea>` with aria-label / aria-labelledby / title, a `<label for>`
 *   naming its id, or inside a `<label>`; hidden, submit, reset, button and image inputs aside).
 * An element hidden from everyone (`hidden`, an inline `display: none` or `visibility: hidden`, itself or an ancestor)
 * is left out, as axe-core leaves it out: an `<input type="file" hidden>` behind a labelled button is no unlabelled
 * field. A hidden panel the View's scripts can show (they name its id and hold a reveal: `hidden` set to anything but
 * true, `removeAttribute('hidden')`, an inline display/visibility set) is checked: its controls reach the user once shown.
 * A button's name from its content counts a descendant's aria-label (an icon `<svg aria-label="Close">`).
 * JSX with a spread of props or an expression child is taken as named (the value is not known before rendering).
 * Without a built bundle or View source, the View the server's code serves whole (support/apps/embedded-view.ts) is
 * read the same way: its document's markup and its inline scripts.
 * The markup the View's scripts build is read too where it is written down (scriptMisses): compiled JSX and element
 * factories, and markup templates handed whole to a framework. Contrast, focus and whatever the scripts compute are the
 * dynamic half's (axe-core in the rendered View).
 * Why not axe-core here: it needs a DOM (jsdom would be a large new dependency for five markup checks) and the
 * dynamic half already runs axe-core itself in Chromium on the rendered View.
 */

interface HtmlNode {
  nodeName: string;
  tagName?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: HtmlNode[];
  content?: HtmlNode;
  value?: string;
  parentNode?: HtmlNode;
  sourceCodeLocation?: { startLine: number } | null;
}

type Check = 'html-has-lang' | 'document-title' | 'image-alt' | 'button-name' | 'label';
interface Miss {
  check: Check;
  element: string;
  line: number;
}

const attr = (n: HtmlNode, name: string) => n.attrs?.find((a) => a.name === name)?.value;
const UNLABELLED_INPUT_TYPES = new Set(['hidden', 'submit', 'reset', 'button', 'image']);

/** The name a subtree gives its container (name from content): its text, an image's alt, a descendant's aria-label. */
function textOf(n: HtmlNode): string {
  if (n.nodeName === '#text') return n.value ?? '';
  if (n.nodeName === 'img') return attr(n, 'alt') ?? '';
  const own = n.nodeName.startsWith('#') ? '' : (attr(n, 'aria-label') ?? '').trim();
  return own || (n.childNodes ?? []).map(textOf).join('');
}

/** Hidden from everyone, so out of the accessibility checks (axe skips it too): `hidden`, or an inline display:none / visibility:hidden. */
const hiddenHtml = (n: HtmlNode): boolean => attr(n, 'hidden') !== undefined || /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)\s*(!important\s*)?(;|$)/i.test(attr(n, 'style') ?? '');

/**
 * A hidden panel that the View's scripts can show: it is no control itself (a hidden file picker is, and stays out),
 * it has an id the scripts name ('id', '#id'), and the scripts hold a reveal (a `hidden` set to anything but true,
 * `removeAttribute('hidden')` / `toggleAttribute('hidden')`, an inline `display` / `visibility` set, `showModal()`).
 * Its controls reach the user once it is shown, so they are checked as axe-core checks them then.
 */
const REVEAL = /\.hidden\s*=(?!=)\s*(?!\s*(?:true|!0)\b)|\b(?:remove|toggle)Attribute\(\s*["'`]hidden["'`]|\.style\.(?:display|visibility)\s*=(?!=)|\.setProperty\(\s*["'`](?:display|visibility)["'`]|\.showModal\(/;
const CONTROLS = new Set(['input', 'select', 'textarea', 'button']);
function revealable(n: HtmlNode, scripts: string): boolean {
  const id = attr(n, 'id')?.trim();
  if (!id || CONTROLS.has(n.nodeName) || !REVEAL.test(scripts)) return false;
  const quoted = escapeRegExp(id);
  return new RegExp(`["'\`]#?${quoted}["'\`]`).test(scripts);
}

const named = (n: HtmlNode) => ['aria-label', 'aria-labelledby', 'title'].some((a) => (attr(n, a) ?? '').trim() !== '');
/**
 * axe-core's `label` rule (inputs and text areas) also accepts a non-empty `placeholder` as the field's name
 * (its `non-empty-placeholder` check); a `<select>` falls under `select-name`, which does not.
 */
const placeheld = (n: HtmlNode) => n.nodeName !== 'select' && (attr(n, 'placeholder') ?? '').trim() !== '';

/**
 * The checks on a built bundle's markup; `scripts`, the View's code, tells which hidden panels it can show. A fragment
 * (a template a script hands its framework) has no document to hold a lang or a title: only its elements are checked.
 */
export function markupMisses(html: string, scripts = '', fragment = false): Miss[] {
  const doc = (fragment ? parseFragment(html, { sourceCodeLocationInfo: true }) : parse(html, { sourceCodeLocationInfo: true })) as unknown as HtmlNode;
  const out: Miss[] = [];
  const labelled = new Set<string>();
  const all: { n: HtmlNode; inLabel: boolean }[] = [];
  const walkHidden = (n: HtmlNode) => {
    // A hidden subtree holds no element to check, but a <label for> in it still names its field.
    if (n.nodeName === 'label' && attr(n, 'for')) labelled.add(attr(n, 'for')!);
    for (const c of n.childNodes ?? []) walkHidden(c);
  };
  let title = false;
  let htmlNode: HtmlNode | undefined;
  const walk = (n: HtmlNode, inLabel: boolean) => {
    if (n.nodeName === 'html') htmlNode = n;
    if (n.nodeName !== 'html' && n.nodeName !== 'body' && !n.nodeName.startsWith('#') && hiddenHtml(n) && !revealable(n, scripts)) return walkHidden(n);
    if (n.nodeName === 'title' && textOf(n).trim()) title = true;
    if (n.nodeName === 'label' && attr(n, 'for')) labelled.add(attr(n, 'for')!);
    if (['img', 'button', 'input', 'select', 'textarea'].includes(n.nodeName)) all.push({ n, inLabel });
    for (const c of n.childNodes ?? []) walk(c, inLabel || n.nodeName === 'label');
    if (n.content) walk(n.content, inLabel);
  };
  walk(doc, false);
  const line = (n: HtmlNode) => n.sourceCodeLocation?.startLine ?? 1;
  if (!fragment && htmlNode && !(attr(htmlNode, 'lang') ?? '').trim()) out.push({ check: 'html-has-lang', element: '<html>', line: line(htmlNode) });
  if (!fragment && !title) out.push({ check: 'document-title', element: '<title>', line: htmlNode ? line(htmlNode) : 1 });
  for (const { n, inLabel } of all) {
    if (n.nodeName === 'img' && attr(n, 'alt') === undefined && !/^(presentation|none)$/.test(attr(n, 'role') ?? '') && !named(n)) out.push({ check: 'image-alt', element: '<img>', line: line(n) });
    if (n.nodeName === 'button' && !textOf(n).trim() && !named(n)) out.push({ check: 'button-name', element: '<button>', line: line(n) });
    if (['input', 'select', 'textarea'].includes(n.nodeName)) {
      if (n.nodeName === 'input' && UNLABELLED_INPUT_TYPES.has((attr(n, 'type') ?? 'text').toLowerCase())) continue;
      const id = attr(n, 'id');
      if (!named(n) && !placeheld(n) && !inLabel && !(id && labelled.has(id))) out.push({ check: 'label', element: `<${n.nodeName}>`, line: line(n) });
    }
  }
  return out;
}

/** The checks on the JSX of a UI source file. */
function jsxMisses(sf: ts.SourceFile): { check: Check; element: string; node: ts.Node }[] {
  const out: { check: Check; element: string; node: ts.Node }[] = [];
  const labelFor = new Set<string>();
  const fields: { el: ts.JsxOpeningLikeElement; inLabel: boolean }[] = [];
  const attrsOf = (el: ts.JsxOpeningLikeElement) => el.attributes.properties;
  const spread = (el: ts.JsxOpeningLikeElement) => attrsOf(el).some((a) => ts.isJsxSpreadAttribute(a));
  const has = (el: ts.JsxOpeningLikeElement, name: string) => attrsOf(el).some((a) => ts.isJsxAttribute(a) && a.name.getText(sf) === name);
  const value = (el: ts.JsxOpeningLikeElement, name: string) => {
    const a = attrsOf(el).find((x): x is ts.JsxAttribute => ts.isJsxAttribute(x) && x.name.getText(sf) === name);
    return a?.initializer && ts.isStringLiteral(a.initializer) ? a.initializer.text : a ? '?' : undefined;
  };
  const jsxHidden = (el: ts.JsxOpeningLikeElement) => {
    const h = attrsOf(el).find((x): x is ts.JsxAttribute => ts.isJsxAttribute(x) && x.name.getText(sf) === 'hidden');
    if (h && (!h.initializer || (ts.isJsxExpression(h.initializer) && h.initializer.expression?.kind === ts.SyntaxKind.TrueKeyword))) return true;
    const st = attrsOf(el).find((x): x is ts.JsxAttribute => ts.isJsxAttribute(x) && x.name.getText(sf) === 'style');
    return !!st?.initializer && /\bdisplay\s*:\s*(['"`])none\1|\bvisibility\s*:\s*(['"`])hidden\2/.test(st.initializer.getText(sf));
  };
  const jsxNamed = (el: ts.JsxOpeningLikeElement) => spread(el) || ['aria-label', 'aria-labelledby', 'title'].some((a) => has(el, a));
  const hasContent = (children: ts.NodeArray<ts.JsxChild>): boolean =>
    children.some((c) => (ts.isJsxText(c) && c.text.trim() !== '') || (ts.isJsxExpression(c) && !!c.expression) || ((ts.isJsxElement(c) || ts.isJsxSelfClosingElement(c)) && childNamed(c)));
  const childNamed = (c: ts.JsxElement | ts.JsxSelfClosingElement): boolean => {
    const open = ts.isJsxElement(c) ? c.openingElement : c;
    const tag = open.tagName.getText(sf);
    if (tag === 'img') return has(open, 'alt') || jsxNamed(open);
    if (/^[A-Z]/.test(tag)) return true; // a component: its output is not known here
    return jsxNamed(open) || (ts.isJsxElement(c) && hasContent(c.children));
  };
  const visit = (cn: ts.Node, inLabel: boolean): void => {
    if (ts.isJsxElement(cn) || ts.isJsxSelfClosingElement(cn)) {
      const open = ts.isJsxElement(cn) ? cn.openingElement : cn;
      const tag = open.tagName.getText(sf);
      if (jsxHidden(open) && tag !== 'label') return;
      if (tag === 'label' && value(open, 'htmlFor')) labelFor.add(value(open, 'htmlFor')!);
      if (tag === 'img' && !has(open, 'alt') && !jsxNamed(open) && !/^(presentation|none)$/.test(value(open, 'role') ?? '')) out.push({ check: 'image-alt', element: '<img>', node: open });
      if (tag === 'button' && !jsxNamed(open) && !(ts.isJsxElement(cn) && hasContent(cn.children))) out.push({ check: 'button-name', element: '<button>', node: open });
      if (['input', 'select', 'textarea'].includes(tag) && !UNLABELLED_INPUT_TYPES.has((value(open, 'type') ?? 'text').toLowerCase())) fields.push({ el: open, inLabel });
      const nowInLabel = inLabel || tag === 'label';
      ts.forEachChild(cn, (c) => visit(c, nowInLabel));
      return;
    }
    ts.forEachChild(cn, (c) => visit(c, inLabel));
  };
  visit(sf, false);
  for (const { el, inLabel } of fields) {
    const id = value(el, 'id');
    const placeheldJsx = el.tagName.getText(sf) !== 'select' && (value(el, 'placeholder') ?? '').trim() !== '';
    if (!jsxNamed(el) && !placeheldJsx && !inLabel && !(id && (id === '?' || labelFor.has(id)))) out.push({ check: 'label', element: `<${el.tagName.getText(sf)}>`, node: el });
  }
  return out;
}

/** Tags an element factory is handed (React's jsx, createElement, Preact's h, Vue's createElementVNode, renamed or not). */
const HTML_TAGS = new Set('a abbr article aside b blockquote br button canvas caption code dd details dialog div dl dt em fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr i img input label legend li main nav ol optgroup option output p pre progress section select small span strong sub summary sup svg table tbody td textarea tfoot th thead tr u ul'.split(' '));
/** Tags only markup has (an event name such as "input" or "select" is also a tag, never these). */
const STRUCTURE = new Set('div span p section main header footer nav ul ol li form label table tr td h1 h2 h3 strong code'.split(' '));
/** Names a factory keeps through minification (a property of the runtime module, or an unbundled import); a bare `h` may be any minified name, and is known by the tags it is handed. */
const FACTORY_NAMES = /^(?:jsx|jsxs|jsxDEV|_jsx|_jsxs|createElement|createElementVNode|createVNode|createBaseVNode|_createElementVNode|_createVNode)$/;
/** A template of markup a script hands its framework whole (Solid's template(), Svelte's from_html(), lit's html``). */
const TEMPLATE_TAGS = /<(?:input|select|textarea|button|img)\b/i;

interface ElementCall {
  call: ts.CallExpression;
  tag: string;
  props?: ts.ObjectLiteralExpression;
  /** Props given as something other than a literal object (a hoisted const, a spread of a variable): not known here. */
  opaqueProps: boolean;
  /** What the element holds: `children` of its props, or the factory's further arguments. */
  children: ts.Expression[];
  parent?: ElementCall;
}

/**
 * The checks on the markup a View's script builds, read without running it: (1) the calls of an element factory — a
 * compiled JSX runtime (`o.jsx("textarea", { value, onChange })`), `createElement` / `h` / Vue's
 * `createElementVNode("button", { onClick }, "Send")`, under their own names or the one-letter name a minifier gave
 * them (a function handed two or more HTML tags as its first argument, one of them with props as its second); (2)
 * the markup templates a script hands its framework whole (Solid, Svelte: a call whose only argument is a string of
 * markup; lit's html``), parsed as HTML fragments. A control's name counts as axe-core counts it (aria-label,
 * aria-labelledby, title, text content, an enclosing label, a label for its id). Props that
 * are not a literal object, a spread, an id or a child computed at run time are taken as naming the element: what
 * they hold is the dynamic half's. One walk of the file.
 */
export function scriptMisses(sf: ts.SourceFile): { check: Check; element: string; node: ts.Node; lineDelta: number }[] {
  const out: { check: Check; element: string; node: ts.Node; lineDelta: number }[] = [];
  const calls: ElementCall[] = [];
  const byCallee = new Map<string, { tags: Set<string>; withProps: boolean }>();
  const templates: { node: ts.Node; text: string }[] = [];
  const stringOf = (e: ts.Expression | undefined) => (e && (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) ? e.text : undefined);
  const calleeName = (c: ts.CallExpression) => {
    let e: ts.Expression = c.expression;
    // `(0, o.jsx)(…)`: how a bundler calls an imported function without a receiver.
    while (ts.isParenthesizedExpression(e)) e = ts.isBinaryExpression(e.expression) && e.expression.operatorToken.kind === ts.SyntaxKind.CommaToken ? e.expression.right : e.expression;
    return ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : undefined;
  };
  const visit = (n: ts.Node, parent: ElementCall | undefined): void => {
    let here = parent;
    if (ts.isCallExpression(n)) {
      const tag = stringOf(n.arguments[0]);
      const name = calleeName(n);
      const second = n.arguments[1];
      // document.createElement(tag, { is }) is the DOM's own, not a factory of markup.
      const domOptions = !!second && ts.isObjectLiteralExpression(second) && second.properties.length > 0 && second.properties.every((p) => propName(p) === 'is');
      if (tag !== undefined && name && second && !domOptions && /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/.test(tag)) {
        const props = ts.isObjectLiteralExpression(second) ? second : undefined;
        const none = second.kind === ts.SyntaxKind.NullKeyword || (ts.isVoidExpression(second));
        const childProp = props?.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && propName(p) === 'children');
        const children = childProp ? [childProp.initializer] : n.arguments.slice(2).filter((a) => a.kind !== ts.SyntaxKind.NullKeyword && !ts.isVoidExpression(a) && !ts.isNumericLiteral(a));
        here = { call: n, tag, props, opaqueProps: !props && !none, children, parent };
        calls.push(here);
        const seen = byCallee.get(name) ?? { tags: new Set<string>(), withProps: false };
        if (HTML_TAGS.has(tag)) seen.tags.add(tag);
        seen.withProps ||= !!props;
        byCallee.set(name, seen);
      } else if (n.arguments.length === 1 && tag !== undefined && TEMPLATE_TAGS.test(tag)) templates.push({ node: n.arguments[0]!, text: tag });
    } else if (ts.isTaggedTemplateExpression(n) && /(?:^|\.)html$/.test(n.tag.getText(sf))) {
      const t = n.template;
      const text = ts.isNoSubstitutionTemplateLiteral(t) ? t.text : [t.head.text, ...t.templateSpans.map((x) => x.literal.text)].join('x');
      if (TEMPLATE_TAGS.test(text)) templates.push({ node: t, text });
    }
    ts.forEachChild(n, (c) => visit(c, here));
  };
  visit(sf, undefined);
  const factory = (c: ElementCall) => {
    const name = calleeName(c.call)!;
    const seen = byCallee.get(name)!;
    return FACTORY_NAMES.test(name) || (seen.tags.size >= 2 && seen.withProps && [...seen.tags].some((t) => STRUCTURE.has(t)));
  };
  const prop = (c: ElementCall, name: string) => c.props?.properties.find((p) => (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && propName(p) === name);
  const spread = (c: ElementCall) => c.opaqueProps || !!c.props?.properties.some((p) => ts.isSpreadAssignment(p));
  const literalValue = (c: ElementCall, name: string): string | undefined => {
    const p = prop(c, name);
    if (!p) return undefined;
    return ts.isPropertyAssignment(p) ? (stringOf(p.initializer) ?? '?') : '?';
  };
  const nonEmpty = (c: ElementCall, name: string) => {
    const v = literalValue(c, name);
    return v !== undefined && v.trim() !== '';
  };
  const isNamed = (c: ElementCall) => spread(c) || ['aria-label', 'aria-labelledby', 'title'].some((a) => nonEmpty(c, a));
  const truthy = (e: ts.Expression) => e.kind === ts.SyntaxKind.TrueKeyword || (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.ExclamationToken && ts.isNumericLiteral(e.operand) && e.operand.text === '0');
  const hidden = (c: ElementCall) => {
    const h = prop(c, 'hidden');
    return !!h && ts.isPropertyAssignment(h) && truthy(h.initializer);
  };
  const elementOf = new Map(calls.map((c) => [c.call, c] as const));
  /** Does what an element holds give it a name (its text, a named or labelled descendant, anything computed)? */
  const contentNamed = (children: ts.Expression[], depth = 0): boolean =>
    children.some((e) => {
      if (depth > 8) return true;
      const s = stringOf(e);
      if (s !== undefined) return s.trim() !== '';
      if (ts.isArrayLiteralExpression(e)) return contentNamed([...e.elements], depth + 1);
      const el = ts.isCallExpression(e) ? elementOf.get(e) : undefined;
      if (el && factory(el)) return el.tag === 'img' ? literalValue(el, 'alt') !== undefined || isNamed(el) : isNamed(el) || contentNamed(el.children, depth + 1);
      return true; // computed at run time: not known here
    });
  const labelFor = new Set<string>();
  for (const c of calls) if (c.tag === 'label' && factory(c)) for (const k of ['htmlFor', 'for']) if (literalValue(c, k)) labelFor.add(literalValue(c, k)!);
  for (const c of calls) {
    if (!['img', 'button', 'input', 'select', 'textarea'].includes(c.tag) || !factory(c) || spread(c)) continue;
    let inLabel = false;
    let gone = hidden(c);
    for (let a = c.parent; a && !gone; a = a.parent) {
      if (!factory(a)) continue;
      if (hidden(a)) gone = true;
      if (a.tag === 'label') inLabel = true;
    }
    if (gone) continue;
    const at = { node: c.call, lineDelta: 0 };
    if (c.tag === 'img' && literalValue(c, 'alt') === undefined && !isNamed(c) && !/^(presentation|none)$/.test(literalValue(c, 'role') ?? '')) out.push({ check: 'image-alt', element: '<img>', ...at });
    if (c.tag === 'button' && !isNamed(c) && !contentNamed(c.children)) out.push({ check: 'button-name', element: '<button>', ...at });
    if (c.tag === 'input' || c.tag === 'select' || c.tag === 'textarea') {
      const type = literalValue(c, 'type');
      if (c.tag === 'input' && (type === '?' || UNLABELLED_INPUT_TYPES.has((type ?? 'text').toLowerCase()))) continue;
      const id = literalValue(c, 'id');
      // A non-empty placeholder names an input or a text area for axe-core (see placeheld).
      if (isNamed(c) || (c.tag !== 'select' && nonEmpty(c, 'placeholder')) || inLabel || (id && (id === '?' || labelFor.has(id)))) continue;
      out.push({ check: 'label', element: `<${c.tag}>`, ...at });
    }
  }
  for (const t of templates) for (const m of markupMisses(t.text, '', true)) out.push({ check: m.check, element: m.element, node: t.node, lineDelta: m.line - 1 });
  return out;
}

/** A property's name as written (an identifier, or a quoted key such as "aria-label"). */
function propName(p: ts.ObjectLiteralElementLike): string | undefined {
  const n = p.name;
  return n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n)) ? n.text : undefined;
}

export default defineDetector({
  ruleId: 'A-4',
  genre: 'static',
  needs: ['repo'],
  messages: { 'markup-misses-name': ['file', 'check', 'element'] },
  judge({ inputs: { repo } }) {
    const view = viewCode(repo);
    if (view.unread.length) return couldNotJudge('file-not-read', fileNotReadData(view.unread[0]!));
    const source = view.code.filter((c) => !c.bundle);
    // No built bundle and no View source: the View the server's code serves whole (an HTML literal, a file it reads
    // next to itself, a document it assembles from package files) is the View's markup, its inline scripts its code.
    const embedded = view.bundles.length || source.length ? [] : embeddedViews(repo);
    if (!view.bundles.length && !source.length && !embedded.length) return couldNotJudge('no-view-code');
    const findings: Finding[] = [];
    const embeddedCode = embedded.length ? (embeddedViewCode(repo) ?? []) : [];
    for (const e of embedded) {
      const scripts = embeddedCode.map((c) => c.sf.getFullText()).join('\n');
      for (const m of markupMisses(e.html, scripts)) {
        const at = sourceOf(e, m.line);
        findings.push({ messageId: 'markup-misses-name', data: { file: at.file, check: m.check, element: m.element }, location: at });
      }
    }
    for (const c of embeddedCode) {
      for (const m of scriptMisses(c.sf.compilerNode)) findings.push({ messageId: 'markup-misses-name', data: { file: c.file, check: m.check, element: m.element }, location: { file: c.file, line: lineIn(c, wrapNode(c.sf, m.node) as Node) + m.lineDelta } });
    }
    // The View's code (its source files and the bundles' inline scripts): which hidden panels it can show.
    const scripts = view.code.map((c) => c.sf.getFullText()).join('\n');
    for (const file of view.bundles) {
      const r = repo.source(file, MAX_BUNDLE_BYTES);
      if (!r.ok) return couldNotJudge('file-not-read', fileNotReadData({ file, cause: r.cause, size: r.size, limit: r.limit }));
      for (const m of markupMisses(r.text, scripts)) findings.push({ messageId: 'markup-misses-name', data: { file, check: m.check, element: m.element }, location: { file, line: m.line } });
    }
    // What the View's scripts build: element factories and markup templates, in its source files, or in its bundles'
    // scripts when the package ships no View source (a published package ships only the build; with the source beside
    // it, the bundle's compiled calls would repeat what the source's JSX already said).
    for (const c of source.length ? source : view.code) {
      for (const m of scriptMisses(c.sf.compilerNode)) findings.push({ messageId: 'markup-misses-name', data: { file: c.file, check: m.check, element: m.element }, location: { file: c.file, line: lineIn(c, wrapNode(c.sf, m.node) as Node) + m.lineDelta } });
    }
    for (const c of source) {
      for (const m of jsxMisses(c.sf.compilerNode)) findings.push({ messageId: 'markup-misses-name', data: { file: c.file, check: m.check, element: m.element }, location: { file: c.file, line: lineIn(c, wrapNode(c.sf, m.node) as Node) } });
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
