import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadCatalog } from '../src/engine/catalog.js';
import { defaultConfig } from '../src/engine/config.js';
import { judgeRule } from '../src/engine/runner.js';
import { SessionFacts } from '../src/facts/session.js';
import { folders } from '../src/detectors/index.js';
import type { RecordedSession } from '../src/probe/session.js';
import { fixtureServers, recordFixture } from './support/fixture-servers.js';

/** Recordings stay honest: probing each fixture server again gives the same verdicts as its session.json. */
describe('dynamic fixtures: live probe agrees with the recording', () => {
  // App fixtures are judged here as a plain server would be (kind 'server'), where the A-* parts do not apply:
  // their recordings are rendered again and compared in src/apps/fixtures-live-apps.test.ts.
  for (const f of fixtureServers().filter((x) => !x.apps)) {
    it(f.dir.split('/src/detectors/')[1]!, async () => {
      const entry = folders.find((x) => x.folder === f.folder);
      assert.ok(entry, `${f.folder} is registered`);
      const dynamic = entry.detectors.filter((d) => d.genre === 'dynamic');
      const rule = loadCatalog().byId.get(dynamic[0]!.ruleId)!;
      const recorded = JSON.parse(readFileSync(join(f.dir, 'session.json'), 'utf8')) as RecordedSession;
      const live = await recordFixture(f);
      const judge = (s: RecordedSession) =>
        judgeRule(rule, dynamic, { session: { ok: true, value: new SessionFacts(s) }, repo: { ok: false, reason: { code: 'needs-repo' } } }, defaultConfig(), 'server').parts.map((p) => [
          p.state,
          p.findings.map((x) => x.messageId),
        ]);
      assert.deepEqual(judge(live), judge(recorded));
    });
  }
});
