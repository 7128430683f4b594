import type { Detector } from '../engine/detector.js';
import c1 from './C-1-bilingual/index.js';

/**
 * The explicit registry, sorted by rule id. One entry per detector folder; a test compares it with the
 * folders on disk and with the catalog. Rules without a folder here have no detector yet and are reported
 * as could-not-judge ("no detector yet"), never silently missing.
 */
export const folders: readonly { folder: string; detectors: readonly Detector[] }[] = [
  { folder: 'C-1-bilingual', detectors: c1 },
];

export const registry: readonly Detector[] = folders.flatMap((f) => f.detectors);
