// Deliberately vulnerable (held-out): SDK v2 wired by hand to the 2025-era transport, with a camelCase tool.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const s = new McpServer({ name: 'calendar', version: '0.4.1' });
s.registerTool(
  'createEvent',
  {
    description: 'Create a calendar event. Use it when the user wants to schedule something.',
    inputSchema: z.object({ title: z.string(), at: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  async ({ title }) => ({ content: [{ type: 'text', text: `created ${title}` }] }),
);
await s.connect(new StdioServerTransport());
