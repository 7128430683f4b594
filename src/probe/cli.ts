import { defaultLocale, t } from '../engine/i18n.js';

/** The dynamic probe is built in the next stage; until then the CLI says so and exits 3 (could not run). */
export async function probeCli(_argv: string[]): Promise<number> {
  process.stderr.write(t(defaultLocale(), 'cli.errors.probeUnavailable') + '\n');
  return 3;
}
