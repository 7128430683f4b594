import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { evidenceOf, isObj, type Obj } from '../support/live/dynamic-support.js';
import { earnedOn, servedTools, toolName, unreadToolPages } from '../support/live/dynamic-text.js';

/**
 * C-4 — typed input and output schemas (dynamic). Reads the JSON Schemas the running server serves for
 * every tool: an inputSchema and an outputSchema, each of type "object", and no catch-all anywhere in
 * them. A catch-all is a schema that accepts anything: `true`, `{}` or a node with only annotations, a
 * node with no `type` (and no enum/const/$ref/composition that would type it), an object with no
 * properties whose additional properties are absent or untyped, an array with no `items`.
 * Extra properties left open beside declared ones are not flagged (the SDK's own input schemas).
 * An input schema whose root is an object without properties, its additional properties absent or false
 * (`{ "type": "object" }`, `{ "type": "object", "properties": {} }`), is the specification's way of saying
 * "no arguments" (what the SDKs serve for a tool without input shape): not a catch-all. An explicitly open
 * root (`additionalProperties: true` or `{}`) still is.
 */

/** Keywords that describe a schema without constraining what it accepts. */
const ANNOTATIONS = new Set(['$schema', '$id', '$anchor', '$comment', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$defs', 'definitions']);
/** Keywords that give a node a shape even without `type`. */
const TYPING = ['type', 'enum', 'const', '$ref', '$dynamicRef', 'anyOf', 'oneOf', 'allOf', 'not'];
const MAX_FINDINGS_PER_TOOL = 20;

const typesOf = (n: Obj): string[] => (typeof n.type === 'string' ? [n.type] : Array.isArray(n.type) ? n.type.filter((t): t is string => typeof t === 'string') : []);

/** Does this schema accept any value? */
export const acceptsAnything = (s: unknown): boolean => s === true || (isObj(s) && Object.keys(s).every((k) => ANNOTATIONS.has(k)));

/** An input schema's root that says "no arguments": type object, no properties, additional properties absent or false. */
export const noArgumentsRoot = (s: unknown): boolean =>
  isObj(s) &&
  typesOf(s).length === 1 &&
  typesOf(s)[0] === 'object' &&
  !(isObj(s.properties) && Object.keys(s.properties).length > 0) &&
  !(isObj(s.patternProperties) && Object.keys(s.patternProperties).length > 0) &&
  (s.additionalProperties === undefined || s.additionalProperties === false);

/** Paths (dotted, from the schema's name) of the catch-all nodes in a schema. `root` is checked only for its children when `skipSelf`. */
export function catchAlls(schema: unknown, base: string, skipSelf = false): { path: string; node: unknown }[] {
  const out: { path: string; node: unknown }[] = [];
  const visit = (node: unknown, path: string, self: boolean, depth: number): void => {
    if (depth > 24 || out.length >= MAX_FINDINGS_PER_TOOL) return;
    if (node === true) {
      if (self) out.push({ path, node });
      return;
    }
    if (!isObj(node)) return;
    if (self) {
      const typed = TYPING.some((k) => k in node);
      const types = typesOf(node);
      const props = (isObj(node.properties) && Object.keys(node.properties).length > 0) || (isObj(node.patternProperties) && Object.keys(node.patternProperties).length > 0);
      if (!typed) out.push({ path, node });
      else if (types.includes('object') && !props && (node.additionalProperties === undefined || acceptsAnything(node.additionalProperties))) out.push({ path, node });
      else if (types.includes('array') && !('items' in node) && !('prefixItems' in node)) out.push({ path, node });
    }
    const sub = (v: unknown, p: string) => visit(v, p, true, depth + 1);
    for (const key of ['properties', 'patternProperties', '$defs', 'definitions'] as const) {
      const m = node[key];
      if (isObj(m)) for (const [k, v] of Object.entries(m)) sub(v, `${path}.${key}.${k}`);
    }
    const ap = node.additionalProperties;
    // Open extra properties beside declared ones are allowed; an untyped map is caught on the object itself.
    if (isObj(ap) && !acceptsAnything(ap)) sub(ap, `${path}.additionalProperties`);
    if (Array.isArray(node.items)) node.items.forEach((v, i) => sub(v, `${path}.items.${i}`));
    else if ('items' in node) sub(node.items, `${path}.items`);
    if (Array.isArray(node.prefixItems)) node.prefixItems.forEach((v, i) => sub(v, `${path}.prefixItems.${i}`));
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((v, i) => sub(v, `${path}.${key}.${i}`));
    }
  };
  visit(schema, base, !skipSelf, 0);
  return out;
}

export default defineDetector({
  ruleId: 'C-4',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'missing-input-schema': ['tool'],
    'missing-output-schema': ['tool'],
    'schema-not-object': ['tool', 'schema', 'type'],
    'catch-all-schema': ['tool', 'path'],
  },
  judge({ inputs: { session } }) {
    const served = servedTools(session);
    if (!served.ok) return served.verdict;
    const gap = unreadToolPages(served);
    if (served.tools.length === 0) return gap ?? notApplicable('no-tools-served');
    const findings: Finding[] = [];
    for (const t of served.tools) {
      const tool = toolName(t);
      for (const schema of ['inputSchema', 'outputSchema'] as const) {
        const s = t[schema];
        if (s === undefined || s === null) {
          findings.push({ messageId: schema === 'inputSchema' ? 'missing-input-schema' : 'missing-output-schema', data: { tool } });
          continue;
        }
        const isObject = isObj(s) && typesOf(s).length === 1 && typesOf(s)[0] === 'object';
        if (!isObject) {
          const type = isObj(s) ? (s.type === undefined ? 'none' : evidenceOf(s.type, 60)) : evidenceOf(s, 60);
          findings.push({ messageId: 'schema-not-object', data: { tool, schema, type }, evidence: evidenceOf(s) });
        }
        // The root of an input schema that declares no arguments is no catch-all (see the header).
        const skipRoot = !isObject || (schema === 'inputSchema' && noArgumentsRoot(s));
        for (const c of catchAlls(s, schema, skipRoot)) findings.push({ messageId: 'catch-all-schema', data: { tool, path: c.path }, evidence: evidenceOf(c.node) });
      }
    }
    return earnedOn(findings.length ? { state: 'non-conforming', findings } : present(), gap);
  },
});
