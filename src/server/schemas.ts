import * as z from 'zod/v4';
import { STATES, SEVERITIES, GENRES, TARGET_KINDS, FAMILIES } from '../engine/types.js';

/** Output schemas of our tools: exact shapes of what the engine's JSON renderers produce. */

const Data = z.record(z.string(), z.union([z.string(), z.number()]));
const ReasonOut = z.object({ code: z.string(), data: Data.optional(), message: z.string().optional() });
const LocationOut = z.object({ file: z.string(), line: z.number().int().optional(), column: z.number().int().optional() });

export const ReportOut = z.object({
  tool: z.object({ name: z.string(), version: z.string() }),
  target: z.object({
    kind: z.enum(TARGET_KINDS),
    path: z.string().optional(),
    command: z.array(z.string()).optional(),
    url: z.string().optional(),
  }),
  locale: z.string(),
  summary: z.object({
    present: z.number().int(),
    absent: z.number().int(),
    nonConforming: z.number().int(),
    couldNotJudge: z.number().int(),
    notApplicable: z.number().int(),
    suppressed: z.number().int(),
  }),
  results: z.array(
    z.object({
      ruleId: z.string(),
      title: z.string(),
      state: z.enum(STATES),
      severity: z.enum(SEVERITIES),
      reason: ReasonOut.optional(),
      suppressed: z.object({ reason: z.string(), source: z.enum(['config', 'baseline']) }).optional(),
      parts: z.array(z.object({ genre: z.enum(GENRES), state: z.enum(STATES), reason: ReasonOut.optional() })),
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
    }),
  ),
  failing: z.number().int().describe('Red results at or above fail_on that are not suppressed.'),
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
  resourceUri: z.string(),
  markdown: z.string(),
});
