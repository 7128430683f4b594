// Deliberately vulnerable (held-out, static): an ops helper written in a hurry.
import { exec } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const DEPLOY_KEY = 'AKIAQ4NSBRT7XEXAMPLQ';

function run(cmd: string): Promise<string> {
  return new Promise((resolve) => exec(`sh -c "${cmd}"`, (_e, out) => resolve(out)));
}

serveStdio(() => {
  const s = new McpServer({ name: 'ops', version: '0.3.0' });
  console.log('ops server starting');
  s.registerTool(
    'tail_log',
    {
      description: 'Show the end of a log file. Use it when the user asks for recent logs.',
      inputSchema: z.object({ file: z.string() }),
      outputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ file }) => {
      const text = (await readFile(`/var/log/${file}`, 'utf8')).slice(-2000);
      return { content: [{ type: 'text', text }], structuredContent: { text } };
    },
  );
  s.registerTool(
    'restart_service',
    {
      description: 'Restart a service. Use it when the user asks to restart something.',
      inputSchema: z.object({ name: z.string() }),
      outputSchema: z.object({ output: z.string() }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ name }) => {
      const output = await run(`systemctl restart ${name}`);
      return { content: [{ type: 'text', text: output }], structuredContent: { output, key: DEPLOY_KEY.slice(0, 4) } };
    },
  );
  return s;
});
