import type { SessionFacts } from '../../facts/session.js';
import { servedLegs } from './dynamic.js';
import { emptyLegs, isTrifecta, LEGS, type LegMap } from './legs.js';

/**
 * X-8 across a set of configured servers: the legs of every served tool (the rules of legs.ts, as the dynamic
 * part reads them), labelled `server/tool`. A server that covers the three legs alone is a trifecta within
 * one server; a set whose servers together cover them — with no single server doing it — is the trifecta
 * the user assembled by installing them together.
 */

export interface SetLegs {
  /** Each server's own legs (servers whose tools could not be read are left out, with their reason). */
  perServer: { server: string; legs: LegMap }[];
  /** The set's legs, each tool labelled `server/tool`. */
  all: LegMap;
  /** Servers whose served tools could not be read, with the reason code. */
  unread: { server: string; code: string }[];
}

export function setLegs(members: readonly { server: string; facts: SessionFacts }[]): SetLegs {
  const all = emptyLegs();
  const perServer: SetLegs['perServer'] = [];
  const unread: SetLegs['unread'] = [];
  for (const m of members) {
    const r = servedLegs(m.facts);
    if (!r.ok) {
      unread.push({ server: m.server, code: r.verdict.reason?.code ?? 'unread' });
      continue;
    }
    perServer.push({ server: m.server, legs: r.legs });
    for (const l of LEGS) for (const row of r.legs[l]) all[l].push({ tool: `${m.server}/${row.tool}`, rules: [...row.rules] });
  }
  return { perServer, all, unread };
}

/** The set forms a trifecta that no one server forms alone: the legs are covered, and not all by servers that close the triangle on their own. */
export function setTrifecta(s: SetLegs): { servers: string[] } | undefined {
  if (!isTrifecta(s.all)) return undefined;
  const alone = new Set(s.perServer.filter((p) => isTrifecta(p.legs)).map((p) => p.server));
  const others = s.perServer.filter((p) => !alone.has(p.server));
  // When servers close the triangle on their own, their own findings say it; the set adds a finding only when another server brings a leg too.
  if (alone.size && !others.some((p) => LEGS.some((l) => p.legs[l].length > 0))) return undefined;
  return { servers: s.perServer.filter((p) => LEGS.some((l) => p.legs[l].length > 0)).map((p) => p.server).sort() };
}
