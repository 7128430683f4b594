import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { audit } from '../src/run/api.js';
import { keysOf, locales, placeholders, raw, t } from '../src/engine/i18n.js';
import { packageRoot } from '../src/engine/paths.js';
import type { Finding } from '../src/engine/types.js';
import { findingFix } from '../src/report/text.js';

/**
 * `findings.<rule>.<id>.fixPython`: the remediation shown for a finding located in Python source, in the Python
 * SDK's words, beside a `fix` that speaks TypeScript (src/report/text.ts `findingFix`).
 *   (a) every fixPython is in every locale, with the placeholders of the fix it sits beside;
 *   (b) every fixPython belongs to a (rule, message id) that a Python part really emits: the detector folders'
 *       fixtures holding .py files are audited through the engine and the findings located in .py files give
 *       the list; on those findings findingFix returns the fixPython text, and the fix once the same finding is
 *       located in a .ts file.
 */

const detectorsDir = join(packageRoot(), 'src', 'detectors');
const SKIP = new Set(['node_modules', '.venv', 'venv', '__pycache__', '.git']);

function hasPython(dir: string): boolean {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() ? !SKIP.has(e.name) && hasPython(join(dir, e.name)) : /\.py$/.test(e.name)) return true;
  }
  return false;
}

/** Every fixture folder (`<detector>/fixtures/<state>/<name>`) holding Python source. */
function pythonFixtures(): string[] {
  const out: string[] = [];
  for (const d of readdirSync(detectorsDir).sort()) {
    const fx = join(detectorsDir, d, 'fixtures');
    if (!existsSync(fx)) continue;
    for (const state of readdirSync(fx).sort()) {
      for (const name of readdirSync(join(fx, state)).sort()) {
        const dir = join(fx, state, name);
        if (hasPython(dir)) out.push(dir);
      }
    }
  }
  return out;
}

const fixPythonKeys = () => keysOf('en').filter((k) => k.startsWith('findings.') && k.endsWith('.fixPython'));
/** `findings.<rule>.<id>.fixPython` → `<rule> <id>` (a message id holds no dot; a rule id neither). */
const pairOf = (key: string): string => {
  const [, rule, ...rest] = key.split('.');
  return `${rule} ${rest.slice(0, -1).join('.')}`;
};

describe('fixPython texts', () => {
  it('there are some (the test below has something to check)', () => {
    assert.ok(fixPythonKeys().length >= 5, fixPythonKeys().join(', '));
  });

  it('every fixPython is in every locale with the placeholders of its fix', () => {
    for (const key of fixPythonKeys()) {
      const fixKey = key.replace(/\.fixPython$/, '.fix');
      for (const l of locales()) {
        const py = raw(l, key);
        const fix = raw(l, fixKey);
        assert.ok(py !== undefined && py.trim() !== '', `${l}: ${key} exists`);
        assert.ok(fix !== undefined, `${l}: ${fixKey} exists beside ${key}`);
        assert.deepEqual([...new Set(placeholders(py))].sort(), [...new Set(placeholders(fix))].sort(), `${l}: ${key} has the placeholders of ${fixKey}`);
        assert.notEqual(py, fix, `${l}: ${key} says something other than ${fixKey}`);
      }
    }
  });

  describe('on the findings the Python parts emit (detector fixtures with .py files, audited)', () => {
    /** `<rule> <messageId>` → the findings located in .py files. */
    const emitted = new Map<string, Finding[]>();
    before(async () => {
      const dirs = pythonFixtures();
      assert.ok(dirs.length > 20, `found ${dirs.length} Python fixtures`);
      for (const dir of dirs) {
        const report = await audit({ target: { path: dir } });
        for (const r of report.results) {
          for (const f of r.findings) {
            if (!/\.py$/.test(f.location?.file ?? '')) continue;
            const k = `${r.ruleId} ${f.messageId}`;
            emitted.set(k, [...(emitted.get(k) ?? []), f]);
          }
        }
      }
    });

    it('every fixPython sits beside a message id a Python part emits', () => {
      assert.ok(emitted.size > 10, `${emitted.size} (rule, message id) pairs in Python source`);
      for (const key of fixPythonKeys()) assert.ok(emitted.has(pairOf(key)), `${key}: no Python fixture yields ${pairOf(key)} in a .py file`);
    });

    it('findingFix gives the fixPython text in a .py file and the fix in a .ts file', () => {
      for (const key of fixPythonKeys()) {
        const [rule, id] = pairOf(key).split(' ') as [string, string];
        const f = emitted.get(pairOf(key))![0]!;
        const fixKey = `findings.${rule}.${id}.fix`;
        for (const l of locales()) {
          const py = findingFix(rule, f, l);
          assert.equal(py, t(l, key, f.data), `${l}: ${key} for ${f.location!.file}`);
          assert.notEqual(py, t(l, fixKey, f.data), `${l}: ${rule} ${id} in Python is not the TypeScript fix`);
          const ts: Finding = { ...f, location: { ...f.location!, file: f.location!.file.replace(/\.py$/, '.ts') } };
          assert.equal(findingFix(rule, ts, l), t(l, fixKey, f.data), `${l}: ${rule} ${id} in a .ts file takes the fix`);
        }
      }
    });

    it('a Python finding whose message has no fixPython takes the fix', () => {
      const plain = [...emitted].filter(([k]) => raw('en', `findings.${k.replace(' ', '.')}.fixPython`) === undefined);
      assert.ok(plain.length > 0);
      for (const [k, [f]] of plain) {
        const [rule] = k.split(' ') as [string];
        for (const l of locales()) assert.equal(findingFix(rule, f!, l), t(l, `findings.${rule}.${f!.messageId}.fix`, f!.data), `${l}: ${k}`);
      }
    });
  });
});
