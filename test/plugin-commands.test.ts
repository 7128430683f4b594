import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { commandFiles, commandsDir, COMMANDS } from '../src/docs/plugin-commands.js';
import { locales, t } from '../src/engine/i18n.js';

describe('plugin slash commands from i18n', () => {
  it('commands/*.md are what the generator makes of i18n (run npm run plugin:commands after changing plugin.commands.*)', () => {
    const files = commandFiles();
    const onDisk = readdirSync(commandsDir()).filter((f) => f.endsWith('.md')).sort();
    assert.deepEqual(onDisk, files.map((f) => f.file).sort());
    for (const f of files) assert.equal(readFileSync(join(commandsDir(), f.file), 'utf8'), f.text, `commands/${f.file} is out of date`);
  });
  it('every locale has each command under a name of its own, asking the tool for results in that locale', () => {
    const names = locales().flatMap((l) => COMMANDS.map((id) => t(l, `plugin.commands.${id}.name`)));
    assert.equal(new Set(names).size, names.length, `command names collide: ${names.join(', ')}`);
    for (const l of locales())
      for (const id of COMMANDS) {
        const text = readFileSync(join(commandsDir(), `${t(l, `plugin.commands.${id}.name`)}.md`), 'utf8');
        assert.ok(text.includes('`locale`') && text.includes(`\`${l}\``), `${l}/${id} passes locale ${l}`);
        assert.ok(text.includes('$ARGUMENTS'), `${l}/${id} passes its arguments`);
      }
  });
});
