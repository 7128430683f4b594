import type { Node } from 'web-tree-sitter';
import { kids, lineOf } from '../python-source.js';
import { callParts, constString, qualName, unparen, type HandlerKind, type PythonModel } from '../python-model.js';
import { Scope, topAssignments } from './scope.js';
import { type Assign, evidenceLine } from './tables.js';

/**
 * Python taint flow (facts/python-flow.ts): secrets read from the environment that reach a tool's result (C-6).
 */

/* ---------------- environment and secrets returned to the client (X-6) ---------------- */

export interface PyEnvLeak {
  handlerKind: HandlerKind;
  handler: string;
  file: string;
  line: number;
  what: 'environment' | 'secret';
  variable?: string;
  evidence: string;
}

/** Names of environment variables that hold secrets. PWD (the working directory) is not one. */
export const SECRET_NAME = /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|APIKEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?|AUTH)(?:_|$)|_KEY$|^KEY$/i;
const ENV_READERS = new Set(['os.environ.get', 'os.getenv', 'os.environ.pop', 'os.environ.setdefault', 'os.environ.__getitem__']);
const PASS_CALLS = new Set(['dict', 'str', 'repr', 'list', 'tuple', 'set', 'sorted', 'format', 'json.dumps', 'orjson.dumps', 'yaml.dump', 'yaml.safe_dump', 'pprint.pformat']);
const PASS_METHODS = new Set(['copy', 'items', 'keys', 'values', 'format', 'join', 'replace', 'strip', 'upper', 'lower', 'encode', 'decode', 'dumps', 'model_dump', 'to_dict']);
const RESULT_CTORS = /(?:^|\.)(?:TextContent|CallToolResult|TextResourceContents|EmbeddedResource|ToolResult)$/;

type EnvTaint = { environment: boolean; secrets: ReadonlySet<string> };
const NO_ENV: EnvTaint = { environment: false, secrets: new Set() };
const envUnion = (...xs: EnvTaint[]): EnvTaint => ({ environment: xs.some((x) => x.environment), secrets: new Set(xs.flatMap((x) => [...x.secrets])) });
const envEmpty = (x: EnvTaint): boolean => !x.environment && x.secrets.size === 0;

/** Handlers that return the whole environment, or a secret variable from it. */
export function pythonEnvLeaks(model: PythonModel): PyEnvLeak[] {
  const out: PyEnvLeak[] = [];
  for (const h of model.handlers) {
    const s = new Scope(h.file, h.fn, [], [], 'http', undefined);
    const file = h.file;
    const env = new Map<string, EnvTaint>();
    /** One variable read by key: a literal name is a secret or not; a name chosen at run time can be any of them. */
    const byKey = (k: Node | null | undefined): EnvTaint => {
      const name = constString(k, file);
      if (name !== undefined) return SECRET_NAME.test(name) ? { environment: false, secrets: new Set([name]) } : NO_ENV;
      // for name in ("LOGNAME", "USER"): os.environ.get(name) -- a fixed list of names.
      const u = k ? unparen(k) : undefined;
      const vals = u?.type === 'identifier' ? s.assignedValues(u.text).map((a) => unparen(a.value)) : [];
      if (vals.length && vals.every((v) => ['tuple', 'list', 'set'].includes(v.type))) {
        const names = vals.flatMap((v) => kids(v).map((x) => constString(x, file)));
        if (names.every((x): x is string => x !== undefined)) {
          const secret = names.filter((x) => SECRET_NAME.test(x));
          return secret.length ? { environment: false, secrets: new Set(secret) } : NO_ENV;
        }
      }
      return k ? { environment: true, secrets: new Set() } : NO_ENV;
    };
    const ex = (n: Node | null | undefined): EnvTaint => {
      if (!n) return NO_ENV;
      const e = unparen(n);
      switch (e.type) {
        case 'identifier':
          if (qualName(e, file) === 'os.environ') return { environment: true, secrets: new Set() };
          return env.get(e.text) ?? NO_ENV;
        case 'attribute':
          if (qualName(e, file) === 'os.environ') return { environment: true, secrets: new Set() };
          return ex(e.childForFieldName('object'));
        case 'subscript': {
          const v = e.childForFieldName('value');
          if (qualName(v, file) === 'os.environ' || ex(v).environment) return byKey(e.childForFieldName('subscript'));
          return ex(v);
        }
        case 'call': {
          const p = callParts(e)!;
          const q = qualName(p.fn, file) ?? '';
          if (ENV_READERS.has(q)) return byKey(p.args[0] ?? p.kw.get('key'));
          const attr = p.fn.type === 'attribute' ? p.fn.childForFieldName('attribute')?.text : undefined;
          // environ.get(k) on an alias of os.environ (environ = os.environ).
          if (attr && ['get', 'pop', 'setdefault', '__getitem__'].includes(attr) && ex(p.fn.childForFieldName('object')).environment) return byKey(p.args[0]);
          const parts = [...p.args, ...p.splats, ...p.kw.values()].map(ex);
          if (PASS_CALLS.has(q) || RESULT_CTORS.test(q)) return envUnion(...parts);
          if (attr && PASS_METHODS.has(attr)) return envUnion(ex(p.fn.childForFieldName('object')), ...parts);
          return NO_ENV;
        }
        case 'comparison_operator':
        case 'not_operator':
        case 'lambda':
          return NO_ENV;
        case 'string':
          return envUnion(...kids(e).filter((k) => k.type === 'interpolation').map((k) => ex(k.childForFieldName('expression') ?? k.namedChild(0))));
        default:
          return envUnion(...kids(e).map(ex));
      }
    };
    // Module-level names (API_KEY = os.environ["API_KEY"]) count too.
    const moduleAssigns: Assign[] = topAssignments(file).map((a) => ({ targets: [a.left.text], value: a.right, at: a.at }));
    for (let round = 0; round < 8; round++) {
      let changed = false;
      for (const a of [...moduleAssigns, ...s.assigns]) {
        const v = ex(a.value);
        if (envEmpty(v)) continue;
        for (const t of a.targets) {
          const prev = env.get(t) ?? NO_ENV;
          const next = envUnion(prev, v);
          if (next.environment !== prev.environment || next.secrets.size !== prev.secrets.size) {
            env.set(t, next);
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
    for (const r of s.nodes) {
      if (r.type !== 'return_statement' && r.type !== 'yield') continue;
      const v = ex(r.namedChild(0));
      if (envEmpty(v)) continue;
      const base = { handlerKind: h.kind, handler: h.toolAt(r)?.name ?? h.name, file: file.rel, line: lineOf(r), evidence: evidenceLine(file, r) };
      if (v.environment) out.push({ ...base, what: 'environment' });
      else out.push({ ...base, what: 'secret', variable: [...v.secrets].sort()[0] });
    }
  }
  return out;
}
