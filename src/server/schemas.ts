import * as z from 'zod/v4';
import { STATES, SEVERITIES, GENRES, TARGET_KINDS, FAMILIES } from '../engine/types.js';

/** Output schemas of our tools: exact shapes of what the engine's JSON renderers produce. */

/** An integer without zod's safe-integer bounds in the JSON Schema: they only cost context tokens (C-21). */
const Int = () => z.number().int().meta({ minimum: undefined, maximum: undefined });
const Data = z.record(z.string(), z.union([z.string(), z.number()]));
const ReasonOut = z.object({ code: z.string(), data: Data.optional(), message: z.string().optional() });
const LocationOut = z.object({ file: z.string(), line: Int().optional(), column: Int().optional() });

export const ReportOut = z.object({
  tool: z.object({ name: z.string(), version: z.string() }),
  target: z.object({
    kind: z.enum(TARGET_KINDS),
    path: z.string().optional(),
    command: z.array(z.string()).optional(),
    url: z.string().optional(),
  }),
  // The shared `inputs` contract (runner.ts ReportInputs): the package is typed, the other fields pass as they are.
  inputs: z
    .object({ package: z.object({ folder: z.string(), name: z.string().optional(), version: z.string().optional(), from: z.enum(['path', 'cwd', 'source', 'command']) }).optional() })
    .loose()
    .optional(),
  locale: z.string(),
  summary: z.object({
    present: Int(),
    absent: Int(),
    nonConforming: Int(),
    couldNotJudge: Int(),
    notApplicable: Int(),
    suppressed: Int(),
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
  failing: Int().describe('Red results at or above fail_on that are not suppressed.'),
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
