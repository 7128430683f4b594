/**
 * The engine's vocabulary. Findings carry ids and data, never prose: text is rendered at the edge
 * (CLI, MCP tool result, SARIF) in the requested locale.
 */

export const STATES = ['present', 'absent', 'non-conforming', 'could-not-judge', 'not-applicable'] as const;
export type State = (typeof STATES)[number];

/** States that count as red (a finding against the standard). */
export const RED_STATES: readonly State[] = ['absent', 'non-conforming'];
export const isRed = (s: State): boolean => RED_STATES.includes(s);

export const GENRES = ['static', 'dynamic', 'gate'] as const;
export type Genre = (typeof GENRES)[number];

/**
 * How the parts of a rule make its verdict (rules/catalog `combine`).
 *   any-unjudged  a red part makes the rule red; otherwise any unjudged part keeps it unjudged.
 *   live-decides  as any-unjudged, except that a live (dynamic) part that read everything the server
 *                 serves on the rule's subject and found it clean decides when another part could not judge:
 *                 for rules whose live part observes the very thing the rule is about (served texts, names,
 *                 schemas, declarations).
 */
export const COMBINATIONS = ['any-unjudged', 'live-decides'] as const;
export type Combination = (typeof COMBINATIONS)[number];

export const FAMILIES = ['C', 'S', 'A', 'E', 'X'] as const;
export type Family = (typeof FAMILIES)[number];

export const SEVERITIES = ['error', 'warning', 'note'] as const;
export type Severity = (typeof SEVERITIES)[number];
/** Higher rank = more severe. */
export const severityRank = (s: Severity): number => ({ note: 1, warning: 2, error: 3 })[s];

/**
 * What a rule protects (rules/catalog `category`): `security` (command execution, file access, SSRF, secrets,
 * poisoning, shadowing, transport and auth holes), `protocol` (what the MCP specification asks of the wire:
 * lifecycle, pagination, versioning, results), `publishing` (the house standard for a published package:
 * README, changelog, bilingual texts, evals, declarations, catalog). Reports list red results in this order.
 */
export const CATEGORIES = ['security', 'protocol', 'publishing'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Which rules an audit judges: `vet` the security and protocol rules (vetting someone else's server), `standard` all. */
export const PROFILES = ['standard', 'vet'] as const;
export type Profile = (typeof PROFILES)[number];
export const PROFILE_CATEGORIES: Record<Profile, readonly Category[]> = { standard: CATEGORIES, vet: ['security', 'protocol'] };

export const TARGET_KINDS = ['server', 'app', 'extension'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const OBJECTIVES = ['production', 'enterprise', 'security', 'tokens', 'tenancy'] as const;
export type Objective = (typeof OBJECTIVES)[number];

export interface Source {
  kind: 'mcp-spec' | 'rfc' | 'owasp' | 'sep' | 'standard' | 'practice';
  ref: string;
  section?: string;
  anchor?: string;
}

/** Language-neutral metadata of one rule (rules/catalog/<family>.json). */
export interface RuleMeta {
  id: string;
  slug: string;
  family: Family;
  genres: Genre[];
  /** How the parts combine into the rule's verdict (every catalog entry says it; 'any-unjudged' when absent). */
  combine?: Combination;
  severity: Severity;
  category: Category;
  appliesTo: TargetKind[];
  conditional: boolean;
  objectives: Objective[];
  sources: Source[];
}

export interface Location {
  /** Path relative to the audited root, with forward slashes. */
  file: string;
  line?: number;
  column?: number;
}

export type MessageData = Record<string, string | number>;

export interface Finding {
  /** Message id, declared by the detector; its text lives in i18n/<locale>.json under findings.<ruleId>.<messageId>. */
  messageId: string;
  data?: MessageData;
  location?: Location;
  /** Raw evidence copied from the target. Always data: rendered inertly, never interpreted. */
  evidence?: string;
}

/** Why an instrument could not judge, or why a rule does not apply. Code + data; text lives in i18n under reasons.<code>. */
export interface Reason {
  code: string;
  data?: MessageData;
}

/** What a detector returns. */
export interface Verdict {
  state: State;
  findings: Finding[];
  reason?: Reason;
}

/** One judged part of a rule (a rule can have a static and a dynamic part). */
export interface PartResult {
  genre: Genre;
  state: State;
  reason?: Reason;
  findings: Finding[];
}

export interface Suppression {
  reason: string;
  source: 'config' | 'baseline';
}

/** The result of one rule in a report. Each ruleId appears at most once. */
export interface RuleResult {
  ruleId: string;
  state: State;
  severity: Severity;
  findings: Finding[];
  reason?: Reason;
  parts: PartResult[];
  suppressed?: Suppression;
}

export const byRuleId = (a: string, b: string): number => {
  const fa = a.split('-')[0] ?? '';
  const fb = b.split('-')[0] ?? '';
  if (fa !== fb) return FAMILIES.indexOf(fa as Family) - FAMILIES.indexOf(fb as Family);
  return Number(a.split('-')[1]) - Number(b.split('-')[1]);
};
