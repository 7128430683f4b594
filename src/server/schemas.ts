import * as z from 'zod/v4';
import { STATES, SEVERITIES, GENRES, TARGET_KINDS, FAMILIES, CATEGORIES, PROFILES } from '../engine/types.js';

/** Output schemas of our tools: exact shapes of what the engine's JSON renderers produce. */

/**
 * A count or a line number. Written as a plain non-negative number: zod's int() adds the safe-integer bounds to
 * the JSON Schema, about twenty tokens each, and every token of a definition is paid at each connection (C-21).
 */
const Count = z.number().min(0);

// Shapes used more than once are advertised once, under $defs (an id in zod's registry), and referenced.
const Data = z.record(z.string(), z.union([z.string(), z.number()])).meta({ id: 'Data' });
const ReasonOut = z.object({ code: z.string(), data: Data.optional(), message: z.string().optional() }).meta({ id: 'Reason' });
const State = z.enum(STATES).meta({ id: 'State' });
const LocationOut = z.object({ file: z.string(), line: Count.optional(), column: Count.optional() });
const Category = z.enum(CATEGORIES).meta({ id: 'Category' });
const Severity = z.enum(SEVERITIES).meta({ id: 'Severity' });

/** One rule in a tool result: its verdict and its findings, one line each (`file:line message`). */
const RuleLine = z
  .object({
    ruleId: z.string(),
    title: z.string().optional(),
    category: Category,
    severity: Severity,
    state: State,
    reason: ReasonOut.optional(),
    findings: z.array(z.string()),
    more: Count.optional(),
    suppressed: z.boolean().optional(),
  })
  .meta({ id: 'Rule' });

/** The parts of a report that the compact and the full tool results share. */
const Head = {
  tool: z.object({ name: z.string(), version: z.string() }),
  target: z.object({
    kind: z.enum(TARGET_KINDS),
    path: z.string().optional(),
    command: z.array(z.string()).optional(),
    url: z.string().optional(),
  }),
  locale: z.string(),
  profile: z.enum(PROFILES).optional(),
  summary: z
    .object({ present: Count, absent: Count, nonConforming: Count, couldNotJudge: Count, notApplicable: Count, suppressed: Count })
    .meta({ id: 'Summary' }),
  failing: Count.describe('Red results at or above fail_on that are not suppressed.'),
};

export const ReportOut = z.object({
  tool: z.object({ name: z.string(), version: z.string() }),
  target: z.object({
    kind: z.enum(TARGET_KINDS),
    path: z.string().optional(),
    command: z.array(z.string()).optional(),
    url: z.string().optional(),
  }),
  profile: z.enum(PROFILES).optional(),
  // What the run read (runner.ts ReportInputs: package folder and version, command, files read and skipped).
  inputs: z.object({ package: z.object({ folder: z.string(), version: z.string().optional() }).loose().optional() }).loose().optional(),
  locale: z.string(),
  summary: z.object({
    present: Count,
    absent: Count,
    nonConforming: Count,
    couldNotJudge: Count,
    notApplicable: Count,
    suppressed: Count,
  }),
  results: z.array(
    z.object({
      ruleId: z.string(),
      title: z.string(),
      state: State,
      severity: z.enum(SEVERITIES),
      category: Category.optional(),
      reason: ReasonOut.optional(),
      suppressed: z.object({ reason: z.string(), source: z.enum(['config', 'baseline']) }).optional(),
      parts: z.array(z.object({ genre: z.enum(GENRES), state: State, reason: ReasonOut.optional() })),
      findings: z.array(
        z.object({
          messageId: z.string(),
          message: z.string(),
          remediation: z.string(),
          data: Data.optional(),
          location: LocationOut.optional(),
          evidence: z.string().optional(),
        }),
      ),
      omittedFindings: Count.optional(),
    }),
  ),
  failing: Count.describe('Red results at or above fail_on that are not suppressed.'),
  truncated: z
    .object({
      findingsPerRule: Count,
      omittedFindings: Count,
      detailsDropped: z.boolean(),
      fullReport: z.string(),
    })
    .optional(),
});

/**
 * What audit_repository and probe_endpoint return: the compact form by default (counts, red rules security first
 * with their first findings, unjudged rules by reason, the full report's URI); with detail=full, also `results`:
 * every rule with its reason and up to FULL_FINDINGS findings. The JSON report itself is at `report`.
 */
export const ToolReportOut = z.object({
  ...Head,
  red: z.array(RuleLine),
  couldNotJudge: z.array(z.object({ code: z.string(), count: Count, rules: z.array(z.string()) })),
  report: z.string().optional().describe('resources/read URI of the full report'),
  results: z.array(RuleLine).optional(),
});

const SourceOut = z.object({ kind: z.string(), ref: z.string(), section: z.string().optional(), anchor: z.string().optional() });

export const RuleOut = z.object({
  id: z.string(),
  slug: z.string(),
  family: z.enum(FAMILIES),
  title: z.string(),
  summary: z.string(),
  genres: z.array(z.enum(GENRES)),
  severity: z.enum(SEVERITIES),
  category: z.enum(CATEGORIES),
  appliesTo: z.array(z.enum(TARGET_KINDS)),
  conditional: z.boolean(),
  detectors: z.array(z.enum(GENRES)),
  sources: z.array(SourceOut),
});

export const RulesOut = z.object({ locale: z.string(), rules: z.array(RuleOut) });

export const ExplainOut = z.object({
  id: z.string(),
  locale: z.string(),
  title: z.string(),
  summary: z.string(),
  condition: z.string().nullable(),
  genres: z.array(z.enum(GENRES)),
  severity: z.enum(SEVERITIES),
  category: z.enum(CATEGORIES),
  resourceUri: z.string(),
  markdown: z.string(),
});
