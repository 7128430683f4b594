import { basename } from 'node:path';
import npa from 'npm-package-arg';
import ipaddr from 'ipaddr.js';
import type { Finding } from '../engine/types.js';
import { isSecretName, looksLikeSecretValue, matchShape, PLACEHOLDER, redact, withoutScheme } from '../detectors/X-6-secret-exposure/patterns.js';
import type { ConfiguredServer } from '../facts/client-configs.js';

/**
 * Judging the configuration itself, with nothing started: pure functions over the discovered servers.
 * Every finding names the server and sits at the line of the file that declares the offending field. The
 * findings belong to the rules they are the user side of:
 *
 *   X-6  a secret written in `env`, `args`, `headers` or the URL (shown masked); a remote server reached over
 *        plain http on a host that is not this machine;
 *   X-3  a launch that does not pin what it runs (`npx -y pkg`, a range, `latest`, a git branch, `uvx pkg`):
 *        the package can change under the user after approval (rug pull; supply chain, C-17);
 *   X-4  a launch through a shell string (`sh -c "…"`, `cmd /c …`, a whole command line in `command`);
 *   X-2  two servers under the same name in different places (one hides the other), the same server declared
 *        twice with different settings.
 */

/** What a finding of the configuration says, per rule: message id → placeholders (their texts: i18n `findings.<rule>.<id>`). */
export const SCAN_MESSAGES: Record<string, Record<string, readonly string[]>> = {
  'X-6': {
    'config-secret': ['server', 'field', 'file'],
    'config-plain-http': ['server', 'host'],
  },
  'X-3': {
    'config-unpinned': ['server', 'package', 'how'],
    'set-drift': ['server', 'kind', 'key', 'change'],
  },
  'X-4': {
    'config-shell-launch': ['server', 'shell'],
  },
  'X-2': {
    'config-name-collision': ['server', 'other', 'clients'],
    'config-conflicting-duplicate': ['server', 'other', 'field'],
    'set-reference': ['server', 'tool', 'otherServer', 'otherTool', 'field'],
    'set-lookalike': ['server', 'tool', 'otherServer', 'otherTool'],
  },
  'X-8': {
    'set-trifecta': ['private', 'untrusted', 'outbound', 'servers'],
  },
};

/** A scan finding: the server it is about travels with it (for the per-server listing). */
export type ScanFinding = Finding & { ruleId: string };

/** The line of a field (`env.KEY`, else the line of `env`), else of the server's name. */
const at = (s: ConfiguredServer, field?: string): { file: string; line: number } => ({ file: s.file, line: (field && (s.lines[field] ?? s.lines[field.split('.')[0]!])) || s.line });

// ---------------------------------------------------------------- secrets

/** Flags whose next argument is a secret (`--api-key sk-…`) or whose `=` value is (`--token=…`). */
const SECRET_FLAG = /^--?(?:[a-z0-9]+[-_])*(?:api[-_]?key|token|secret|password|passwd|access[-_]?key|auth(?:orization)?|credentials?|private[-_]?key)$/i;

/** Whether a value looks like a real secret: a known shape, or a long high-entropy value where a secret is expected. */
function secretValue(v: string, expected: boolean): boolean {
  if (PLACEHOLDER.test(v)) return false;
  if (matchShape(v)) return true;
  return expected && looksLikeSecretValue(v);
}

function secretFinding(s: ConfiguredServer, field: string, value: string, lineField: string): ScanFinding {
  const shown = withoutScheme(value);
  return { ruleId: 'X-6', messageId: 'config-secret', data: { server: s.name, field, file: s.file }, location: at(s, lineField), evidence: `${field}=${redact(matchShape(shown)?.match ?? shown)}` };
}

export function secretsIn(s: ConfiguredServer): ScanFinding[] {
  const out: ScanFinding[] = [];
  for (const [k, v] of Object.entries(s.env ?? {})) if (secretValue(v, isSecretName(k))) out.push(secretFinding(s, `env.${k}`, v, `env.${k}`));
  for (const [k, v] of Object.entries(s.headers ?? {})) if (secretValue(v, isSecretName(k) || /^(?:authorization|x-api-key|api-key|cookie)$/i.test(k))) out.push(secretFinding(s, `headers.${k}`, v, `headers.${k}`));
  const args = s.args ?? [];
  args.forEach((a, i) => {
    const eq = /^(--?[^=]+)=(.*)$/.exec(a);
    const prev = args[i - 1];
    const expected = (eq ? SECRET_FLAG.test(eq[1]!) : false) || (prev !== undefined && SECRET_FLAG.test(prev));
    const value = eq && SECRET_FLAG.test(eq[1]!) ? eq[2]! : a;
    if (secretValue(value, expected)) out.push(secretFinding(s, `args[${i}]`, value, `args.${i}`));
  });
  if (s.url) {
    try {
      const u = new URL(s.url);
      if (u.password) out.push(secretFinding(s, 'url (user:password)', u.password, 'url'));
      for (const [k, v] of u.searchParams) if (secretValue(v, isSecretName(k) || /^(?:key|apikey|api_key|access_token|auth)$/i.test(k))) out.push(secretFinding(s, `url ?${k}`, v, 'url'));
    } catch {
      /* an unparsable URL is reported by the plain-http check's caller as odd */
    }
  }
  return out;
}

/** A remote server over plain http whose host is not this machine. */
export function plainHttp(s: ConfiguredServer): ScanFinding[] {
  if (!s.url) return [];
  let u: URL;
  try {
    u = new URL(s.url);
  } catch {
    return [];
  }
  if (u.protocol !== 'http:') return [];
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return [];
  if (ipaddr.isValid(host)) {
    const a = ipaddr.process(host);
    if (a.range() === 'loopback') return [];
  }
  return [{ ruleId: 'X-6', messageId: 'config-plain-http', data: { server: s.name, host: u.host }, location: at(s, 'url') }];
}

// ---------------------------------------------------------------- unpinned launches

const NODE_RUNNERS: Record<string, string[]> = { npx: [], bunx: [], 'pnpx': [], pnpm: ['dlx'], yarn: ['dlx'], bun: ['x'], npm: ['exec'] };
const PY_RUNNERS: Record<string, string[]> = { uvx: [], uv: ['tool', 'run'], pipx: ['run'] };

/** Options of the runners that take a value (the package is the first word after them that is not an option). */
const VALUE_OPTIONS = new Set(['-p', '--package', '--from', '--with', '--python', '--registry', '--cache', '--userconfig', '--spec', '--index-url', '-c', '--call']);

const exe = (command: string): string => basename(command).replace(/\.(?:cmd|exe|bat|ps1)$/i, '').toLowerCase();

/** The package a launch runs and how it is pinned, or undefined when the command is not a package runner. */
export function launchedPackage(s: ConfiguredServer): { launcher: string; spec: string; pinned: boolean; how: string } | undefined {
  if (!s.command) return undefined;
  const name = exe(s.command);
  const args = s.args ?? [];
  const sub = NODE_RUNNERS[name] ?? PY_RUNNERS[name];
  if (!sub) return undefined;
  if (sub.some((w, i) => args[i] !== w)) return undefined;
  let i = sub.length;
  let fromOption: string | undefined;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if ((a === '-p' || a === '--package' || a === '--from') && args[i + 1]) fromOption = args[i + 1];
    if (a.startsWith('--package=') || a.startsWith('--from=')) fromOption = a.slice(a.indexOf('=') + 1);
    if (!a.startsWith('-')) break;
    if (VALUE_OPTIONS.has(a)) i++;
  }
  const spec = fromOption ?? args[i];
  if (!spec) return undefined;
  if (NODE_RUNNERS[name]) {
    try {
      const r = npa(spec);
      if (r.type === 'version') return { launcher: name, spec, pinned: true, how: 'version' };
      if (r.type === 'tag') return { launcher: name, spec, pinned: false, how: r.rawSpec === '' || r.rawSpec === '*' ? 'no_version' : 'tag' };
      if (r.type === 'range') return { launcher: name, spec, pinned: false, how: r.rawSpec === '*' || r.rawSpec === '' ? 'no_version' : 'range' };
      if (r.type === 'git') {
        const ref = (r as { gitCommittish?: string | null }).gitCommittish;
        return { launcher: name, spec, pinned: !!ref && /^[0-9a-f]{40}$/i.test(ref), how: 'git' };
      }
      // A local folder or file is what the user has: nothing is fetched.
      if (r.type === 'directory' || r.type === 'file') return { launcher: name, spec, pinned: true, how: 'local' };
      return { launcher: name, spec, pinned: false, how: r.type };
    } catch {
      return undefined;
    }
  }
  // Python runners: `pkg==1.2.3` pins; `pkg`, `pkg>=1`, `pkg@latest`, a git URL without a commit do not.
  if (/^[A-Za-z0-9_.\-[\],]+==[A-Za-z0-9_.+!-]+$/.test(spec)) return { launcher: name, spec, pinned: true, how: 'version' };
  if (/^git\+/.test(spec)) return { launcher: name, spec, pinned: /@[0-9a-f]{40}(?:#|$)/i.test(spec), how: 'git' };
  if (/@latest$/.test(spec)) return { launcher: name, spec, pinned: false, how: 'tag' };
  if (/[<>~=!]/.test(spec)) return { launcher: name, spec, pinned: false, how: 'range' };
  if (/^[./]/.test(spec)) return { launcher: name, spec, pinned: true, how: 'local' };
  return { launcher: name, spec, pinned: false, how: 'no_version' };
}

export function unpinned(s: ConfiguredServer): ScanFinding[] {
  const p = launchedPackage(s);
  if (!p || p.pinned) return [];
  return [{ ruleId: 'X-3', messageId: 'config-unpinned', data: { server: s.name, package: p.spec, how: p.how }, location: at(s, 'args'), evidence: [s.command, ...(s.args ?? [])].join(' ') }];
}

// ---------------------------------------------------------------- shell launches

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'cmd', 'powershell', 'pwsh']);

export function shellLaunch(s: ConfiguredServer): ScanFinding[] {
  if (!s.command) return [];
  const name = exe(s.command.trim().split(/\s+/)[0] ?? '');
  const args = s.args ?? [];
  const viaShell = SHELLS.has(name) && args.some((a) => /^(?:-c|-lc|-ic|\/c|\/k|-command|-Command)$/i.test(a));
  // A whole command line written in `command` (spaces and no args): clients that accept it hand it to a shell.
  const commandLine = !args.length && /\s/.test(s.command.trim()) && !/^["']?[A-Za-z]:\\/.test(s.command);
  if (!viaShell && !commandLine) return [];
  return [{ ruleId: 'X-4', messageId: 'config-shell-launch', data: { server: s.name, shell: viaShell ? name : 'command' }, location: at(s, 'command'), evidence: [s.command, ...args].join(' ') }];
}

// ---------------------------------------------------------------- the set's names

/** What identifies a launch: the same package (or command) or the same URL. */
export function launchKey(s: ConfiguredServer): string | undefined {
  if (s.url) return `url:${s.url.replace(/\/+$/, '')}`;
  const p = launchedPackage(s);
  if (p) {
    try {
      const n = npa(p.spec).name;
      if (n) return `pkg:${n}`;
    } catch {
      /* fall through */
    }
    return `pkg:${p.spec.split(/[=<>~!@[]/)[0]}`;
  }
  return s.command ? `cmd:${[s.command, ...(s.args ?? [])].join(' ')}` : undefined;
}

const settings = (s: ConfiguredServer) => JSON.stringify({ command: s.command, args: s.args, env: s.env, url: s.url, headers: s.headers, cwd: s.cwd });

/** Which setting differs between two declarations of one server (the first found). */
function differs(a: ConfiguredServer, b: ConfiguredServer): string | undefined {
  for (const f of ['command', 'args', 'env', 'url', 'headers', 'cwd'] as const) if (JSON.stringify(a[f] ?? null) !== JSON.stringify(b[f] ?? null)) return f;
  return undefined;
}

const place = (s: ConfiguredServer) => `${s.file}:${s.line}`;

export function setNames(servers: readonly ConfiguredServer[]): ScanFinding[] {
  const out: ScanFinding[] = [];
  // Same name, same client, different places: the client keeps one and hides the other.
  const byName = new Map<string, ConfiguredServer[]>();
  for (const s of servers) byName.set(`${s.client}\0${s.name}`, [...(byName.get(`${s.client}\0${s.name}`) ?? []), s]);
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    const [first, ...rest] = group;
    for (const s of rest) {
      if (settings(s) === settings(first!)) continue;
      out.push({ ruleId: 'X-2', messageId: 'config-name-collision', data: { server: s.name, other: place(first!), clients: s.client }, location: at(s) });
    }
  }
  // The same launch under different settings (another name, another client): which one runs depends on where.
  const byLaunch = new Map<string, ConfiguredServer[]>();
  for (const s of servers) {
    const k = launchKey(s);
    if (k) byLaunch.set(k, [...(byLaunch.get(k) ?? []), s]);
  }
  for (const group of byLaunch.values()) {
    if (group.length < 2) continue;
    const [first, ...rest] = group;
    for (const s of rest) {
      if (s.client === first!.client && s.name === first!.name) continue; // already a name collision
      const field = differs(first!, s);
      if (field) out.push({ ruleId: 'X-2', messageId: 'config-conflicting-duplicate', data: { server: s.name, other: `${first!.name} (${place(first!)})`, field }, location: at(s, field) });
    }
  }
  return out;
}

/** Every static finding on a set of configured servers, in a stable order. */
export function judgeConfig(servers: readonly ConfiguredServer[]): ScanFinding[] {
  const out: ScanFinding[] = [];
  for (const s of servers) out.push(...secretsIn(s), ...plainHttp(s), ...unpinned(s), ...shellLaunch(s));
  out.push(...setNames(servers));
  return out;
}
