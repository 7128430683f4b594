import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import staticPart from './static.js';
import { defaultConfig } from '../../engine/config.js';
import { sourceDirOf } from '../../engine/paths.js';
import { RepoFacts } from '../../facts/repo.js';
import { SessionFacts } from '../../facts/session.js';
import type { RecordedSession } from '../../probe/session.js';

const fixtures = join(sourceDirOf(import.meta.url), 'fixtures');
const judge = (dir: string, sessionDir?: string) =>
  staticPart.judge({
    inputs: {
      repo: RepoFacts.gather(join(fixtures, dir)),
      ...(sessionDir ? { session: new SessionFacts(JSON.parse(readFileSync(join(fixtures, sessionDir, 'session.json'), 'utf8')) as RecordedSession) } : {}),
    },
    config: defaultConfig(),
    kind: 'server',
  });

describe('S-23 (static): not-applicable needs evidence', () => {
  it('no HTTP transport in the source is not-applicable, unless the same run probed the server over HTTP', () => {
    assert.equal(judge('not-applicable/src-stdio-only').state, 'not-applicable');
    const v = judge('not-applicable/src-stdio-only', 'present/v2-guarded');
    assert.deepEqual([v.state, v.reason?.code], ['could-not-judge', 'http-served-not-in-source']);
  });
});
