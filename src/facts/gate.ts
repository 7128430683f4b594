import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import semver from 'semver';
import type { Reason } from '../engine/types.js';
import { readManifest } from '../probe/package-of.js';
import type { Got } from './got.js';
import type { ProvenanceVerdict } from './provenance.js';
import { readBytesInside, readInside } from './safe-read.js';

/**
 * The gate input: what the detectors of the gate genre read about a release candidate, gathered once and
 * asynchronously here (processes, archives, the network), then judged by pure functions.
 *
 *  - artefact  the files that would be published: `npm pack --dry-run --json --ignore-scripts` of the folder
 *              (no lifecycle script of the target runs), or the entries of a tarball given with --tarball,
 *              read with `tar` (bounded: entry count and total size); each file with its git blob id.
 *  - git       the repository at HEAD (git through execa, no shell): the commit, the tags that point at it, the
 *              blob id of every tracked file under the folder.
 *  - ci        the CI context from the environment (GitHub Actions: GITHUB_ACTIONS, GITHUB_RUN_ID,
 *              GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_SERVER_URL; the token only as present/absent).
 *  - registry  the registry's metadata for the package (its packument): from --registry-metadata FILE, or
 *              fetched with npm-registry-fetch; offline or unreachable is a reason, never an empty success.
 *  - runs      every automated run cited in README/CHANGELOG (C-22), resolved through the GitHub API with the
 *              job's token.
 *  - catalog   the component catalogue's answer for this package (C-14), when the policy names one.
 */

export type { Got } from './got.js';

export interface PackedFile {
  /** Path inside the package, forward slashes, without the tarball's `package/` prefix. */
  path: string;
  size: number;
  /** The git blob id of the content (sha1 of "blob <size>\0<content>"), comparable with `git ls-tree`. */
  blob?: string;
  /** Why the content was not read (then there is no blob id). */
  unread?: string;
  /** The text of a packed JavaScript file that names a UI link key (A-6 reads what the artefact writes). */
  text?: string;
}

/** Packed code whose text is kept for the gate: JavaScript that names `resourceUri` or the old UI id. */
const KEPT_CODE = /\.[cm]?js$/i;
const UI_MARKERS = ['resourceUri', 'io.modelcontextprotocol/ui'];
const MAX_KEPT_TEXT = 8 * 1024 * 1024;
/** The text of a packed file when the gate keeps it (a JS file naming a UI key, bounded), else undefined. */
export function keptText(path: string, bytes: Buffer): string | undefined {
  if (!KEPT_CODE.test(path) || bytes.length > MAX_KEPT_TEXT) return undefined;
  const text = bytes.toString('utf8');
  return UI_MARKERS.some((m) => text.includes(m)) ? text : undefined;
}

export interface Artefact {
  from: 'npm-pack' | 'tarball';
  /** The tarball's name as given (tarball mode). */
  file?: string;
  name?: string;
  version?: string;
  /** sha1 of the tarball (the registry's `dist.shasum`), tarball mode only. */
  sha1?: string;
  files: PackedFile[];
}

export interface GitFacts {
  head: string;
  /** Tags pointing at HEAD, sorted. */
  tagsAtHead: string[];
  /** Tracked files under the folder at HEAD (paths relative to the folder) -> blob id. */
  tracked: Map<string, string>;
}

export interface CiFacts {
  provider?: 'github';
  runId?: string;
  repository?: string;
  apiUrl: string;
  serverUrl: string;
  /** Whether a token was given (GITHUB_TOKEN or GH_TOKEN); its value is kept out of the facts. */
  token: boolean;
}

export interface RegistryFacts {
  from: 'file' | 'network';
  /** The packument, or undefined when the registry does not know the package (never published). */
  packument?: Record<string, unknown>;
}

/** A run identifier cited in a document, and what the CI provider said of it. */
export interface RunCheck {
  repository: string;
  id: string;
  outcome: 'resolved' | 'not-found' | 'other-repository' | 'unfinished' | 'unreachable' | 'no-token' | 'not-github';
  /** The run's status or the error met, as data. */
  detail?: string;
}

export interface CatalogAnswer {
  /** The search tool was listed by the catalogue. */
  tool: string;
  /** The entries the search returned that name this package (bounded). */
  entries: Record<string, unknown>[];
}

export interface GateFacts {
  root: string;
  name?: string;
  version?: string;
  artefact: Got<Artefact>;
  git: Got<GitFacts>;
  ci: CiFacts;
  registry: Got<RegistryFacts>;
  /** Keyed by `${repository}#${id}`. */
  runs: Map<string, RunCheck>;
  /** Absent when the policy names no catalogue. */
  catalog?: Got<CatalogAnswer>;
  /** C-17: the verified provenance of this version, when the registry records an attestation for it. */
  provenance?: Got<ProvenanceVerdict>;
}

export const MAX_PACKED_FILES = 20_000;
export const MAX_PACKED_BYTES = 256 * 1024 * 1024;
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_METADATA_BYTES = 64 * 1024 * 1024;

export const gitBlobId = (bytes: Buffer): string =>
  createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');

const errorText = (e: unknown): string => {
  const x = e as { stderr?: unknown; shortMessage?: string; message?: string };
  const stderr = typeof x?.stderr === 'string' ? x.stderr.trim().split('\n').filter(Boolean).at(-1) : undefined;
  return String(stderr || x?.shortMessage || x?.message || e).slice(0, 300);
};

/** The files `npm pack` would publish, read from the folder (scripts never run). */
export async function packFolder(root: string): Promise<Got<Artefact>> {
  // execa, tar and the Sigstore verifier load with the gate that uses them, not with the detectors (C-14, C-22)
  // that import this module's pure helpers.
  const { execa } = await import('execa');
  let out: string;
  try {
    const r = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, timeout: 120_000, maxBuffer: 64 * 1024 * 1024, stdin: 'ignore' });
    out = r.stdout;
  } catch (e) {
    return { ok: false, reason: { code: 'pack-failed', data: { error: errorText(e) } } };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(out);
  } catch {
    return { ok: false, reason: { code: 'pack-failed', data: { error: 'npm pack --json printed no JSON' } } };
  }
  const first = Array.isArray(parsed) ? (parsed[0] as { name?: unknown; version?: unknown; files?: unknown }) : undefined;
  if (!first || !Array.isArray(first.files)) return { ok: false, reason: { code: 'pack-failed', data: { error: 'npm pack --json listed no files' } } };
  const files: PackedFile[] = [];
  for (const f of (first.files as { path?: unknown; size?: unknown }[]).slice(0, MAX_PACKED_FILES)) {
    if (typeof f?.path !== 'string') continue;
    const path = f.path.replace(/\\/g, '/');
    const r = readBytesInside(root, path, MAX_FILE_BYTES);
    if (r.ok) {
      const text = keptText(path, r.bytes);
      files.push({ path, size: r.bytes.length, blob: gitBlobId(r.bytes), ...(text !== undefined ? { text } : {}) });
    }
    else files.push({ path, size: typeof f.size === 'number' ? f.size : 0, unread: r.cause });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    ok: true,
    value: { from: 'npm-pack', files, ...(typeof first.name === 'string' ? { name: first.name } : {}), ...(typeof first.version === 'string' ? { version: first.version } : {}) },
  };
}

/** The files of a tarball (an npm package: entries under one top folder, `package/`), bounded. */
export async function readTarball(file: string): Promise<Got<Artefact>> {
  let sha1: string;
  try {
    const st = lstatSync(file);
    if (!st.isFile()) return { ok: false, reason: { code: 'tarball-unreadable', data: { file, error: 'not a regular file' } } };
    if (st.size > MAX_PACKED_BYTES) return { ok: false, reason: { code: 'tarball-too-large', data: { file, limit: MAX_PACKED_BYTES } } };
    sha1 = createHash('sha1').update(readFileSync(file)).digest('hex');
  } catch (e) {
    return { ok: false, reason: { code: 'tarball-unreadable', data: { file, error: errorText(e) } } };
  }
  const files: PackedFile[] = [];
  const meta: { name?: string; version?: string } = {};
  let total = 0;
  let tooLarge = false;
  const { list: tarList } = await import('tar');
  try {
    await tarList({
      file,
      onReadEntry: (entry) => {
        if (entry.type !== 'File' && entry.type !== 'OldFile') {
          entry.resume();
          return;
        }
        const path = entry.path.replace(/\\/g, '/').replace(/^[^/]+\//, '');
        const chunks: Buffer[] = [];
        let size = 0;
        let dropped = false;
        entry.on('data', (c: Buffer) => {
          size += c.length;
          total += c.length;
          if (total > MAX_PACKED_BYTES) tooLarge = true;
          if (size > MAX_FILE_BYTES || tooLarge || files.length >= MAX_PACKED_FILES) dropped = true;
          else chunks.push(c);
        });
        entry.on('end', () => {
          if (files.length >= MAX_PACKED_FILES) return;
          const bytes = Buffer.concat(chunks);
          const text = dropped ? undefined : keptText(path, bytes);
          files.push(dropped ? { path, size, unread: 'too-large' } : { path, size, blob: gitBlobId(bytes), ...(text !== undefined ? { text } : {}) });
          if (path === 'package.json' && !dropped) {
            try {
              const pj = JSON.parse(bytes.toString('utf8')) as { name?: unknown; version?: unknown };
              if (typeof pj.name === 'string') meta.name = pj.name;
              if (typeof pj.version === 'string') meta.version = pj.version;
            } catch {
              /* a package.json that does not parse names nothing */
            }
          }
        });
      },
    });
  } catch (e) {
    return { ok: false, reason: { code: 'tarball-unreadable', data: { file, error: errorText(e) } } };
  }
  if (tooLarge) return { ok: false, reason: { code: 'tarball-too-large', data: { file, limit: MAX_PACKED_BYTES } } };
  if (files.length === 0) return { ok: false, reason: { code: 'tarball-unreadable', data: { file, error: 'no file entries' } } };
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ok: true, value: { from: 'tarball', file, sha1, files, ...meta } };
}

/** The repository at HEAD: commit, tags at it, tracked files under the folder. */
export async function gitFacts(root: string): Promise<Got<GitFacts>> {
  const { execa } = await import('execa');
  const git = (args: string[]) => execa('git', args, { cwd: root, timeout: 60_000, maxBuffer: 256 * 1024 * 1024, stdin: 'ignore', env: { GIT_TERMINAL_PROMPT: '0' } });
  let head: string;
  try {
    head = (await git(['rev-parse', '--verify', 'HEAD'])).stdout.trim();
  } catch (e) {
    const text = errorText(e);
    return { ok: false, reason: { code: /not a git repository/i.test(text) ? 'not-a-git-repository' : 'git-failed', data: { error: text } } };
  }
  try {
    const tags = (await git(['tag', '--points-at', 'HEAD'])).stdout.split('\n').map((s) => s.trim()).filter(Boolean).sort();
    const tracked = new Map<string, string>();
    const ls = (await git(['ls-tree', '-r', '-z', 'HEAD'])).stdout;
    for (const rec of ls.split('\0')) {
      const m = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(rec);
      if (m && m[2] === 'blob') tracked.set(m[4]!, m[3]!);
    }
    return { ok: true, value: { head, tagsAtHead: tags, tracked } };
  } catch (e) {
    return { ok: false, reason: { code: 'git-failed', data: { error: errorText(e) } } };
  }
}

/** The CI context, from environment variables only (values of tokens are never kept). */
export function ciFacts(env: NodeJS.ProcessEnv = process.env, ci?: 'github'): CiFacts {
  const github = ci === 'github' || env.GITHUB_ACTIONS === 'true';
  return {
    ...(github ? { provider: 'github' as const } : {}),
    ...(github && env.GITHUB_RUN_ID ? { runId: env.GITHUB_RUN_ID } : {}),
    ...(github && env.GITHUB_REPOSITORY ? { repository: env.GITHUB_REPOSITORY } : {}),
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    serverUrl: (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, ''),
    token: !!(env.GITHUB_TOKEN || env.GH_TOKEN),
  };
}

/** The registry's metadata: from a saved file, or fetched (npm-registry-fetch); offline is a reason. */
export async function registryFacts(
  name: string | undefined,
  opts: { metadataFile?: string; offline?: boolean; registry?: string },
): Promise<Got<RegistryFacts>> {
  if (opts.metadataFile) {
    const file = resolve(opts.metadataFile);
    const r = readInside('/', file, MAX_METADATA_BYTES);
    if (!r.ok) return { ok: false, reason: { code: 'registry-metadata-unreadable', data: { file: opts.metadataFile, error: r.cause } } };
    try {
      const v = JSON.parse(r.text) as unknown;
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
      return { ok: true, value: { from: 'file', packument: v as Record<string, unknown> } };
    } catch (e) {
      return { ok: false, reason: { code: 'registry-metadata-unreadable', data: { file: opts.metadataFile, error: errorText(e) } } };
    }
  }
  if (!name) return { ok: false, reason: { code: 'no-package-name', data: { file: 'package.json' } } };
  if (opts.offline) return { ok: false, reason: { code: 'registry-offline' } };
  try {
    const { default: fetchRegistry } = await import('npm-registry-fetch');
    const packument = (await fetchRegistry.json(`/${name.replace('/', '%2f')}`, {
      timeout: 20_000,
      retry: { retries: 1 },
      ...(opts.registry ? { registry: opts.registry } : {}),
    })) as Record<string, unknown>;
    return { ok: true, value: { from: 'network', packument } };
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return { ok: true, value: { from: 'network' } };
    return { ok: false, reason: { code: 'registry-unreachable', data: { error: errorText(e) } } };
  }
}

/* ---------- C-22: ratios cited in the documents, and the runs they name ---------- */

/** The documents where ratios are cited. */
export const RATIO_DOCUMENTS = ['README.md', 'README.fr.md', 'CHANGELOG.md'];

/** A test or coverage ratio: "142/142 tests", "coverage 86 %", "86% coverage", a coverage badge, in English or French. */
const RATIO_PATTERNS: RegExp[] = [
  /\b\d+\s*\/\s*\d+\s+(?:tests?|specs?|checks?|cas)\b/i,
  /\b\d{1,3}(?:[.,]\d+)?\s*%\s*(?:of\s+)?(?:(?:code|test|line|branch|statement)\s+)?(?:coverage|covered)\b/i,
  /\b(?:coverage|couverture)(?:\s+(?:de|of|is|at|:))*\s*:?\s*\d{1,3}(?:[.,]\d+)?\s*%/i,
  /\bcoverage-\d{1,3}(?:\.\d+)?%25/i,
  /\b\d+\s+tests?\s+(?:passing|passed|pass|green|réussis|passent)\b/i,
  /\b(?:all|tous les)\s+\d+\s+tests?\b/i,
];

/** A run identifier: a GitHub Actions run URL (its repository and id), or "run 123456" / "run id: 123456" (this repository). */
const RUN_URL = /https?:\/\/[^\s/]+\/([\w.-]+\/[\w.-]+)\/actions\/runs\/(\d+)/gi;
const RUN_ID = /\brun(?:[ _-]?id)?\s*[:#=]?\s*#?(\d{6,})\b/gi;

export interface CitedRatio {
  file: string;
  line: number;
  text: string;
  /** The run identifiers of its paragraph. */
  runs: { repository?: string; id: string }[];
}

/** Every ratio cited in the documents, each with the run identifiers of its paragraph (fenced code left out). */
export function citedRatios(file: string, text: string): CitedRatio[] {
  const lines = text.split('\n');
  const out: CitedRatio[] = [];
  let fence = false;
  let start = 0;
  const flush = (end: number) => {
    const para = lines.slice(start, end);
    const joined = para.join('\n');
    const runs: CitedRatio['runs'] = [];
    for (const m of joined.matchAll(RUN_URL)) runs.push({ repository: m[1]!, id: m[2]! });
    for (const m of joined.replace(RUN_URL, ' ').matchAll(RUN_ID)) runs.push({ id: m[1]! });
    para.forEach((l, i) => {
      const hit = RATIO_PATTERNS.map((re) => re.exec(l)).find((m) => m);
      if (hit) out.push({ file, line: start + i + 1, text: hit[0].slice(0, 120), runs });
    });
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^\s*(```|~~~)/.test(l)) {
      if (!fence) flush(i);
      fence = !fence;
      start = i + 1;
      continue;
    }
    if (fence) continue;
    if (l.trim() === '') {
      flush(i);
      start = i + 1;
    }
  }
  if (!fence) flush(lines.length);
  return out;
}

/** The key of a run in GateFacts.runs. */
export const runKey = (repository: string, id: string): string => `${repository}#${id}`;

/** Resolve the runs cited in the documents through the GitHub API (the current run resolves even unfinished). */
export async function resolveRuns(ratios: CitedRatio[], ci: CiFacts, env: NodeJS.ProcessEnv, offline: boolean): Promise<Map<string, RunCheck>> {
  const out = new Map<string, RunCheck>();
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  for (const r of ratios) {
    for (const run of r.runs) {
      const repository = run.repository ?? ci.repository;
      if (!repository) continue;
      const key = runKey(repository, run.id);
      if (out.has(key)) continue;
      if (ci.repository && repository.toLowerCase() !== ci.repository.toLowerCase()) {
        out.set(key, { repository, id: run.id, outcome: 'other-repository', detail: ci.repository });
        continue;
      }
      if (ci.provider !== 'github') {
        out.set(key, { repository, id: run.id, outcome: 'not-github' });
        continue;
      }
      if (!token) {
        out.set(key, { repository, id: run.id, outcome: 'no-token' });
        continue;
      }
      if (offline) {
        out.set(key, { repository, id: run.id, outcome: 'unreachable', detail: 'offline' });
        continue;
      }
      try {
        const res = await fetch(`${ci.apiUrl}/repos/${repository}/actions/runs/${run.id}`, {
          headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${token}`, 'x-github-api-version': '2022-11-28', 'user-agent': 'mcp-doctor' },
          signal: AbortSignal.timeout(20_000),
        });
        if (res.status === 404) {
          out.set(key, { repository, id: run.id, outcome: 'not-found' });
          continue;
        }
        if (!res.ok) {
          out.set(key, { repository, id: run.id, outcome: 'unreachable', detail: `HTTP ${res.status}` });
          continue;
        }
        const body = (await res.json()) as { status?: unknown; repository?: { full_name?: unknown } };
        const full = typeof body.repository?.full_name === 'string' ? body.repository.full_name : repository;
        if (full.toLowerCase() !== repository.toLowerCase()) out.set(key, { repository, id: run.id, outcome: 'other-repository', detail: full });
        else if (body.status !== 'completed' && run.id !== ci.runId) out.set(key, { repository, id: run.id, outcome: 'unfinished', detail: String(body.status) });
        else out.set(key, { repository, id: run.id, outcome: 'resolved', detail: String(body.status) });
      } catch (e) {
        out.set(key, { repository, id: run.id, outcome: 'unreachable', detail: errorText(e) });
      }
    }
  }
  return out;
}

/** The ratios cited in the folder's documents (read with the safe reader). */
export function ratiosOf(root: string): CitedRatio[] {
  const out: CitedRatio[] = [];
  for (const f of RATIO_DOCUMENTS) {
    const r = readInside(root, f, 4 * 1024 * 1024);
    if (r.ok) out.push(...citedRatios(f, r.text));
  }
  return out;
}

export interface GateOptions {
  root: string;
  tarball?: string;
  registryMetadata?: string;
  ci?: 'github';
  /** No network at all (registry and CI provider). */
  offline?: boolean;
  /** The registry is not asked (its metadata only from registryMetadata). */
  offlineRegistry?: boolean;
  registry?: string;
  env?: NodeJS.ProcessEnv;
  catalog?: () => Promise<Got<CatalogAnswer> | undefined>;
  /** A saved attestation document of the registry (its `dist.attestations.url`), instead of fetching it. */
  attestations?: string;
  /** The time the trust material's expiry is compared with (tests). */
  now?: Date;
}

/** Gather the gate input once. */
export async function gatherGate(o: GateOptions): Promise<GateFacts> {
  const root = resolve(o.root);
  const env = o.env ?? process.env;
  const m = readManifest(root);
  const [artefact, git] = await Promise.all([o.tarball ? readTarball(resolve(o.tarball)) : packFolder(root), gitFacts(root)]);
  const name = m?.name ?? (artefact.ok ? artefact.value.name : undefined);
  const version = m?.version ?? (artefact.ok ? artefact.value.version : undefined);
  const ci = ciFacts(env, o.ci);
  const registry = await registryFacts(name, { metadataFile: o.registryMetadata, offline: o.offline || o.offlineRegistry, registry: o.registry });
  const runs = await resolveRuns(ratiosOf(root), ci, env, !!o.offline);
  const catalog = o.catalog ? await o.catalog() : undefined;
  const provenance = registry.ok
    ? await (await import('./provenance.js')).provenanceFacts(registry.value.packument, name, version, { file: o.attestations, offline: o.offline || (o.offlineRegistry && !o.attestations), now: o.now })
    : undefined;
  return { root, ...(name ? { name } : {}), ...(version ? { version } : {}), artefact, git, ci, registry, runs, ...(catalog ? { catalog } : {}), ...(provenance ? { provenance } : {}) };
}

/** A stable version: valid semver without a pre-release tag. */
export const isStable = (v: string | undefined): boolean => !!v && semver.valid(v) !== null && semver.prerelease(v) === null;
