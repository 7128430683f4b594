import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { describeCycle, FLOORS, floorOf, importCycles, importGraph, layerViolations, type Graph } from './support/layers.js';

describe('layers of src/ (ARCHITECTURE.md)', () => {
  const graph = importGraph(packageRoot());

  it('reads the import graph of the sources', () => {
    assert.ok(graph.size > 200);
    assert.ok(graph.get('src/run/audit.ts')?.includes('src/engine/runner.ts'));
  });

  it('puts every file of src/ on a floor and imports only from its own floor or the floors below', () => {
    assert.deepEqual(layerViolations(graph), []);
  });

  it('has no import circle between files', () => {
    assert.deepEqual(
      importCycles(graph).map((c) => describeCycle(graph, c)),
      [],
    );
  });

  it('names the offending import: an upward import, an unplaced file and a circle are reported', () => {
    const g: Graph = new Map([
      ['src/probe/a.ts', ['src/run/b.ts']],
      ['src/run/b.ts', ['src/probe/a.ts']],
      ['src/elsewhere.ts', []],
    ]);
    assert.deepEqual(layerViolations(g), [
      'src/probe/a.ts (probe) imports src/run/b.ts (run, a higher floor)',
      'src/elsewhere.ts is on no floor (add it to FLOORS in test/support/layers.ts)',
    ]);
    assert.deepEqual(importCycles(g).map((c) => describeCycle(g, c)), ['import circle: src/probe/a.ts -> src/run/b.ts, src/run/b.ts -> src/probe/a.ts']);
  });

  it('the longest pattern decides a floor: engine/types.ts is base, engine/runner.ts is engine', () => {
    assert.equal(floorOf('src/engine/types.ts'), 'base');
    assert.equal(floorOf('src/engine/runner.ts'), 'engine');
    assert.deepEqual(new Set(FLOORS.map((f) => f.floor)).size, FLOORS.length);
  });
});
