/** The environment a probed program gets: a minimal allowlist plus what the user passes, nothing else. */
export const ENV_ALLOWLIST = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'SYSTEMROOT', 'USER', 'LOGNAME', 'SHELL'] as const;

export function scrubbedEnv(extra: Record<string, string> = {}, from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ENV_ALLOWLIST) if (from[k] !== undefined) out[k] = from[k]!;
  return { ...out, ...extra };
}

/** Parse `K=V` pairs given with --env. */
export function parseEnvPairs(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) throw new Error(`--env expects K=V, got "${p}"`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}
