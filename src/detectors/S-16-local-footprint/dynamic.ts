import { defineDetector, notApplicable, present } from '../../engine/detector.js';

/**
 * S-16, dynamic part (transport clause): a local server reached over HTTP on loopback must demand
 * authorization; stdio keeps the server reachable by its client only.
 */
export default defineDetector({
  ruleId: 'S-16',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'loopback-http-without-auth': ['url'] },
  judge({ inputs: { session } }) {
    if (!session.isHttp()) return present();
    if (!session.loopback()) return notApplicable('not-local');
    const sent = session.session.connections.flatMap((c) => c.http ?? []);
    const anonymous = sent.filter((x) => !('authorization' in x.request.headers));
    const served = anonymous.some((x) => x.response && x.response.status >= 200 && x.response.status < 300 && x.response.messages.some((m) => m.result !== undefined));
    if (!served) return present();
    const url = session.session.target.transport === 'http' ? session.session.target.url : '';
    return { state: 'non-conforming', findings: [{ messageId: 'loopback-http-without-auth', data: { url } }] };
  },
});
