import type { SessionFacts } from '../../facts/session.js';
import { excerpt, ownToolNames, servedTexts } from '../support/live/dynamic-text.js';
import { judgeReferences, readsProse, skeleton, spelled, withinOneEdit } from './judge.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * X-2 across a set of configured servers (the scan's `--probe`): what one server serves that steers the use of
 * another server's tools, and tools of two servers whose names are the same or confusable. The single-server
 * parts (static.ts, dynamic.ts) cannot see this: they do not know what else the user has installed.
 *
 *   - a reference: a served text (tool, prompt or resource description, title, schema text, server
 *     instructions) of server A names a tool that server B serves and A does not — either in a sentence of
 *     the reference registry (references.ts: "instead of X", "before calling X"…), or by writing B's tool name
 *     as a word when that name cannot be an ordinary word (it has a separator or a camelCase hump);
 *   - a look-alike: a tool of A and a tool of B with the same name, the same skeleton (case, separators,
 *     homoglyphs), or one edit apart (names of five characters or more).
 *
 * Findings name both servers and both tools.
 */

export interface SetMember {
  /** The server's name in the configuration (unique within the set: the caller disambiguates). */
  server: string;
  facts: SessionFacts;
}

export interface SetShadowHit {
  messageId: 'set-reference' | 'set-lookalike';
  server: string;
  tool: string;
  otherServer: string;
  otherTool: string;
  field?: string;
  evidence: string;
}

/** A name no prose uses as a plain word: it has a separator or a camelCase hump. */
const distinctive = (name: string): boolean => /[_\-./]/.test(name) || /[a-z][A-Z]/.test(name);


export function crossServerShadowing(members: readonly SetMember[]): SetShadowHit[] {
  const tools = members.map((m) => ({ server: m.server, names: [...ownToolNames(m.facts)].sort() }));
  const hits: SetShadowHit[] = [];
  const seen = new Set<string>();
  const add = (h: SetShadowHit) => {
    const k = `${h.messageId}|${h.server}|${h.tool}|${h.otherServer}|${h.otherTool}`;
    if (!seen.has(k)) {
      seen.add(k);
      hits.push(h);
    }
  };
  // References.
  for (const m of members) {
    const own = new Set(tools.find((t) => t.server === m.server)!.names.map((n) => n.toLowerCase()));
    const others = tools.filter((t) => t.server !== m.server);
    const owner = new Map<string, { server: string; tool: string }>();
    for (const o of others) for (const n of o.names) if (!own.has(n.toLowerCase()) && !owner.has(n.toLowerCase())) owner.set(n.toLowerCase(), { server: o.server, tool: n });
    if (!owner.size) continue;
    const words = [...owner.values()].filter((o) => distinctive(o.tool));
    const wordRe = words.length ? new RegExp(`(?<![\\w-])(${words.map((w) => escapeRegExp(w.tool)).join('|')})(?![\\w-])`, 'gi') : undefined;
    for (const t of servedTexts(m.facts)) {
      if (!readsProse(t.field)) continue;
      const subject = t.owner.kind === 'server' ? '(instructions)' : t.owner.name;
      for (const h of judgeReferences(t.text, own)) {
        const o = h.tool ? owner.get(h.tool.toLowerCase()) : undefined;
        if (o) add({ messageId: 'set-reference', server: m.server, tool: subject, otherServer: o.server, otherTool: o.tool, field: t.where, evidence: excerpt(t.text, h.index, h.end) });
      }
      if (wordRe) for (const x of t.text.matchAll(wordRe)) {
        const o = owner.get(x[1]!.toLowerCase());
        if (o) add({ messageId: 'set-reference', server: m.server, tool: subject, otherServer: o.server, otherTool: o.tool, field: t.where, evidence: excerpt(t.text, x.index ?? 0, (x.index ?? 0) + x[0].length) });
      }
    }
  }
  // Look-alikes: each pair of servers once.
  for (let i = 0; i < tools.length; i++) {
    for (let j = i + 1; j < tools.length; j++) {
      const a = tools[i]!;
      const b = tools[j]!;
      for (const x of a.names) {
        for (const y of b.names) {
          const same = x === y || skeleton(x) === skeleton(y) || (Math.min(x.length, y.length) >= 5 && withinOneEdit(x.toLowerCase(), y.toLowerCase()));
          if (same) add({ messageId: 'set-lookalike', server: b.server, tool: y, otherServer: a.server, otherTool: x, evidence: `${spelled(y)} ~ ${spelled(x)}` });
        }
      }
    }
  }
  return hits;
}
