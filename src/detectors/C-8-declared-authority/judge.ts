import { present, type MessageSpec } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { isDeclObject } from '../../facts/declarations-value.js';
import { declarationVerdict, field, shown, UNKNOWN, type DeclarationJudge, type DeclaredTool } from '../support/declarations/declarations-judge.js';

/**
 * C-8 — declared authority per tool. Every tool declares `authority: { read, write }` in its
 * `_meta["dev.mcp-doctor/declarations"]`, both tiers from `policy.authorityTiers` and different from each
 * other. Static part: the declarations written in the source (facts/declarations); dynamic part: the
 * `_meta` of the tools served by tools/list. A tool whose declarations are built at run time leaves the
 * static part unjudged (declarations-not-static) unless another tool is red.
 */

const SIDES = ['read', 'write'] as const;

export const judgeAuthority: DeclarationJudge = (tools, config) => {
  const tiers = config.policy.authorityTiers;
  const findings: Finding[] = [];
  const unread: DeclaredTool[] = [];
  for (const t of tools) {
    const tool = t.name;
    const auth = field(t, 'authority');
    if (auth === UNKNOWN) {
      unread.push(t);
      continue;
    }
    if (auth === undefined || auth === null) {
      findings.push({ messageId: 'missing-authority', data: { tool }, location: t.at() });
      continue;
    }
    if (!isDeclObject(auth)) {
      findings.push({ messageId: 'authority-not-pair', data: { tool, value: shown(auth) }, location: t.at(['authority']) });
      continue;
    }
    const values = SIDES.map((side) => field(t, 'authority', side));
    if (values.every((v) => v === undefined)) {
      findings.push({ messageId: 'missing-authority', data: { tool }, location: t.at(['authority']) });
      continue;
    }
    SIDES.forEach((side, i) => {
      const v = values[i];
      if (v === UNKNOWN) return;
      if (v === undefined) findings.push({ messageId: 'missing-tier', data: { tool, side }, location: t.at(['authority']) });
      else if (typeof v !== 'string' || !tiers.includes(v)) {
        findings.push({ messageId: 'unknown-tier', data: { tool, side, tier: shown(v), tiers: tiers.join(', ') }, location: t.at(['authority', side]) });
      }
    });
    if (values.includes(UNKNOWN)) unread.push(t);
    else if (typeof values[0] === 'string' && values[0] === values[1]) {
      findings.push({ messageId: 'same-tier', data: { tool, tier: values[0] }, location: t.at(['authority']) });
    }
  }
  return declarationVerdict(findings, unread, ['missing-authority', 'missing-tier'], present);
};

/** The messages of both parts. */
export const MESSAGES: MessageSpec = {
  'missing-authority': ['tool'],
  'authority-not-pair': ['tool', 'value'],
  'missing-tier': ['tool', 'side'],
  'unknown-tier': ['tool', 'side', 'tier', 'tiers'],
  'same-tier': ['tool', 'tier'],
};
