import type { Report } from '../engine/runner.js';
import type { GateOptions } from '../facts/gate.js';
import { readManifest } from '../probe/package-of.js';

/**
 * The gate flow (`mcp-doctor gate`): read the folder's config, gather the delivery context of a release
 * candidate (facts/gate: the packed artefact, git, the CI context, the registry metadata, and the component
 * catalogue's answer when the policy names one — a catalogue started as a command only when allowed), then audit
 * the folder with it (static and gate parts; the dynamic parts that need a running server stay unjudged).
 */
export interface GateRequest extends Pick<GateOptions, 'tarball' | 'registryMetadata' | 'attestations' | 'ci' | 'offline'> {
  /** The release candidate's folder (absolute). */
  root: string;
  configPath?: string;
  rules?: string[];
  verbose?: boolean;
  /** Start a catalogue the policy names as a command (--allow-catalog-command). */
  allowCatalogCommand?: boolean;
  /** Let a catalogue URL be a private address (--allow-private). */
  allowPrivate?: boolean;
}

export async function gateAndJudge(req: GateRequest): Promise<Report> {
  const { loadConfig } = await import('../engine/config.js');
  const { config } = loadConfig(req.root, req.configPath);
  const { gatherGate } = await import('../facts/gate.js');
  const { queryCatalog } = await import('../facts/catalog-client.js');
  const policy = config.policy.componentCatalog;
  const gate = await gatherGate({
    root: req.root,
    tarball: req.tarball,
    registryMetadata: req.registryMetadata,
    attestations: req.attestations,
    ci: req.ci,
    offline: req.offline,
    catalog: policy
      ? async () => {
          const name = readManifest(req.root)?.name;
          if (!name) return { ok: false, reason: { code: 'no-package-name', data: { file: 'package.json' } } };
          if (!policy.url && policy.command && !req.allowCatalogCommand) return { ok: false, reason: { code: 'catalog-command-not-allowed', data: { catalog: policy.name } } };
          return queryCatalog({ command: policy.command, url: policy.url, searchTool: policy.searchTool, cwd: req.root, allowPrivate: req.allowPrivate }, name);
        }
      : undefined,
  });
  const { audit } = await import('./audit.js');
  return audit({ target: { path: req.root }, rules: req.rules, configPath: req.configPath, verbose: req.verbose, gate });
}
