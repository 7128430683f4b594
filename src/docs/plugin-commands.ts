import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_LOCALE, locales, t } from '../engine/i18n.js';
import { packageRoot } from '../engine/paths.js';

/**
 * The slash commands of the Claude Code plugin (commands/*.md) are generated from i18n (plugin.commands.*): one
 * file per command and locale, named by the command's name in that locale (/mcp-doctor:audit,
 * /mcp-doctor:auditer…). Each tells the model which tool to call, with the locale of the command, so that
 * results come back in the user's language. Claude Code has no per-language variant of a command, hence one
 * name per language. A test checks the committed files against this generator.
 * Run: npm run plugin:commands (after a build).
 */
export const COMMANDS = ['audit', 'probe', 'explain'] as const;

/** Tools a command may call without a permission prompt (the probe starts programs: it asks, always). */
const ALLOWED_TOOLS: Record<(typeof COMMANDS)[number], string[]> = {
  audit: ['audit_repository', 'explain_rule'],
  probe: [],
  explain: ['explain_rule'],
};
/** How Claude Code names the tools of a plugin's MCP server. */
const pluginTool = (tool: string) => `mcp__plugin_mcp-doctor_mcp-doctor__${tool}`;

/** A YAML scalar in double quotes (JSON strings are valid YAML). */
const yamlString = (s: string) => JSON.stringify(s);

export const commandsDir = () => join(packageRoot(), 'commands');

/** Every command file: its name (relative to commands/) and its text. English first, then the other locales. */
export function commandFiles(): { file: string; text: string }[] {
  const order = [DEFAULT_LOCALE, ...locales().filter((l) => l !== DEFAULT_LOCALE)];
  return order.flatMap((locale) =>
    COMMANDS.map((id) => {
      const key = (k: string) => t(locale, `plugin.commands.${id}.${k}`);
      const allowed = ALLOWED_TOOLS[id];
      const front = [
        '---',
        `description: ${yamlString(key('description'))}`,
        `argument-hint: ${yamlString(key('argumentHint'))}`,
        ...(allowed.length ? [`allowed-tools: ${allowed.map(pluginTool).join(', ')}`] : []),
        '---',
      ];
      const body = t(locale, `plugin.commands.${id}.body`, { locale });
      return { file: `${key('name')}.md`, text: [...front, body, ''].join('\n') };
    }),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = commandsDir();
  const files = commandFiles();
  const keep = new Set(files.map((f) => f.file));
  for (const f of readdirSync(dir)) if (f.endsWith('.md') && !keep.has(f)) rmSync(join(dir, f));
  for (const f of files) writeFileSync(join(dir, f.file), f.text);
}
