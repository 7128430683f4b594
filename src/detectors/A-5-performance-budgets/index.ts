import { gzipSync } from 'node:zlib';
import { fileNotReadData } from '../../facts/not-read.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { percentile, renderedApps, viewCalls } from '../support/apps/apps-support.js';
import { builtViewFiles } from '../support/apps/view-files.js';
import { posix } from 'node:path';
import { embeddedViews, GAP, partialViews, scriptSources } from '../support/apps/embedded-view.js';

/**
 * performance budgets.
 *
 * Static: every built HTML bundle of the repository (support/apps/view-files: its build folders, else the HTML files
 * named after a `ui://` URI of the server's code) weighs less than BUNDLE_GZIP_BUDGET gzipped (level 9); without a
 * built bundle, so does the View the server's code serves whole (support/apps/embedded-view.ts). A View assembled
 * around pieces the reading cannot know (embedded-view.partialViews) is red when what is written of it is already over
 * budget, else unjudged: its script loaded by URL is not weighed (`view-script-not-weighed`), or its unknown pieces
 * are not (`view-partly-built`).
 *
 * Dynamic, per rendered View (host harness): the served bundle gzipped, the first render (first contentful
 * paint, else first paint, else the View's first size-changed notification: apps/harness.ts), the p95 of the
 * bridge round trip of the tool calls the View made and the host forwarded to the server (from the raw bridge
 * messages, request sent to answer delivered), and the used JS heap after settling and a garbage collection,
 * each against its budget. A figure over budget is red; a figure the harness could not take (no paint and no
 * size signal; calls the user did not allow with --exercise app) leaves the part unjudged. A View that called
 * no tool at all, every control clicked, has no round trip to measure.
 */

export const BUNDLE_GZIP_BUDGET = 250 * 1024;
export const RENDER_BUDGET_MS = 1000;
export const ROUND_TRIP_P95_BUDGET_MS = 500;
export const HEAP_BUDGET_BYTES = 50 * 1024 * 1024;
export const MAX_BUNDLE_BYTES = 16 * 1024 * 1024;
/** Fewer forwarded calls than this give no p95 worth the name. */
export const MIN_ROUND_TRIPS = 3;

export default [
  defineDetector({
    ruleId: 'A-5',
    genre: 'static',
    needs: ['repo'],
    messages: { 'bundle-over-budget': ['file', 'size', 'budget'] },
    judge({ inputs: { repo } }) {
      const bundles = builtViewFiles(repo);
      // No built bundle: the View the server's code serves whole (an HTML literal, or a file it reads) is the bundle.
      const embedded = bundles.length ? [] : embeddedViews(repo);
      const partial = bundles.length ? [] : partialViews(repo);
      if (!bundles.length && !embedded.length && !partial.length) return couldNotJudge('no-built-view');
      const findings: Finding[] = [];
      // A View that loads a script its package does not hold (from a CDN or the SaaS origin, or a file not shipped)
      // weighs more than its document, by an amount the reading cannot know: under budget with what was read, it is
      // unjudged, not green. A script file of the package beside a built bundle is weighed with it.
      let notWeighed: { file: string; url: string } | undefined;
      const scriptsWeight = (file: string, html: string, beside: boolean): number => {
        let total = 0;
        for (const src of scriptSources(html)) {
          const local = beside && !/^(?:[a-z][\w+.-]*:|\/\/)/i.test(src) ? posix.normalize(posix.join(posix.dirname(file), src.replace(/^\.?\//, '').split(/[?#]/)[0]!)) : undefined;
          const r = local && repo.files.includes(local) ? repo.source(local, MAX_BUNDLE_BYTES) : undefined;
          if (r?.ok) total += gzipSync(r.text, { level: 9 }).length;
          else notWeighed ??= { file, url: src.slice(0, 200) };
        }
        return total;
      };
      for (const e of embedded) {
        const size = gzipSync(e.html, { level: 9 }).length + scriptsWeight(e.file, e.html, false);
        if (size >= BUNDLE_GZIP_BUDGET) findings.push({ messageId: 'bundle-over-budget', data: { file: e.file, size, budget: BUNDLE_GZIP_BUDGET }, location: { file: e.file, line: e.line } });
      }
      let partlyBuilt: { file: string; line: number } | undefined;
      for (const e of partial) {
        const size = gzipSync(e.html.split(GAP).join(''), { level: 9 }).length + scriptsWeight(e.file, e.html, false);
        if (size >= BUNDLE_GZIP_BUDGET) findings.push({ messageId: 'bundle-over-budget', data: { file: e.file, size, budget: BUNDLE_GZIP_BUDGET }, location: { file: e.file, line: e.line } });
        else partlyBuilt ??= { file: e.file, line: e.line };
      }
      for (const file of bundles) {
        const r = repo.source(file, MAX_BUNDLE_BYTES);
        if (!r.ok) return couldNotJudge('file-not-read', fileNotReadData({ file, cause: r.cause, size: r.size, limit: r.limit }));
        const size = gzipSync(r.text, { level: 9 }).length + scriptsWeight(file, r.text, true);
        if (size >= BUNDLE_GZIP_BUDGET) findings.push({ messageId: 'bundle-over-budget', data: { file, size, budget: BUNDLE_GZIP_BUDGET }, location: { file } });
      }
      if (!findings.length && notWeighed) return couldNotJudge('view-script-not-weighed', notWeighed);
      if (!findings.length && partlyBuilt) return couldNotJudge('view-partly-built', partlyBuilt);
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
  defineDetector({
    ruleId: 'A-5',
    genre: 'dynamic',
    needs: ['session'],
    messages: { 'figure-over-budget': ['tool', 'figure', 'value', 'budget', 'unit'] },
    judge({ inputs: { session } }) {
      const got = renderedApps(session);
      if ('state' in got) return got;
      const findings: Finding[] = [];
      const missing: string[] = [];
      for (const v of got.rendered) {
        const over = (figure: string, value: number | undefined, budget: number, unit: string) => {
          if (value === undefined) missing.push(`${v.tool}: ${figure}`);
          else if (value >= budget) findings.push({ messageId: 'figure-over-budget', data: { tool: v.tool, figure, value: Math.round(value), budget, unit } });
        };
        over('bundle-gzip', v.html?.gzipBytes, BUNDLE_GZIP_BUDGET, 'B');
        over('first-render', v.renderMs, RENDER_BUDGET_MS, 'ms');
        const calls = viewCalls(v);
        const trips = calls.filter((c) => !c.refused && c.answeredAt !== undefined).map((c) => c.answeredAt! - c.sentAt);
        // A View that sent no tools/call at all, with every control clicked and its bridge traffic whole, has no
        // round trip to measure: that budget does not bind it (a View that called, but too few times, is missing it).
        const callsNothing = calls.length === 0 && !v.clicksTruncated && !v.truncated;
        if (!callsNothing) over('round-trip-p95', trips.length >= MIN_ROUND_TRIPS ? percentile(trips, 95) : undefined, ROUND_TRIP_P95_BUDGET_MS, 'ms');
        over('js-heap', v.heapBytes, HEAP_BUDGET_BYTES, 'B');
      }
      if (findings.length) return { state: 'non-conforming', findings };
      if (missing.length) return couldNotJudge('apps-figure-missing', { figures: missing.join(', ') });
      return present();
    },
  }),
];
