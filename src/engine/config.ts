import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/v4';
import { TARGET_KINDS } from './types.js';

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
          .object({ name: z.string().min(1), requiredFields: z.array(z.string()).default([]) })
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

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly issues: string[],
  ) {
    super(`${file}: ${issues.join('; ')}`);
  }
}

export const defaultConfig = (): Config => ConfigSchema.parse({});

/** Load the config of an audited root. A missing file gives the defaults; an invalid one throws ConfigError. */
export function loadConfig(root: string, explicitPath?: string): { config: Config; file?: string } {
  const file = explicitPath ?? join(root, CONFIG_FILE);
  if (!existsSync(file)) {
    if (explicitPath) throw new ConfigError(file, ['file not found']);
    return { config: defaultConfig() };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(file, [`not valid JSON (${(e as Error).message})`]);
  }
  const r = ConfigSchema.safeParse(raw);
  if (!r.success) {
    throw new ConfigError(
      file,
      r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  }
  return { config: r.data, file };
}
