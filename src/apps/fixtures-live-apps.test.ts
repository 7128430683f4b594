import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadCatalog } from '../engine/catalog.js';
import { defaultConfig } from '../engine/config.js';
import { judgeRule } from '../engine/runner.js';
import { SessionFacts } from '../facts/session.js';
import { folders } from '../detectors/index.js';
import type { RecordedSession } from '../probe/session.js';
import { fixtureServers, recordFixture } from '../../test/support/fixture-servers.js';

/**
 * App recordings stay honest: a few App fixtures are rendered again in the browser and their dynamic A-* parts
 * judged on the live run and on session.json must agree. The performance figures depend on the machine's
 * load and are not compared; every other part is.
 */

const LIVE = ['A-2-single-file-bundle/fixtures/non-conforming/cdn-script', 'A-3-sandbox/fixtures/present/react-tasks', 'A-4-wcag-aa/fixtures/non-conforming/unnamed-button', 'A-7-destructive-consent/fixtures/non-conforming/delete-without-confirmation'];

describe('App fixtures: a live rendering agrees with the recording', () => {
  for (const f of fixtureServers().filter((x) => x.apps && LIVE.some((l) => x.dir.endsWith(l)))) {
    it(f.dir.split('/src/detectors/')[1]!, async () => {
      const recorded = JSON.parse(readFileSync(join(f.dir, 'session.json'), 'utf8')) as RecordedSession;
      const live = await recordFixture(f);
      const judge = (s: RecordedSession) =>
        folders
          .filter((x) => x.folder.startsWith('A-') && !x.folder.startsWith('A-5'))
          .map((x) => {
            const dynamic = x.detectors.filter((d) => d.genre === 'dynamic');
            const rule = loadCatalog().byId.get(dynamic[0]!.ruleId)!;
            return judgeRule(rule, dynamic, { session: { ok: true, value: new SessionFacts(s) }, repo: { ok: false, reason: { code: 'needs-repo' } } }, defaultConfig(), 'app')
              .parts.filter((p) => p.genre === 'dynamic')
              .map((p) => [x.folder, p.state, p.findings.map((y) => y.messageId)]);
          });
      assert.deepEqual(judge(live), judge(recorded));
    });
  }
  it('covers the fixtures it names', () => assert.equal(fixtureServers().filter((x) => x.apps && LIVE.some((l) => x.dir.endsWith(l))).length, LIVE.length));
});
