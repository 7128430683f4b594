import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { SessionFacts } from '../../facts/session.js';
import { isObj, noEraServed, type Obj } from '../support/live/dynamic-support.js';
import { answeredEras } from '../support/live/dynamic-text.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * text fallback next to the UI (dynamic). An App serves a `ui://` resource, or a tool whose
 * `_meta.ui.resourceUri` points at one. Such a tool must carry a description, and every recorded result
 * of it (or any result that links a UI itself) must hold a text content block of at least MIN_TEXT
 * characters that stands for the result: when the result carries data for the View (`structuredContent`), a text
 * holding none of its values (a fixed "Displayed the chart.") is red, quoted as the wire carried it. The probe
 * declares no UI extension: a call that fails there is red when the same tool answered the App host (which
 * declared it, `--exercise app` with the browser); a call that failed for the host too, or that the host did not
 * make, failed on the probe's generated arguments as far as anyone can tell and is not judged (could-not-judge
 * `ui-call-failed-on-probe-input`). The probe's own call with deliberately invalid arguments is expected to fail
 * and is not judged. A UI tool never called with
 * arguments it accepts leaves the part unjudged: such calls need an explicit opt-in.
 * Without structuredContent the View draws from the tool's input: the probe calls each App tool a second time with
 * other arguments (`call-app-tool-varied`), and a text that is the same sentence under both inputs, holds none of
 * their values and no figure of its own stands for nothing the View shows (`ui-result-text-fixed`, quoted). A call
 * with those other arguments that fails is no evidence either way. With structuredContent, the same text for two
 * inputs whose data differ is a label, not the result (`ui-result-text-fixed` too). A value of the data counts in a
 * text where a word starts, a number as a figure of its own (holds).
 */

/** A figure standing alone in a text ("5 open incidents", not the 3 of "3D"): the text may carry a result of its own. */
const FIGURE = /(?<![\p{L}\p{N}_])\d+(?:[.,]\d+)?(?![\p{L}\p{N}_])/u;

interface Answer {
  args: string;
  values: string[];
  /** The input values handed over whole (code, a document): see inputOf. */
  payloads: string[];
  text: string;
  /** The result's structuredContent as JSON, undefined when it gives the View no data. */
  structured?: string;
}

/**
 * A fixed sentence whatever the input: two calls with different arguments, the same text. Without data for the View,
 * the View draws from the input; with data (structuredContent), the data must differ between the two answers (the
 * varied argument changed the result) while the text stayed the same: "Rendered the scene in the viewer." next to
 * a scene that changed is a label, not the result — even when a word of it ("scene") is also a value of the data.
 */
function fixedText(answers: Answer[]): string | undefined {
  if (new Set(answers.map((a) => a.args)).size < 2) return undefined;
  const structured = answers.filter((a) => a.structured !== undefined);
  if (structured.length && (structured.length !== answers.length || new Set(structured.map((a) => a.structured)).size < 2)) return undefined;
  const texts = new Set(answers.map((a) => a.text));
  const text = answers[0]!.text;
  if (texts.size !== 1 || [...text].length < MIN_TEXT || FIGURE.test(text)) return undefined;
  const lower = text.toLowerCase();
  return answers.some((a) => a.values.some((v) => holds(lower, v))) ? undefined : text;
}

/**
 * Does a (lower-cased) text hold a value of the data? A number as a figure of its own (the 3 of "3 pins", not of
 * "3D" or "2031"), a string where a word starts (the "red" of "Rendered" is no colour).
 */
export function holds(text: string, value: string): boolean {
  const esc = escapeRegExp(value);
  const numeric = /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(value);
  return new RegExp(numeric ? `(?<![\\p{L}\\p{N}_.])${esc}(?![\\p{L}\\p{N}_]|[.,]\\d)` : `(?<![\\p{L}\\p{N}_])${esc}`, 'u').test(text);
}

export const MIN_TEXT = 20;

/** A figure of a text: thousands written with separators (7,532 or 7 532), decimals with a point or a comma. */
const FIGURES = /(?<![\p{L}\p{N}_.,])(\d{1,3}(?:[,\u00a0\u202f ]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)(?![\p{L}\p{N}_]|[.,]\d)/gu;

/** The figures a text writes, with the number of decimals each is written with. */
export function figuresOf(text: string): { value: number; decimals: number }[] {
  const out: { value: number; decimals: number }[] = [];
  for (const m of text.matchAll(FIGURES)) {
    const raw = m[1]!;
    const grouped = /^\d{1,3}(?:[,\u00a0\u202f ]\d{3})+/.test(raw);
    const plain = grouped ? raw.replace(/[,\u00a0\u202f ]/g, '') : raw.replace(',', '.');
    const value = Number(plain);
    if (Number.isFinite(value)) out.push({ value, decimals: plain.includes('.') ? plain.split('.')[1]!.length : 0 });
  }
  return out;
}

/**
 * The figures a summary may derive from a result's data: the number of items of each list and of keys of each object,
 * and for each list of numbers (a list, the same key across a list of objects, the same index across a list of
 * lists or across the lists one key holds in each object) its least, greatest, sum and mean; every such figure also as a percentage (0.47 written 47%), and the year
 * of a date written ISO-style. Bounded.
 */
export function derivedFigures(v: unknown): number[] {
  const out = new Set<number>();
  const add = (x: number) => {
    if (!Number.isFinite(x) || out.size >= 4000) return;
    out.add(x);
    out.add(x * 100);
  };
  const series = (xs: number[]) => {
    if (!xs.length) return;
    const sum = xs.reduce((a, b) => a + b, 0);
    add(Math.min(...xs));
    add(Math.max(...xs));
    add(sum);
    add(sum / xs.length);
  };
  const walk = (x: unknown, depth: number) => {
    if (depth > 6 || out.size >= 4000) return;
    if (typeof x === 'number') add(x);
    else if (typeof x === 'string') {
      const year = /^(\d{4})-\d{2}(?:-\d{2})?(?:[T ].*)?$/.exec(x.trim());
      if (year) out.add(Number(year[1]));
    } else if (Array.isArray(x)) {
      const items = x.slice(0, 500);
      out.add(x.length);
      series(items.filter((i): i is number => typeof i === 'number' && Number.isFinite(i)));
      const objs = items.filter(isObj);
      const columns = (rows: unknown[][]) => {
        const width = Math.min(100, Math.max(0, ...rows.map((r) => r.length)));
        for (let i = 0; i < width; i++) series(rows.map((r) => r[i]).filter((c): c is number => typeof c === 'number' && Number.isFinite(c)));
      };
      for (const k of new Set(objs.flatMap((o) => Object.keys(o)))) {
        series(objs.map((o) => o[k]).filter((i): i is number => typeof i === 'number' && Number.isFinite(i)));
        // The same key holding a list in each object (a heatmap's rows): the series of each index across them.
        columns(objs.map((o) => o[k]).filter(Array.isArray) as unknown[][]);
      }
      columns(items.filter(Array.isArray) as unknown[][]);
      for (const i of items) walk(i, depth + 1);
    } else if (isObj(x)) {
      out.add(Object.keys(x).length);
      for (const i of Object.values(x)) walk(i, depth + 1);
    }
  };
  walk(v, 0);
  return [...out];
}

/**
 * Does a text summarise the data by figures derived from it (a count, a range, a total, a mean, a share written as a
 * percentage), rounded as the text writes them? 0 and 1 say too little, and a figure of the tool's input is an echo,
 * not a result.
 */
export function summarisesData(text: string, data: unknown, input: unknown): boolean {
  const derived = derivedFigures(data);
  const given = new Set(datums(input).map(Number).filter((n) => Number.isFinite(n)));
  return figuresOf(text).some(({ value, decimals }) => {
    if (value === 0 || value === 1 || given.has(value)) return false;
    const unit = 10 ** -decimals;
    return derived.some((d) => Math.abs(Number(d.toFixed(Math.min(decimals, 20))) - value) < unit / 1000);
  });
}

/** A property whose value is a program or a document handed to the View whole (its name says so). */
const PAYLOAD_KEY = /^(?:code|script|source|program|snippet|sketch|html|svg|markup|shader)$/i;

/**
 * The input a call ran on: its arguments over the defaults its schema declares (the server draws from a default the
 * probe left out). Its values (datums) and, among them, the payloads: input handed over whole rather than a choice
 * among a few (a property named code, script, html…, or a string of several lines or of 200 characters or more).
 */
function inputOf(tool: Obj | undefined, args: unknown): { values: string[]; payloads: string[] } {
  const props = tool && isObj(tool.inputSchema) && isObj(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  const effective: Obj = {};
  for (const [k, p] of Object.entries(props)) if (isObj(p) && p.default !== undefined) effective[k] = p.default;
  if (isObj(args)) Object.assign(effective, args);
  const payloads = Object.entries(effective)
    .filter(([k, v]) => typeof v === 'string' && v.trim().length >= 3 && (PAYLOAD_KEY.test(k) || v.includes('\n') || v.length >= 200))
    .map(([, v]) => (v as string).trim().toLowerCase());
  return { values: datums(effective), payloads };
}

/**
 * A text that hands the input back: under two different inputs the same sentence once each input value is taken out of
 * it, with no figure of its own, and at least one of those values a payload (code, a document) rather than a choice
 * ("Drew a red square" describes what the View draws; "Rendered this scene: <the code sent>" says nothing of it). The
 * payload with no words around it is left alone: a code or document viewer shows just that.
 */
function echoedText(answers: Answer[]): string | undefined {
  if (new Set(answers.map((a) => a.args)).size < 2) return undefined;
  const structured = answers.filter((a) => a.structured !== undefined);
  if (structured.length && (structured.length !== answers.length || new Set(structured.map((a) => a.structured)).size < 2)) return undefined;
  let payload = false;
  const skeletons = answers.map((a) => {
    let t = a.text.toLowerCase();
    for (const v of [...a.values].sort((x, y) => y.length - x.length)) {
      const before = t;
      t = t.split(v).join('\u0000');
      if (t !== before && a.payloads.includes(v)) payload = true;
    }
    return t;
  });
  const skeleton = skeletons[0]!;
  if (!payload || new Set(skeletons).size !== 1 || FIGURE.test(skeleton.replace(/\u0000/g, ' '))) return undefined;
  // The payload alone (fenced or not) is what a code or document viewer shows: the text is then the View's content.
  if ((skeleton.match(/\p{L}{3,}/gu) ?? []).length < 2) return undefined;
  if (answers.some((a) => a.structured !== undefined && datums(JSON.parse(a.structured)).some((d) => !a.values.includes(d) && holds(skeleton, d)))) return undefined;
  return answers[0]!.text;
}

/**
 * Answers of a tool that give the View no data, all under one input (the probe made no second call with other
 * arguments: `--exercise app` was not given, or that call failed), whose text holds no choice of the input and no
 * figure of its own: whether it is the same sentence whatever the input ("Rendered the scene.") or hands a payload
 * back cannot be told from one input. Such a text is no evidence of a fallback: the tool is left unjudged, not green.
 * A text holding a value of the input that is not a payload ("Drew a red square") or a figure the input does not
 * hold describes what the View draws.
 */
function undecidedText(answers: Answer[]): boolean {
  if (new Set(answers.map((a) => a.args)).size >= 2 || answers.some((a) => a.structured !== undefined)) return false;
  return answers.every((a) => {
    const lower = a.text.toLowerCase();
    if (a.values.some((v) => !a.payloads.includes(v) && holds(lower, v))) return false;
    let rest = lower;
    for (const v of [...a.values].sort((x, y) => y.length - x.length)) rest = rest.split(v).join(' ');
    return !FIGURE.test(rest);
  });
}

/** The ui:// resource a `_meta` links, in the current (`ui.resourceUri`) or the early (`ui/resourceUri`) form. */
export function uiResourceOf(meta: unknown): string | undefined {
  if (!isObj(meta)) return undefined;
  const nested = isObj(meta.ui) ? meta.ui.resourceUri : undefined;
  const uri = typeof nested === 'string' ? nested : meta['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/** The values of a result's data (strings of at least three characters, lower-cased, and finite numbers), bounded. */
export function datums(v: unknown, out: string[] = [], depth = 0): string[] {
  if (out.length >= 200 || depth > 6) return out;
  if (typeof v === 'string' && v.trim().length >= 3) out.push(v.trim().toLowerCase());
  else if (typeof v === 'number' && Number.isFinite(v)) out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) datums(x, out, depth + 1);
  else if (isObj(v)) for (const x of Object.values(v)) datums(x, out, depth + 1);
  return out;
}

export default defineDetector({
  ruleId: 'A-1',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'ui-tool-without-description': ['tool'],
    'ui-result-without-text': ['tool', 'length', 'minimum'],
    'ui-call-failed': ['tool'],
    'ui-result-text-not-of-result': ['tool'],
    'ui-result-text-fixed': ['tool', 'text'],
    'ui-result-text-echoes-input': ['tool', 'text'],
  },
  judge({ inputs: { session } }) {
    const none = noEraServed(session);
    if (none) return none;
    const eras = answeredEras(session);
    const uiTools = new Map<string, Obj>();
    const uiResources = new Set<string>();
    for (const era of eras) {
      for (const t of session.listed(era, 'tools/list')) if (typeof t.name === 'string' && uiResourceOf(t._meta) && !uiTools.has(t.name)) uiTools.set(t.name, t);
      for (const r of session.listed(era, 'resources/list')) if (typeof r.uri === 'string' && r.uri.startsWith('ui://')) uiResources.add(r.uri);
    }
    if (uiTools.size === 0 && uiResources.size === 0) return notApplicable('no-ui-served');

    const findings: Finding[] = [];
    for (const [tool, t] of uiTools) {
      if (typeof t.description !== 'string' || t.description.trim() === '') findings.push({ messageId: 'ui-tool-without-description', data: { tool } });
    }

    // The probe's deliberately invalid calls, as it recorded them ("<name> <arguments JSON>").
    const invalid = new Set(session.session.actions.filter((a) => a.kind === 'call-invalid-arguments').map((a) => a.detail));
    // The probe's second call of an App tool, with other arguments it generated (see fixedText).
    const varied = new Set(session.session.actions.filter((a) => a.kind === 'call-app-tool-varied').map((a) => a.detail));
    const answers = new Map<string, Answer[]>();
    const judged = new Set<string>();
    const reported = new Set<string>();
    // How each UI-linked tool answered the App host, whose connection declared the UI extension.
    const hostAnswered = new Map<string, boolean>();
    for (const e of session.calls('app', 'tools/call')) {
      const params = isObj(e.request.params) ? e.request.params : {};
      const name = typeof params.name === 'string' ? params.name : '';
      const res = SessionFacts.result(e);
      if (!res && !SessionFacts.error(e)) continue;
      hostAnswered.set(name, (hostAnswered.get(name) ?? false) || (!!res && res.isError !== true));
    }
    const failedOnInput = new Set<string>();
    for (const era of eras) {
      for (const e of session.calls(era, 'tools/call')) {
        const params = isObj(e.request.params) ? e.request.params : {};
        const name = typeof params.name === 'string' ? params.name : '';
        const res = SessionFacts.result(e);
        if (!uiTools.has(name) && !uiResourceOf(res?._meta)) continue;
        const err = SessionFacts.error(e);
        if (!res && !err) continue;
        if (err || res?.isError === true) {
          if (invalid.has(`${name} ${JSON.stringify(params.arguments)}`) || varied.has(`${name} ${JSON.stringify(params.arguments)}`)) continue;
          if (hostAnswered.get(name) !== true) {
            failedOnInput.add(name);
            continue;
          }
          judged.add(name);
          if (!reported.has(`failed|${name}`)) findings.push({ messageId: 'ui-call-failed', data: { tool: name } });
          reported.add(`failed|${name}`);
          continue;
        }
        judged.add(name);
        const content = Array.isArray(res!.content) ? res!.content.filter(isObj) : [];
        const texts = content.filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => (c.text as string).trim());
        const length = Math.max(0, ...texts.map((x) => [...x].length));
        const structured = res!.structuredContent !== undefined && res!.structuredContent !== null ? JSON.stringify(res!.structuredContent) : undefined;
        answers.set(name, [...(answers.get(name) ?? []), { args: JSON.stringify(params.arguments ?? {}), ...inputOf(uiTools.get(name), params.arguments), text: texts.filter((x) => x).join('\n'), structured }]);
        if (length < MIN_TEXT && !reported.has(`text|${name}`)) {
          reported.add(`text|${name}`);
          findings.push({ messageId: 'ui-result-without-text', data: { tool: name, length, minimum: MIN_TEXT }, evidence: JSON.stringify(res!.content ?? null).slice(0, 200) });
        } else if (length >= MIN_TEXT && !reported.has(`data|${name}`)) {
          // The data the View is given (structuredContent): a text holding none of its values stands for none of it.
          const data = datums(res!.structuredContent);
          if (data.length && !texts.some((x) => data.some((d) => holds(x.toLowerCase(), d)) || summarisesData(x, res!.structuredContent, params.arguments))) {
            reported.add(`data|${name}`);
            findings.push({ messageId: 'ui-result-text-not-of-result', data: { tool: name }, evidence: texts.find((x) => x)!.slice(0, 200) });
          }
        }
      }
    }
    const undecided: string[] = [];
    for (const [tool, list] of answers) {
      if (reported.has(`text|${tool}`) || reported.has(`data|${tool}`)) continue;
      // A tool with no argument has no other input to call it with: its text is judged as it is.
      const t = uiTools.get(tool);
      const takesInput = !!t && isObj(t.inputSchema) && isObj(t.inputSchema.properties) && Object.keys(t.inputSchema.properties).length > 0;
      if (takesInput && undecidedText(list)) undecided.push(tool);
      const text = fixedText(list);
      if (text !== undefined) findings.push({ messageId: 'ui-result-text-fixed', data: { tool, text: text.slice(0, 120) }, evidence: text.slice(0, 200) });
      const echo = text === undefined ? echoedText(list) : undefined;
      if (echo !== undefined) findings.push({ messageId: 'ui-result-text-echoes-input', data: { tool, text: echo.slice(0, 120) }, evidence: echo.slice(0, 200) });
    }
    if (findings.length) return { state: 'non-conforming', findings };
    const failed = [...failedOnInput].filter((n) => !judged.has(n));
    if (failed.length) return couldNotJudge('ui-call-failed-on-probe-input', { tools: failed.join(', ') });
    if (undecided.length) return couldNotJudge('ui-result-text-one-input', { tools: undecided.join(', ') });
    const notCalled = [...uiTools.keys()].filter((n) => !judged.has(n));
    if (notCalled.length) return couldNotJudge('ui-tool-not-called', { tools: notCalled.join(', ') });
    if (uiTools.size === 0) return couldNotJudge('ui-resource-without-tool', { uris: [...uiResources].join(', ') });
    return present();
  },
});
