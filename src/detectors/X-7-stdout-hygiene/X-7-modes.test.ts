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
const session = (dir: string) => new SessionFacts(JSON.parse(readFileSync(join(fixtures, dir, 'session.json'), 'utf8')) as RecordedSession);
const judge = (dir: string, s?: SessionFacts) =>
  staticPart.judge({ inputs: { repo: RepoFacts.gather(join(fixtures, dir)), ...(s ? { session: s } : {}) }, config: defaultConfig(), kind: 'server' });
const lines = (v: ReturnType<typeof judge>) => v.findings.map((f) => `${f.location?.file}:${f.location?.line}`).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));

describe('X-7 (static): a clean live stdout is evidence about start-up writes', () => {
  it('a start-up write the reading cannot place is red without a session, refuted by the clean live stdout', () => {
    const alone = judge('present/start-up-write-not-seen');
    assert.equal(alone.state, 'non-conforming');
    assert.deepEqual(lines(alone), ['server.mjs:10']);
    assert.equal(judge('present/start-up-write-not-seen', session('present/start-up-write-not-seen')).state, 'present');
  });
  it('writes a tool handler reaches stay red: the probe calls no tool, so the live stdout says nothing about them', () => {
    // The source of one server judged with the clean session of another stdio server: the evidence is about
    // start-up, and only start-up writes (the banner at top level, the default pino logger) are dropped.
    const v = judge('non-conforming/banners-and-loggers', session('present/start-up-write-not-seen'));
    assert.equal(v.state, 'non-conforming');
    assert.deepEqual(lines(v), ['src/tools.ts:8', 'src/tools.ts:14', 'src/tools.ts:15']);
    assert.deepEqual(lines(judge('non-conforming/banners-and-loggers')), ['src/index.ts:7', 'src/index.ts:10', 'src/log.ts:3', 'src/tools.ts:8', 'src/tools.ts:14', 'src/tools.ts:15']);
  });
  it('a recorded stdio session shows the server runs on stdio: no not-applicable from a manifest that declares HTTP only', () => {
    assert.equal(judge('not-applicable/http-only').state, 'not-applicable');
    assert.notEqual(judge('not-applicable/http-only', session('present/start-up-write-not-seen')).state, 'not-applicable');
  });
  it('a session with noise on stdout, or over HTTP, is no such evidence', () => {
    const noisy = judge('present/start-up-write-not-seen', session('non-conforming/console-log'));
    assert.equal(noisy.state, 'non-conforming');
  });
});
