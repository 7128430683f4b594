import type { Page } from 'playwright-core';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { JsonRpc } from '../probe/session.js';
import type { BridgeMessage } from '../probe/apps-record.js';
import { within } from './within.js';

/**
 * The transport between the host side of the App bridge (`AppBridge` from @modelcontextprotocol/ext-apps,
 * running in mcp-doctor's process) and the View (in the browser, behind the sandbox proxy). Every message is
 * recorded raw, in both directions, with its time; the detectors judge these records. A message from the View
 * arrives as JSON text (cut by the sandbox proxy); text that is not a JSON-RPC 2.0 message is not given to
 * the bridge but kept as a message the View posted outside the bridge.
 */

export const MAX_BRIDGE_MESSAGES = 600;
/** Longest message text kept whole in the record. */
const MAX_RECORDED_CHARS = 64 * 1024;

export const isJsonRpc = (v: unknown): v is JsonRpc =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  (v as JsonRpc).jsonrpc === '2.0' &&
  (typeof (v as JsonRpc).method === 'string' || (v as JsonRpc).id !== undefined);

/** A recorded copy of a message, its large parts replaced by a size when the whole is too long. */
function recorded(m: JsonRpc, text: string): JsonRpc {
  if (text.length <= MAX_RECORDED_CHARS) return JSON.parse(text) as JsonRpc;
  const out: JsonRpc = { jsonrpc: m.jsonrpc };
  if (m.id !== undefined) out.id = m.id;
  if (m.method !== undefined) out.method = m.method;
  if (m.error !== undefined) out.error = m.error;
  const p = m.params as Record<string, unknown> | undefined;
  if (typeof m.method === 'string' && p && typeof p === 'object') out.params = { name: p.name, mcpDoctorTruncated: text.length };
  else out.result = { mcpDoctorTruncated: text.length };
  return out;
}

export class PageTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  readonly log: BridgeMessage[] = [];
  readonly outside: { at: number; data: string }[] = [];
  truncated = false;
  private closed = false;
  /** Date.now() of the View's start (the base of `at`). */
  base = Date.now();

  constructor(
    private readonly page: Page,
    private readonly sendTimeoutMs = 5000,
  ) {}

  private at(): number {
    return Date.now() - this.base;
  }

  private push(dir: BridgeMessage['dir'], m: JsonRpc, text: string): void {
    if (this.log.length >= MAX_BRIDGE_MESSAGES) {
      this.truncated = true;
      return;
    }
    this.log.push({ dir, at: this.at(), message: recorded(m, text) });
  }

  /** A relayed message from the View (JSON text). */
  fromView(text: string): void {
    if (this.closed) return;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      v = undefined;
    }
    if (!isJsonRpc(v)) {
      if (this.outside.length < 100) this.outside.push({ at: this.at(), data: text.slice(0, 2000) });
      else this.truncated = true;
      return;
    }
    this.push('from-view', v, text);
    try {
      this.onmessage?.(v as unknown as JSONRPCMessage);
    } catch (e) {
      this.onerror?.(e as Error);
    }
  }

  async start(): Promise<void> {
    /* messages arrive through the page binding */
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const text = JSON.stringify(message);
    this.push('to-view', message as unknown as JsonRpc, text);
    // A View that hangs its renderer must not hang the host: the delivery is bounded.
    await within(
      this.page.evaluate((m) => (window as unknown as { __mcpDoctorToSandbox: (x: unknown) => boolean }).__mcpDoctorToSandbox(m), message as unknown),
      this.sendTimeoutMs,
      undefined,
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
