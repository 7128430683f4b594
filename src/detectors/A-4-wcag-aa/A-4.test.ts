import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { sourceDirOf } from '../../engine/paths.js';

/** A minimal English page around the markup under test. */
const page = (body: string): string => `<!doctype html><html lang="en"><head><title>t</title></head><body>${body}</body></html>`;

// The dynamic part judges the recorded renderings of the fixture Apps; the static part reads the markup of the
// plain repository fixtures (built bundle and JSX), the recorded servers' buttons being built by their scripts.
testDetectorFolder('A-4', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);
testDetectorFolder('A-4', detectors.filter((d) => d.genre === 'static'), import.meta.url, { skipServerFixtures: true });

describe('A-4 (static) on the React fixture App', () => {
  it('its bundle markup and JSX name every control', () => {
    const dir = join(sourceDirOf(import.meta.url), '..', 'A-3-sandbox', 'fixtures', 'present', 'react-tasks');
    const part = judgeFolder('A-4', detectors.filter((d) => d.genre === 'static'), dir).result.parts.find((p) => p.genre === 'static');
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
});

describe('A-4 (static): a placeholder names a field as axe-core counts it', () => {
  it('an input or a text area with a non-empty placeholder is named; an empty one and a select are not', async () => {
    const { markupMisses } = await import('./static.js');
    assert.deepEqual(markupMisses(page('<input type="text" placeholder="Search"><textarea placeholder="Notes"></textarea>')), []);
    const misses = markupMisses(page('<input type="text" placeholder=" "><select placeholder="Pick"><option>a</option></select>'));
    assert.deepEqual(misses.map((m) => `${m.check} ${m.element}`), ['label <input>', 'label <select>']);
  });
});

describe('A-4 (static): elements made controls by an ARIA role', () => {
  it('commands and toggles are named by content or aria-*, fields and progress bars only by aria-label, aria-labelledby or title', async () => {
    const { markupMisses } = await import('./static.js');
    assert.deepEqual(markupMisses(page('<div role="button">Play</div><span role="switch" aria-label="Mute"></span><div role="slider" aria-labelledby="l"></div><div role="progressbar" title="Level"></div>')), []);
    const got = markupMisses(page('<div role="button"><svg></svg></div><div role="slider">50%</div><div role="progressbar"></div><li role="option"></li>'));
    assert.deepEqual(got.map((m) => m.check), ['aria-command-name', 'aria-input-field-name', 'aria-progressbar-name', 'aria-toggle-field-name']);
  });
  it('no check on a role the reading does not know, a native element with a role, a hidden element, or a role given by an expression', async () => {
    const { componentMarkup, markupMisses } = await import('./static.js');
    assert.deepEqual(markupMisses(page('<div role="region"></div><div role="presentation"></div><a role="button" href="#">x</a><button role="switch">On</button><div role="slider" hidden></div>')), []);
    assert.deepEqual(markupMisses(componentMarkup('<div role={kind}></div>'), '', false, true), []);
  });
});

describe('A-4 (static): the markup of Svelte and Vue components', () => {
  const misses = async (text: string) => {
    const { componentMarkup, markupMisses } = await import('./static.js');
    return markupMisses(componentMarkup(text), text, false, true).map((m) => `${m.check} ${m.element} ${m.line}`);
  };
  it('keeps the tags whole around expressions that hold > or quotes', async () => {
    assert.deepEqual(await misses('<input oninput={(e) => (n = e.target.value > 3 ? "a" : "b")} aria-label="Count">\n<input oninput={(e) => n > 1}>'), ['label <input> 2']);
  });
  it('takes what the markup cannot tell as named', async () => {
    const text = [
      '<script>let { label, ...rest } = $props();</script>',
      '<input {...rest}>',
      '<button {title}></button>',
      '<button><Icon name="x" /></button>',
      '<button><slot /></button>',
      '<button use:tooltip={label}></button>',
      '<input id={inputId}><label for={inputId}>Name</label>',
      '<input type={kind}>',
      '<template><input :aria-label="label"><input v-bind="attrs"><button v-html="icon"></button><img :alt="caption"></template>',
    ].join('\n');
    assert.deepEqual(await misses(text), []);
  });
  it('writes out every Svelte shorthand of a tag, not only the first', async () => {
    const { componentMarkup } = await import('./static.js');
    assert.match(componentMarkup('<img class="thumb" {src} {alt} />'), /src="\{src\}" alt="\{alt\}"/);
    assert.deepEqual(await misses('<img class="thumb" {src} {alt} />\n<button {disabled} {title}><svg></svg></button>\n<button {disabled} {onclick}><svg></svg></button>'), ['button-name <button> 3']);
  });
  it('reads a Vue template and leaves its script and style out', async () => {
    const text = '<script setup>const html = "<input>";</script>\n<template>\n  <input v-model="q">\n  <button @click="go"></button>\n</template>\n<style scoped>button:after { content: "<img>"; }</style>';
    assert.deepEqual(await misses(text), ['label <input> 3', 'button-name <button> 4']);
  });
});
