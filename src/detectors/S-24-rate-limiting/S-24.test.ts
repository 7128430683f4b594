import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import staticPart from './static.js';
import { staticSummary, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkers } from '../../../test/support/markers.js';
import { sourceDirOf } from '../../engine/paths.js';

// Recorded servers (a dynamic part) and py-* fixtures (a Python part) in this folder are not this part's cases.
testDetectorFolder('S-24', [staticPart], import.meta.url, { skipServerFixtures: true });
testMarkers('S-24', [staticPart], import.meta.url);

const FIXTURES = join(sourceDirOf(import.meta.url), 'fixtures');

test('S-24: a limiter off the tool paths is no established absence when a file was screened, not parsed', () => {
  // The absent fixture, plus a data module too large to parse under a 1 MB budget: the pattern screen clears it,
  // but its identifiers were not searched for a use of the limiter.
  const dir = mkdtempSync(join(tmpdir(), 's24-screened-'));
  const saved = process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
  try {
    cpSync(join(FIXTURES, 'absent', 'dist-limiter-off-tool-paths'), dir, { recursive: true });
    const offsets: number[] = [];
    for (let i = 0; i < 300_000; i++) offsets.push(1000 + ((i * 7) % 9000));
    writeFileSync(join(dir, 'dist', 'zones.js'), `export const ZONE_OFFSETS = [${offsets.join(',')}];\n`);
    process.env.MCP_DOCTOR_PARSE_BUDGET_MB = '1';
    const s = staticSummary('S-24', staticPart, dir);
    assert.equal(s.state, 'could-not-judge');
    assert.equal(s.reason, 'limiter-not-on-tool-path');
  } finally {
    if (saved === undefined) delete process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
    else process.env.MCP_DOCTOR_PARSE_BUDGET_MB = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});
