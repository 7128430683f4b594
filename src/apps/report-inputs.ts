import type { AppsInputs, AppsRecord } from '../probe/apps-record.js';
import { percentile, viewCalls } from '../detectors/support/apps/apps-support.js';
import { BUNDLE_GZIP_BUDGET, HEAP_BUDGET_BYTES, MIN_ROUND_TRIPS, RENDER_BUDGET_MS, ROUND_TRIP_P95_BUDGET_MS } from '../detectors/A-5-performance-budgets/index.js';

export type { AppsInputs } from '../probe/apps-record.js';

export function appsInputs(rec: AppsRecord): AppsInputs {
  return {
    ...(rec.skipped ? { skipped: rec.skipped.code } : {}),
    ...(rec.browser?.version ? { browser: rec.browser.version } : {}),
    views: rec.views.map((v) => {
      const trips = viewCalls(v).filter((c) => !c.refused && c.answeredAt !== undefined).map((c) => c.answeredAt! - c.sentAt);
      const p95 = percentile(trips, 95);
      return {
        tool: v.tool,
        outcome: v.outcome,
        ...(v.screenshot ? { screenshot: v.screenshot } : {}),
        figures: {
          ...(v.html ? { bundleGzipBytes: v.html.gzipBytes } : {}),
          ...(v.renderMs !== undefined ? { firstRenderMs: v.renderMs } : {}),
          ...(p95 !== undefined ? { roundTripP95Ms: p95 } : {}),
          roundTrips: trips.length,
          ...(v.heapBytes !== undefined ? { heapBytes: v.heapBytes } : {}),
        },
      };
    }),
  };
}

/** One A-5 figure of one View against its budget (`value` absent: not measured). */
export interface AppFigure {
  tool: string;
  figure: 'bundle-gzip' | 'first-render' | 'round-trip-p95' | 'js-heap';
  value?: number;
  budget: number;
  unit: 'B' | 'ms';
  /** Calls the p95 is taken over (round-trip-p95 only). */
  calls?: number;
  withinBudget?: boolean;
}

/** The four A-5 figures of every rendered View against their budgets (the detector's own), in a stable order. */
export function appFigures(a: AppsInputs | undefined): AppFigure[] {
  if (!a) return [];
  const out: AppFigure[] = [];
  for (const v of a.views) {
    const f = v.figures;
    const one = (figure: AppFigure['figure'], value: number | undefined, budget: number, unit: AppFigure['unit'], extra: Partial<AppFigure> = {}) =>
      out.push({ tool: v.tool, figure, ...(value !== undefined ? { value: Math.round(value) } : {}), budget, unit, ...extra, ...(value !== undefined ? { withinBudget: value < budget } : {}) });
    one('bundle-gzip', f.bundleGzipBytes, BUNDLE_GZIP_BUDGET, 'B');
    one('first-render', f.firstRenderMs, RENDER_BUDGET_MS, 'ms');
    one('round-trip-p95', f.roundTrips >= MIN_ROUND_TRIPS ? f.roundTripP95Ms : undefined, ROUND_TRIP_P95_BUDGET_MS, 'ms', { calls: f.roundTrips });
    one('js-heap', f.heapBytes, HEAP_BUDGET_BYTES, 'B');
  }
  return out;
}
