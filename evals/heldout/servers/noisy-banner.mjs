// Deliberately vulnerable (held-out): a correct SDK v2 server that prints a banner on stdout.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

console.log('notes-server v3 ready'); // the defect: stdout is the protocol channel
serveStdio(() => {
  const s = new McpServer({ name: 'notes', version: '3.0.0' });
  s.registerTool(
    'list_notes',
    {
      description: 'List the saved notes. Use it when the user asks what notes exist.',
      inputSchema: z.object({ limit: z.number().int().max(50) }),
      outputSchema: z.object({ notes: z.array(z.string()) }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async () => ({ content: [{ type: 'text', text: 'none' }], structuredContent: { notes: [] } }),
  );
  return s;
});
