import type { Detector } from '../engine/detector.js';
import c1 from './C-1-bilingual/index.js';
import c2 from './C-2-naming/index.js';
import c3 from './C-3-semver-changelog/index.js';
import c5 from './C-5-eval-suite/index.js';
import c7 from './C-7-obtain-pin-verify/index.js';
import c17 from './C-17-supply-chain/index.js';

/**
 * The explicit registry, sorted by rule id. One entry per detector folder; a test compares it with the
 * folders on disk and with the catalog. Rules without a folder here have no detector yet and are reported
 * as could-not-judge ("no detector yet"), never silently missing.
 */
export const folders: readonly { folder: string; detectors: readonly Detector[] }[] = [
  { folder: 'C-1-bilingual', detectors: c1 },
  { folder: 'C-2-naming', detectors: c2 },
  { folder: 'C-3-semver-changelog', detectors: c3 },
  { folder: 'C-5-eval-suite', detectors: c5 },
  { folder: 'C-7-obtain-pin-verify', detectors: c7 },
  { folder: 'C-17-supply-chain', detectors: c17 },
];

export const registry: readonly Detector[] = folders.flatMap((f) => f.detectors);
