import type { Report } from '../engine/runner.js';
import type { ClientId, ConfiguredServer, Discovery, ProbedServer } from '../facts/client-configs.js';
import type { SetLock } from '../facts/lock.js';
import type { SetProbeOptions } from './probe-set.js';

/**
 * The scan flow (`mcp-doctor scan`, the `audit_client_config` tool): read the MCP client configuration files of
 * a project (and of the user), optionally probe every configured server (only once the caller agrees: the CLI's
 * --probe, the MCP server's confirmation) and read the set lock, then judge the set (scan/report).
 */
export interface ScanRequest {
  /** The project folder (absolute). */
  project: string;
  home?: string;
  clients?: readonly ClientId[];
  /** Only the files inside the project (the MCP tool's default). */
  projectOnly?: boolean;
  rules?: string[];
  /** Probe the configured servers; `confirm` is asked first with the servers that would start (false: not probed, no report). */
  probe?: Omit<SetProbeOptions, 'project' | 'signal'> & { lockFile: string; confirm?: (servers: readonly ConfiguredServer[]) => Promise<boolean> };
  signal?: AbortSignal;
  /** An unreadable set lock: 'fail' throws SetLockInvalid, 'ignore' judges without it. */
  invalidLock?: 'fail' | 'ignore';
}

/** The set lock named is not one (scan --probe with a damaged lock). */
export class SetLockInvalid extends Error {
  constructor(readonly file: string) {
    super(`not a set lock: ${file}`);
  }
}

/** The scan report, or undefined when the caller declined the probe. */
export async function scanAndJudge(req: ScanRequest): Promise<Report | undefined> {
  const { discover } = await import('../facts/client-configs.js');
  const discovery: Discovery = discover({ project: req.project, home: req.home, clients: req.clients, projectOnly: req.projectOnly });
  let probed: ProbedServer[] | undefined;
  let lock: SetLock | undefined;
  if (req.probe && (req.probe.confirm === undefined || discovery.servers.length)) {
    const { confirm, lockFile, ...opts } = req.probe;
    if (confirm && !(await confirm(discovery.servers))) return undefined;
    const { probeSet, readSetLock } = await import('./probe-set.js');
    probed = await probeSet(discovery.servers, { ...opts, project: req.project, ...(req.signal ? { signal: req.signal } : {}) });
    const read = readSetLock(lockFile);
    if (read === 'invalid' && req.invalidLock !== 'ignore') throw new SetLockInvalid(lockFile);
    lock = read === 'invalid' ? undefined : read;
  }
  if (req.signal?.aborted) {
    const { AuditCancelled } = await import('../engine/errors.js');
    throw new AuditCancelled();
  }
  const { scanReport } = await import('../scan/report.js');
  return scanReport(discovery, { probed, lock, rules: req.rules });
}
