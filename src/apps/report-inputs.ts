import type { AppsRecord } from './record.js';
import { percentile, viewCalls } from '../detectors/apps-support.js';

/**
 * The report's view of the MCP Apps host run (`inputs.apps`): why nothing was rendered, or per View its
 * outcome, its screenshot (with --artifacts) and the four A-5 figures, so that a green verdict still shows
 * what was measured.
 */
export interface AppsInputs {
  skipped?: string;
  browser?: string;
  views: {
    tool: string;
    outcome: string;
    screenshot?: string;
    figures: { bundleGzipBytes?: number; firstRenderMs?: number; roundTripP95Ms?: number; roundTrips: number; heapBytes?: number };
  }[];
}

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
