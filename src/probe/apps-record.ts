import type { Connection, JsonRpc } from './wire.js';

/**
 * What the MCP Apps host harness recorded (the `apps` part of a recorded session). Everything a detector
 * judges is here as data: the raw bridge messages between the View and our host (JSON-RPC, in both
 * directions, with their times), the network requests the page tried, the browser APIs the View touched,
 * the axe-core results, the controls the harness clicked. Detectors derive figures (round trips, calls made
 * without a confirmation) from these raw records, never from a library's parsed objects. Every list is
 * bounded; `truncated` says when a bound cut something.
 */

export const APPS_RECORD_FORMAT = 'mcp-doctor-apps/1';

/** Why the harness did not run, or could not go on (code + data; the text lives in i18n under reasons.<code>). */
export interface HarnessReason {
  code: string;
  data?: Record<string, string | number>;
}

export interface AppsRecord {
  format: typeof APPS_RECORD_FORMAT;
  /** Set when no View was rendered at all: --no-browser, no browser installed, the server could not be reached… */
  skipped?: HarnessReason;
  /** The browser that rendered the Views. */
  browser?: { executable: string; version?: string };
  /** The opt-ins in force (`--exercise`): which tool calls the host forwarded to the server. */
  exercise: string[];
  /** The host's own MCP connection to the server (raw messages), which read the ui:// resources and forwarded calls. */
  connection?: Connection;
  views: ViewRun[];
  durationMs: number;
}

/** One message on the App bridge, as it crossed: from the View to the host, or from the host to the View. */
export interface BridgeMessage {
  dir: 'from-view' | 'to-view';
  /** Milliseconds since the View's document was requested. */
  at: number;
  message: JsonRpc;
}

/** A network request the page tried (or a resource load the CSP blocked before it left). */
export interface NetworkAttempt {
  url: string;
  /** scheme://host[:port] of the URL, or the URL itself when it has no origin. */
  origin: string;
  /** How it was seen: the browser's request event, a CSP violation report, our network guard (proxy), a wrapped API call. */
  via: 'request' | 'csp' | 'guard' | 'api';
  /** The API (fetch, sendBeacon, WebSocket…) or resource type (script, image, stylesheet…) when known. */
  kind?: string;
  /** The CSP directive that blocked it, for a violation report. */
  directive?: string;
  at: number;
}

/** A browser API the View used that leaves the sandbox (storage, network, the parent window). */
export interface GlobalUse {
  api: string;
  /** A bounded detail (the URL for a network API). */
  detail?: string;
  at: number;
}

/** One control the harness clicked, and what followed. */
export interface ClickRecord {
  /** The control's role and accessible name (text from the target: data, quoted inertly). */
  control: string;
  /** Set when this control appeared only after another one was clicked (a second step). */
  revealedBy?: string;
  /** JSON-RPC ids of the tools/call requests the View sent after this click. */
  calls: (string | number)[];
  /** A dialog (confirm/alert) was opened or blocked after this click, before any call. */
  dialog: boolean;
  /** Controls that appeared after the click. */
  revealed: number;
  at: number;
}

export interface AxeViolation {
  id: string;
  impact: string;
  /** Up to five CSS selectors of the offending nodes. */
  targets: string[];
  nodes: number;
}

export interface AxeRun {
  phase: 'initial' | 'after-result';
  violations: AxeViolation[];
  passes?: number;
  error?: string;
}

export interface ViewRun {
  /** The tool whose UI this is. */
  tool: string;
  resourceUri: string;
  /** The resources/read outcome. */
  read: 'ok' | 'failed' | 'not-html' | 'empty' | 'too-large';
  /** The harness's resource limit in bytes, when the View was past it (`too-large`). */
  limitBytes?: number;
  /** Size of the served HTML (bytes) and gzipped (level 9), and its SHA-256. */
  html?: { bytes: number; gzipBytes: number; sha256: string; mimeType?: string };
  /** The `_meta.ui` served with the resource content (or the listed resource), as served. */
  uiMeta?: unknown;
  /** The Content-Security-Policy the View was rendered under. */
  csp?: string;
  outcome: 'rendered' | 'not-rendered' | 'unresponsive' | 'harness-error';
  detail?: string;
  /** The tool call whose result the View was given: forwarded (opt-in), not allowed, failed, or none. */
  initialCall: 'forwarded' | 'not-allowed' | 'failed' | 'not-callable';
  /** Arguments sent as the tool input (generated from the input schema). */
  toolInput?: Record<string, unknown>;
  bridge: BridgeMessage[];
  /** Messages the View posted to its parent that are not JSON-RPC (outside the bridge), bounded text. */
  parentMessages: { at: number; data: string }[];
  network: NetworkAttempt[];
  globals: GlobalUse[];
  console: { level: string; text: string; at: number }[];
  pageErrors: { text: string; at: number }[];
  dialogs: { type: string; at: number }[];
  /** First render of the View, in ms from its navigation start (see renderBy). */
  renderMs?: number;
  /** What gave renderMs: the first contentful paint, else the first paint, else the View's first size-changed. */
  renderBy?: 'first-contentful-paint' | 'first-paint' | 'size-changed';
  /** Used JS heap of the View after settling and a garbage collection, in bytes. */
  heapBytes?: number;
  axe: AxeRun[];
  clicks: ClickRecord[];
  /** More controls than the bound: not all were clicked. */
  clicksTruncated?: boolean;
  /** Path of the PNG screenshot, when artifacts were asked for. */
  screenshot?: string;
  truncated: boolean;
  durationMs: number;
}

export const isAppsRecord = (v: unknown): v is AppsRecord =>
  typeof v === 'object' && v !== null && (v as { format?: unknown }).format === APPS_RECORD_FORMAT && Array.isArray((v as { views?: unknown }).views);

/**
 * The report's view of the MCP Apps host run (`inputs.apps`): why nothing was rendered, or per View its
 * outcome, its screenshot (with --artifacts) and the four A-5 figures, so that a green verdict still shows
 * what was measured.
 */
export interface AppsInputs {
  skipped?: string;
  browser?: string;
  views: {
    tool: string;
    outcome: string;
    screenshot?: string;
    figures: { bundleGzipBytes?: number; firstRenderMs?: number; roundTripP95Ms?: number; roundTrips: number; heapBytes?: number };
  }[];
}
