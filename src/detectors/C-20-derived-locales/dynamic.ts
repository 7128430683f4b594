import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { canonical } from '../../facts/lock.js';
import { SessionFacts } from '../../facts/session.js';

/**
 * C-20, dynamic part: the server really answers in the locales it declares. With the package folder known,
 * the probe starts the server once per declared locale (LANG / LC_ALL / LC_MESSAGES set to it, English first)
 * and lists its tools. A declared locale whose served tool texts are the same as the English ones is not
 * served. Over HTTP (Accept-Language) this is not judged yet.
 */
const textsOf = (tools: Record<string, unknown>[]) => canonical(tools.map((t) => [t.name, t.title ?? null, t.description ?? null]));

export default defineDetector({
  ruleId: 'C-20',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'locale-not-served': ['locale'] },
  judge({ inputs: { session } }) {
    const conns = session.session.connections.filter((c) => c.label === 'locale' && c.locale);
    if (!conns.length) return couldNotJudge('no-locale-probed');
    const served = new Map<string, string>();
    for (const c of conns) {
      const facts = new SessionFacts({ ...session.session, connections: [{ ...c, label: 'legacy' }] });
      const tools = facts.listed('legacy', 'tools/list');
      if (tools.length) served.set(c.locale!, textsOf(tools));
    }
    const en = served.get('en');
    if (!en) return couldNotJudge('no-locale-probed');
    const findings: Finding[] = [];
    for (const c of conns) {
      if (c.locale === 'en') continue;
      const texts = served.get(c.locale!);
      if (texts === undefined) return couldNotJudge('no-locale-probed');
      if (texts === en) findings.push({ messageId: 'locale-not-served', data: { locale: c.locale! } });
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
