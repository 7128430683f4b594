import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import * as z from 'zod/v4';
import { TARGET_KINDS } from './types.js';
import { ConfigError } from './errors.js';
import { jsonErrorWhere, readInside, type ReadCause } from '../facts/safe-read.js';

/**
 * Project configuration: `.mcp-doctor.json` at the audited root (or a path given with --config).
 * Organisation-specific parts of the standard are settings here, with neutral defaults that follow the
 * MCP specification. Suppressions need a reason. A baseline is a previous JSON report whose red findings
 * are accepted for now.
 */
export const CONFIG_FILE = '.mcp-doctor.json';

const Suppression = z
  .object({
    rule: z.string().regex(/^[CSAEX]-\d+$/, 'a rule id such as C-7'),
    reason: z.string().trim().min(10, 'a suppression needs a reason of at least 10 characters'),
    /** Optional: only findings whose file starts with this path. */
    path: z.string().optional(),
  })
  .strict();

export const ConfigSchema = z
  .object({
    $schema: z.string().optional(),
    /** Force the kind of target instead of detecting it. */
    targetKind: z.enum(TARGET_KINDS).optional(),
    policy: z
      .object({
        /** S-5: issuer URLs of the authorization servers the organisation accepts. Empty: any spec-conformant one. */
        authorizationServers: z.array(z.string().url()).default([]),
        /** C-14: the component catalogue a published object must be registered in. null: C-14 does not apply. */
        componentCatalog: z
          .object({
            name: z.string().min(1),
            requiredFields: z.array(z.string()).default([]),
            /** The catalogue as an MCP server: a command (run by `gate` only with --allow-catalog-command) or a URL. */
            command: z.array(z.string().min(1)).min(1).optional(),
            url: z.string().url().optional(),
            /** Its search tool (the standard's `search_components`). */
            searchTool: z.string().min(1).default('search_components'),
          })
          .nullable()
          .default(null),
        /** C-8: the closed set of authority tiers. */
        authorityTiers: z.array(z.string().min(1)).min(1).default(['public', 'authenticated', 'admin', 'internal']),
        /** E-1: allowed extension identifier prefixes (e.g. "com.example/"). Empty: any reverse-DNS identifier. */
        extensionIdentifierPrefixes: z.array(z.string().min(1)).default([]),
        /** S-12: a protocol list longer than this without nextCursor is not paginated where it should be. */
        maxUnpaginatedItems: z.number().int().positive().default(200),
        /** C-13 / C-19 / C-21: context budgets in tokens. */
        contextBudget: z
          .object({
            perToolTokens: z.number().int().positive().default(1500),
            totalTokens: z.number().int().positive().default(6000),
          })
          .prefault({}),
      })
      .strict()
      .prefault({}),
    /** Globs (relative to the audited root) of paths that are not part of the audited object, e.g. test fixtures. */
    ignorePaths: z.array(z.string().min(1)).default([]),
    suppressions: z.array(Suppression).default([]),
    /** Path (relative to the config file) of a baseline JSON report. */
    baseline: z.string().optional(),
    /**
     * The MCP tool probe_endpoint, when the client cannot ask the user to confirm: the commands it may run
     * (exact argv prefixes) and the names of the extra environment variables it may pass. Read only from the
     * folder the server was started in, never from an audited repository.
     */
    probe: z
      .object({
        allowCommands: z.array(z.array(z.string().min(1)).min(1)).default([]),
        allowEnv: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')).default([]),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;

/** Config files and baselines are small: a larger one is refused (never streamed, never quoted). */
export const MAX_CONFIG_BYTES = 1024 * 1024;
export const MAX_BASELINE_BYTES = 64 * 1024 * 1024;

// ConfigError and its text live in errors.ts (the faces catch it without loading this module).
export { ConfigError, configErrorText } from './errors.js';

export const defaultConfig = (): Config => ConfigSchema.parse({});

/** How a path is named in messages: relative to the audited root when inside it, else its base name. */
function shown(root: string, file: string): string {
  const rel = relative(resolve(root), resolve(file));
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : basename(file);
}

/**
 * Read a JSON file with the safe reader (regular file, inside `root`, at most `max` bytes). Undefined when it
 * does not exist and `optional`; a ConfigError naming the cause otherwise. Parse errors give a position only.
 */
export function readJsonFile(root: string, file: string, max: number, optional: boolean): unknown {
  const got = readInside(root, file, max);
  if (!got.ok) {
    if (got.cause === 'missing' && optional) return undefined;
    throw new ConfigError(shown(root, file), got.cause === 'too-large' ? [`${got.size} > ${got.limit}`] : [], got.cause);
  }
  try {
    return JSON.parse(got.text);
  } catch (e) {
    throw new ConfigError(shown(root, file), [jsonErrorWhere(e, got.text)], 'invalid-json');
  }
}

/**
 * Load the config of an audited root. A missing file gives the defaults; an invalid one throws ConfigError.
 * `.mcp-doctor.json` is read only when it is a regular file inside the root (a symlink that leaves the root,
 * a FIFO or a device is refused). An explicit path (`--config`, typed by the person running the CLI) may lie
 * anywhere, but is still read only if it is a regular file, within the size cap.
 */
export function loadConfig(root: string, explicitPath?: string): { config: Config; file?: string } {
  const file = explicitPath ? resolve(explicitPath) : resolve(root, CONFIG_FILE);
  const raw = readJsonFile(explicitPath ? dirname(file) : root, file, MAX_CONFIG_BYTES, !explicitPath);
  if (raw === undefined) {
    return { config: defaultConfig() };
  }
  const r = ConfigSchema.safeParse(raw);
  if (!r.success) {
    throw new ConfigError(
      shown(root, file),
      // Schema paths and messages only: an unknown key is counted, not quoted (it is the file's content).
      r.error.issues.map((i) =>
        i.code === 'unrecognized_keys' ? `${i.path.join('.') || '(root)'}: ${i.keys.length} unknown key(s)` : `${i.path.map((p) => (typeof p === 'number' ? p : String(p))).join('.') || '(root)'}: ${i.message}`,
      ),
    );
  }
  return { config: r.data, file };
}
