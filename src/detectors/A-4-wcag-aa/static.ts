import { parse, parseFragment } from 'parse5';
import { Node, ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { fileNotReadData } from '../../facts/not-read.js';
import { wrapNode } from '../../facts/ts-source.js';
import { lineIn, MAX_BUNDLE_BYTES, viewCode } from '../support/apps/app-source.js';
import { escapeRegExp } from '../../facts/regex.js';
import { embeddedViews, GAP, partialViews, sourceOf } from '../support/apps/embedded-view.js';
import { COMPONENT_FILE, componentFiles } from '../support/apps/view-files.js';

/**
 * A-4 — WCAG 2.x AA (static half): what can be read before the View runs. In the built bundles' markup (parse5:
 * a tag inside a comment is no tag) and in the JSX of the UI source (ts-morph), the checks of axe-core's rules
 * that need no rendering:
 *   html-has-lang (the bundle's `<html>` has a non-empty `lang`), document-title (a non-empty `<title>`),
 *   image-alt (`<img>` with an `alt`, or a role of presentation/none, or an aria-label),
 *   button-name (a `<button>` with text, or aria-label / aria-labelledby / title),
 *   label (an `<input>`, `<select>` or `<textarea>` with aria-label / aria-labelledby / title, a `<label for>`
 *   naming its id, or inside a `<label>`; hidden, submit, reset, button and image inputs aside),
 *   aria-command-name, aria-toggle-field-name, aria-input-field-name, aria-progressbar-name (an element made a control
 *   by its ARIA role: ROLE_CHECKS; in markup, not in JSX).
 * An element hidden from everyone (`hidden`, an inline `display: none` or `visibility: hidden`, itself or an ancestor)
 * is left out, as axe-core leaves it out: an `<input type="file" hidden>` behind a labelled button is no unlabelled
 * field. A hidden panel the View's scripts can show (they name its id and hold a reveal: `hidden` set to anything but
 * true, `removeAttribute('hidden')`, an inline display/visibility set) is checked: its controls reach the user once shown.
 * A button's name from its content counts a descendant's aria-label (an icon `<svg aria-label="Close">`).
 * JSX with a spread of props or an expression child is taken as named (the value is not known before rendering).
 * Without a built bundle, the document the server's code serves as the View (support/apps/embedded-view.ts: a literal,
 * a file it reads, a document it assembles, or what is written around the pieces of one it cannot know) is the markup
 * read; with no such document read whole, the View's own document (its `lang`, its `<title>`, the markup around the
 * JSX) is not read, and a reading that found nothing in the JSX alone is no green: could-not-judge.
 * Contrast, focus and everything a script builds are the dynamic half's (axe-core in the rendered View).
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

type Check = 'html-has-lang' | 'document-title' | 'image-alt' | 'button-name' | 'label' | 'aria-command-name' | 'aria-input-field-name' | 'aria-toggle-field-name' | 'aria-progressbar-name';

/**
 * Elements made controls by an ARIA role (a `<div role="slider">` seek bar, a `<span role="button">` play button):
 * axe-core's no-render name checks for them. Commands and toggles may be named by their content; fields (a slider, a
 * spin button, a text box…) and progress bars only by aria-label, aria-labelledby or title. A native element keeps its
 * own check (a `<button role="switch">` is a button), and a role written as an expression is not known.
 */
const ROLE_CHECKS: Record<string, { check: Check; content: boolean }> = {
  button: { check: 'aria-command-name', content: true },
  link: { check: 'aria-command-name', content: true },
  menuitem: { check: 'aria-command-name', content: true },
  checkbox: { check: 'aria-toggle-field-name', content: true },
  switch: { check: 'aria-toggle-field-name', content: true },
  radio: { check: 'aria-toggle-field-name', content: true },
  menuitemcheckbox: { check: 'aria-toggle-field-name', content: true },
  menuitemradio: { check: 'aria-toggle-field-name', content: true },
  option: { check: 'aria-toggle-field-name', content: true },
  slider: { check: 'aria-input-field-name', content: false },
  spinbutton: { check: 'aria-input-field-name', content: false },
  combobox: { check: 'aria-input-field-name', content: false },
  listbox: { check: 'aria-input-field-name', content: false },
  searchbox: { check: 'aria-input-field-name', content: false },
  textbox: { check: 'aria-input-field-name', content: false },
  progressbar: { check: 'aria-progressbar-name', content: false },
};
const NATIVE = new Set(['button', 'input', 'select', 'textarea', 'a', 'img', 'label', 'option', 'summary', 'details', 'audio', 'video']);
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
  if (n.nodeName === COMPONENT_TAG) return '…'; // a component's or a slot's output is not known before rendering
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

/**
 * What the View's scripts set before anyone reads the page: the document's language (`document.documentElement.lang =`,
 * `setAttribute('lang', …)`), its title (`document.title =`), and the name of a control they fill — through the element
 * itself: `getElementById('print').setAttribute('aria-label', …)`, a const holding it (`const b = querySelector('#print');
 * b.textContent = …`), or each element of a selection of its data attribute (`for (const el of
 * querySelectorAll('[data-i18n]')) el.textContent = …`, `.forEach((el) => el.textContent = …)`). A fill of another
 * element does not name it. Those checks are left to the dynamic half (axe-core on the rendered View), as a hidden
 * panel the scripts can show is checked (revealable).
 */
const SETS_LANG = /\bdocumentElement\.lang\s*=(?!=)|\.setAttribute\(\s*["'`]lang["'`]/;
const SETS_TITLE = /\bdocument\.title\s*=(?!=)/;
const BUTTON_FILL = String.raw`\??\.\s*(?:(?:textContent|innerText|innerHTML|ariaLabel)\s*=(?!=)|setAttribute\(\s*["'\`](?:aria-label|aria-labelledby|title)["'\`])`;
const FIELD_FILL = String.raw`\??\.\s*(?:(?:ariaLabel|placeholder|title)\s*=(?!=)|setAttribute\(\s*["'\`](?:aria-label|aria-labelledby|title|placeholder)["'\`])`;
const FILLS_ANY = /\.\s*(?:textContent|innerText|innerHTML|ariaLabel|placeholder|title)\s*=(?!=)|\.setAttribute\(\s*["'`](?:aria-label|aria-labelledby|title|placeholder)["'`]/;
function filledByScript(n: HtmlNode, scripts: string, fill: string): boolean {
  if (!FILLS_ANY.test(scripts)) return false;
  const Q = String.raw`["'\`]`;
  const refs: string[] = [];
  const id = attr(n, 'id')?.trim();
  if (id) refs.push(String.raw`\.(?:getElementById\(\s*${Q}${escapeRegExp(id)}|querySelector\(\s*${Q}#${escapeRegExp(id)})${Q}\s*\)`);
  const data = (n.attrs ?? []).filter((a) => a.name.startsWith('data-')).map((a) => escapeRegExp(a.name));
  const selection = data.length ? String.raw`\.querySelectorAll\(\s*${Q}[^"'\`]*\[(?:${data.join('|')})(?=[\]=~|^$*\s])[^"'\`]*${Q}\s*\)` : undefined;
  // The element itself filled, or a const holding it.
  for (const r of refs) {
    if (new RegExp(r + String.raw`\s*` + fill).test(scripts)) return true;
    for (const m of scripts.matchAll(new RegExp(String.raw`\b(?:const|let|var)\s+([\w$]+)\s*=\s*(?:document|[\w$.]+)` + r, 'g'))) {
      if (new RegExp(String.raw`(?<![\w$.])${escapeRegExp(m[1]!)}\s*` + fill).test(scripts)) return true;
    }
  }
  if (!selection) return false;
  // Each element of a selection of its data attribute: a for-of over it, or its forEach.
  const loops = new RegExp(String.raw`for\s*\(\s*(?:const|let|var)\s+([\w$]+)\s+of\s+[\w$.]*${selection}|${selection}\s*\.forEach\(\s*(?:function\s*)?\(?\s*([\w$]+)`, 'g');
  for (const m of scripts.matchAll(loops)) {
    if (new RegExp(String.raw`(?<![\w$.])${escapeRegExp((m[1] ?? m[2])!)}\s*` + fill).test(scripts)) return true;
  }
  return false;
}

const named = (n: HtmlNode) => ['aria-label', 'aria-labelledby', 'title'].some((a) => (attr(n, a) ?? '').trim() !== '');
/**
 * axe-core's `label` rule (inputs and text areas) also accepts a non-empty `placeholder` as the field's name
 * (its `non-empty-placeholder` check); a `<select>` falls under `select-name`, which does not.
 */
const placeheld = (n: HtmlNode) => n.nodeName !== 'select' && (attr(n, 'placeholder') ?? '').trim() !== '';

/**
 * The checks on a built bundle's markup; `scripts`, the View's code, tells which hidden panels it can show and what it
 * sets itself (SETS_LANG, SETS_TITLE, filledByScript). `partial`: the document has pieces the reading could not know
 * (GAP); only the elements written around them are judged — a `<title>` missing where an unknown piece stands before
 * `<body>` (the piece may write the head), a `lang` missing from an `<html>` tag with an unknown piece among its
 * attributes, an element with an unknown piece among its attributes, are not judged.
 */
export function markupMisses(html: string, scripts = '', partial = false, component = false): Miss[] {
  const doc = (component ? parseFragment(html, { sourceCodeLocationInfo: true }) : parse(html, { sourceCodeLocationInfo: true })) as unknown as HtmlNode;
  if (component) normaliseComponentAttrs(doc);
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
    if (['img', 'button', 'input', 'select', 'textarea'].includes(n.nodeName) || (!NATIVE.has(n.nodeName) && attr(n, 'role') !== undefined)) all.push({ n, inLabel });
    for (const c of n.childNodes ?? []) walk(c, inLabel || n.nodeName === 'label');
    if (n.content) walk(n.content, inLabel);
  };
  walk(doc, false);
  const line = (n: HtmlNode) => n.sourceCodeLocation?.startLine ?? 1;
  const gapAttr = (n: HtmlNode) => partial && (n.attrs ?? []).some((a) => a.name.includes(GAP));
  const bodyAt = html.search(/<body[\s>]/i);
  const gapInHead = partial && html.slice(0, bodyAt === -1 ? html.length : bodyAt).includes(GAP);
  // A component is no document: its page's lang and title are elsewhere.
  if (component) {
    htmlNode = undefined;
    title = true;
  }
  if (htmlNode && !(attr(htmlNode, 'lang') ?? '').trim() && !gapAttr(htmlNode) && !SETS_LANG.test(scripts)) out.push({ check: 'html-has-lang', element: '<html>', line: line(htmlNode) });
  if (!title && !gapInHead && !SETS_TITLE.test(scripts)) out.push({ check: 'document-title', element: '<title>', line: htmlNode ? line(htmlNode) : 1 });
  for (const { n, inLabel } of all) {
    if (gapAttr(n)) continue;
    if (n.nodeName === 'img' && attr(n, 'alt') === undefined && !/^(presentation|none)$/.test(attr(n, 'role') ?? '') && !named(n)) out.push({ check: 'image-alt', element: '<img>', line: line(n) });
    if (n.nodeName === 'button' && !textOf(n).trim() && !named(n) && !filledByScript(n, scripts, BUTTON_FILL)) out.push({ check: 'button-name', element: '<button>', line: line(n) });
    const role = NATIVE.has(n.nodeName) ? undefined : ROLE_CHECKS[(attr(n, 'role') ?? '').trim().toLowerCase()];
    if (role) {
      const fromContent = role.content && !!textOf(n).trim();
      if (!fromContent && !named(n) && !filledByScript(n, scripts, role.content ? BUTTON_FILL : FIELD_FILL)) out.push({ check: role.check, element: `<${n.nodeName} role="${attr(n, 'role')!.trim()}">`, line: line(n) });
      continue;
    }
    if (['input', 'select', 'textarea'].includes(n.nodeName)) {
      if (n.nodeName === 'input' && UNLABELLED_INPUT_TYPES.has((attr(n, 'type') ?? 'text').toLowerCase())) continue;
      if (component && (attr(n, 'type') ?? '').includes('{')) continue; // a type given by an expression may be hidden
      const id = attr(n, 'id');
      // In a component, an id or a `for` written as an expression may name the same field: not known, taken as labelled.
      const idUnknown = component && !!id && (id.includes('{') || [...labelled].some((f) => f.includes('{')));
      if (!named(n) && !placeheld(n) && !inLabel && !(id && (labelled.has(id) || idUnknown)) && !filledByScript(n, scripts, FIELD_FILL)) out.push({ check: 'label', element: `<${n.nodeName}>`, line: line(n) });
    }
  }
  return out;
}

/**
 * Svelte and Vue single-file components (a View built by Vite from `.svelte` / `.vue` files, read from the repository
 * before any build): their markup is HTML with expressions, read with the same element checks (image-alt, button-name,
 * label; a component is no document, so not lang and title). What the markup cannot tell is taken as named, as for JSX:
 * an expression in a name (`aria-label={label}`, `:aria-label="label"`, `{label}` as a button's text), a spread of props
 * (`{...rest}`, `v-bind="attrs"`), an action or directive that may set attributes (`use:tooltip`, `v-tooltip`,
 * `v-html`), a child component or slot inside a button (its output is not known), a field whose `id` or whose label's
 * `for` is an expression, an input whose `type` is one, and a field of a component that another component places
 * inside a `<label>`.
 */
const COMPONENT_TAG = 'mcpd-part';
/** Components, slots, `svelte:*` elements and custom elements: their output is not known before rendering. */
const COMPONENT_OPEN = /<(\/?)([A-Z][\w.]*|[a-z][\w]*:[\w-]+|slot|[a-z][\w]*-[\w-]*)(?=[\s/>])/g;
/** Vue directives that do not set a name; any other `v-*` (and every Svelte action `use:*`) may. */
const PLAIN_VUE_DIRECTIVES = /^v-(?:if|else|else-if|for|show|model|on|once|memo|cloak|pre|slot|key)(?:[:.]|$)/;

/** Blank a block of text (same length, lines kept). */
const blank = (t: string): string => t.replace(/[^\n]/g, ' ');

/**
 * A component's markup as HTML parse5 reads without losing its structure: `<script>` and `<style>` blocks blanked,
 * every `<`, `>` and quote inside an expression's braces blanked (`onclick={() => n > 1}` would end the tag early),
 * Svelte's attribute shorthands written out (`{title}` → `title="{title}"`, `{...rest}` → a spread), and every
 * component, slot or custom element renamed to one tag whose output is unknown (its name kept).
 */
export function componentMarkup(text: string): string {
  let t = text.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, blank);
  let out = '';
  let depth = 0;
  let quote = '';
  let inTag = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (depth > 0) {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      out += c === '<' || c === '>' || c === '"' || c === "'" || c === '`' ? '_' : c;
      continue;
    }
    if (c === '{') {
      depth = 1;
      out += c;
      continue;
    }
    if (inTag) {
      if (quote) {
        if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '>') inTag = false;
    } else if (c === '<' && /[A-Za-z/]/.test(t[i + 1] ?? '')) inTag = true;
    out += c;
  }
  t = out
    .replace(/(\s)\{\.\.\.[^}]*\}/g, (m, sp: string) => `${sp}data-mcpd-spread${m.replace(/[^\n]/g, '')}`)
    // Every shorthand of a tag (`<img class="thumb" {src} {alt} />`), not only the first: each tag is rewritten whole.
    .replace(/<[a-zA-Z][^<>]*>?/g, (tag) => tag.replace(/(\s)\{([\w$]+)\}(?=[\s/>]|$)/g, (_m, sp: string, name: string) => `${sp}${name}="{${name}}"`));
  return t.replace(COMPONENT_OPEN, (_m, close: string, name: string) => (close ? `</${COMPONENT_TAG}` : `<${COMPONENT_TAG} data-mcpd-name="${name}"`));
}

/** Vue bindings and Svelte directives written as the plain attributes the checks read (see componentMarkup). */
function normaliseComponentAttrs(n: HtmlNode): void {
  if (n.attrs) {
    const attrs: { name: string; value: string }[] = [];
    let unknownName = false;
    for (const a of n.attrs) {
      const bound = /^(?::|v-bind:)([\w-]+)/.exec(a.name);
      if (bound) attrs.push({ name: bound[1]!, value: `{${a.value}}` });
      else if (a.name === 'v-bind' || a.name === 'data-mcpd-spread' || a.name.startsWith('use:') || (a.name.startsWith('v-') && !PLAIN_VUE_DIRECTIVES.test(a.name))) unknownName = true;
      else attrs.push(a);
    }
    if (unknownName && !attrs.some((a) => a.name === 'aria-label')) attrs.push({ name: 'aria-label', value: '{…}' });
    n.attrs = attrs;
  }
  for (const c of n.childNodes ?? []) normaliseComponentAttrs(c);
  if (n.content) normaliseComponentAttrs(n.content);
}

/** The component names placed inside a `<label>` in a component's markup (their fields are named there). */
function componentsInLabels(markup: string): string[] {
  const out: string[] = [];
  const walk = (n: HtmlNode, inLabel: boolean): void => {
    if (inLabel && n.nodeName === COMPONENT_TAG) out.push(attr(n, 'data-mcpd-name') ?? '');
    for (const c of n.childNodes ?? []) walk(c, inLabel || n.nodeName === 'label');
    if (n.content) walk(n.content, inLabel);
  };
  walk(parseFragment(markup) as unknown as HtmlNode, false);
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

export default defineDetector({
  ruleId: 'A-4',
  genre: 'static',
  needs: ['repo'],
  messages: { 'markup-misses-name': ['file', 'check', 'element'] },
  judge({ inputs: { repo } }) {
    const view = viewCode(repo);
    if (view.unread.length) return couldNotJudge('file-not-read', fileNotReadData(view.unread[0]!));
    const source = view.code.filter((c) => !c.bundle);
    const embedded = view.bundles.length ? [] : embeddedViews(repo);
    const partial = view.bundles.length ? [] : partialViews(repo);
    const components: { file: string; text: string; markup: string }[] = [];
    for (const file of componentFiles(repo)) {
      const r = repo.source(file, MAX_BUNDLE_BYTES);
      if (!r.ok) return couldNotJudge('file-not-read', fileNotReadData({ file, cause: r.cause, size: r.size, limit: r.limit }));
      components.push({ file, text: r.text, markup: componentMarkup(r.text) });
    }
    if (!view.bundles.length && !source.length && !embedded.length && !partial.length && !components.length) return couldNotJudge('no-view-code');
    const findings: Finding[] = [];
    // The View's code (its source files and the bundles' inline scripts): which hidden panels it can show.
    const scripts = view.code.map((c) => c.sf.getFullText()).join('\n');
    for (const file of view.bundles) {
      const r = repo.source(file, MAX_BUNDLE_BYTES);
      if (!r.ok) return couldNotJudge('file-not-read', fileNotReadData({ file, cause: r.cause, size: r.size, limit: r.limit }));
      for (const m of markupMisses(r.text, scripts)) findings.push({ messageId: 'markup-misses-name', data: { file, check: m.check, element: m.element }, location: { file, line: m.line } });
    }
    // Several Views from one template (one per script file it reads) share its markup: each miss is told once.
    const told = new Set<string>();
    for (const e of [...embedded, ...partial]) {
      for (const m of markupMisses(e.html, scripts + '\n' + e.html, e.partial)) {
        const at = sourceOf(e, m.line);
        const key = `${at.file}|${at.line}|${m.check}|${m.element}`;
        if (told.has(key)) continue;
        told.add(key);
        findings.push({ messageId: 'markup-misses-name', data: { file: at.file, check: m.check, element: m.element }, location: at });
      }
    }
    for (const c of source) {
      for (const m of jsxMisses(c.sf.compilerNode)) findings.push({ messageId: 'markup-misses-name', data: { file: c.file, check: m.check, element: m.element }, location: { file: c.file, line: lineIn(c, wrapNode(c.sf, m.node) as Node) } });
    }
    // A field of a component that another component places inside a `<label>` is named there.
    const inLabels = new Set(components.flatMap((c) => componentsInLabels(c.markup)).map((n) => n.split('.').pop()!.toLowerCase()));
    for (const c of components) {
      const labelledHere = inLabels.has(c.file.replace(/^.*\//, '').replace(COMPONENT_FILE, '').toLowerCase());
      for (const m of markupMisses(c.markup, scripts + '\n' + c.text, false, true)) {
        if (m.check === 'label' && labelledHere) continue;
        findings.push({ messageId: 'markup-misses-name', data: { file: c.file, check: m.check, element: m.element }, location: { file: c.file, line: m.line } });
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    // A View only partly read (pieces the reading could not know): what was not read may miss a name, even beside
    // Views read whole — no green over unread markup.
    if (partial.length) return couldNotJudge('view-partly-built', { file: partial[0]!.file, line: partial[0]!.line });
    // No document of the View read whole: its lang, its title and the markup around the JSX are not known.
    if (!view.bundles.length && !embedded.length) return couldNotJudge('no-built-view');
    return present();
  },
});
