import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HOST_ORIGIN, hostPage, SANDBOX_ORIGIN, sandboxPage, VIEW_PATH } from './host-pages.js';

/**
 * The network guard: the only way out of the browser. The browser context sends every request through this
 * proxy on a loopback port (loopback included: `<-loopback>` removes the implicit bypass), and the browser's
 * own background traffic goes to a second listener that answers nothing. The guard serves the two origins of
 * our host (the host page and the sandbox proxy with its Views) from memory, and refuses everything else
 * (HTTP 403, CONNECT refused, upgrades dropped) after recording the origin that was asked for. Nothing ever
 * leaves the machine, keepalive fetches and beacons included, whatever the page does: the refusal happens at
 * the browser's network layer, below anything a page or Playwright's request interception sees.
 */

const MAX_RECORDS = 500;

export interface GuardRecord {
  url: string;
  origin: string;
  method: string;
  /** Date.now() when the guard saw it. */
  time: number;
}

export interface ServedView {
  html: string;
  csp: string;
}

export class NetGuard {
  private server?: Server;
  private blackhole?: Server;
  private sockets = new Set<Socket>();
  readonly records: GuardRecord[] = [];
  truncated = false;
  private views = new Map<string, ServedView>();
  /** Date.now() when each View document was first requested. */
  readonly viewRequested = new Map<string, number>();
  port = 0;
  blackholePort = 0;

  /** Serve a View under /view/<id> with its CSP. */
  serveView(id: string, view: ServedView): string {
    this.views.set(id, view);
    return `${SANDBOX_ORIGIN}${VIEW_PATH}${id}`;
  }

  private record(method: string, url: string, origin: string): void {
    if (this.records.length >= MAX_RECORDS) {
      this.truncated = true;
      return;
    }
    this.records.push({ method, url: url.slice(0, 2048), origin: origin.slice(0, 512), time: Date.now() });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    let u: URL;
    try {
      u = new URL(req.url ?? '/', req.url?.startsWith('/') ? `http://${req.headers.host ?? 'invalid'}` : undefined);
    } catch {
      this.record(req.method ?? 'GET', String(req.url ?? ''), String(req.url ?? ''));
      res.writeHead(400).end();
      return;
    }
    const origin = u.origin;
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
      res.end(body);
    };
    if (origin === HOST_ORIGIN) {
      if (u.pathname === '/' || u.pathname === '/index.html') return send(200, hostPage());
      return send(404, '');
    }
    if (origin === SANDBOX_ORIGIN) {
      if (u.pathname === '/sandbox.html') return send(200, sandboxPage());
      if (u.pathname.startsWith(VIEW_PATH)) {
        const id = u.pathname.slice(VIEW_PATH.length);
        const v = this.views.get(id);
        if (v && !this.viewRequested.has(id)) {
          this.viewRequested.set(id, Date.now());
          return send(200, v.html, { 'content-security-policy': v.csp, 'x-content-type-options': 'nosniff' });
        }
      }
      // A relative URL of the View (another file of a multi-file bundle): the host has nothing to give.
      this.record(req.method ?? 'GET', u.href, origin);
      return send(404, '');
    }
    this.record(req.method ?? 'GET', u.href, origin);
    res.writeHead(403, { 'content-type': 'text/plain' }).end('blocked by mcp-doctor');
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => this.onRequest(req, res));
    server.on('connect', (req: IncomingMessage, socket: Socket) => {
      const target = String(req.url ?? '');
      this.record('CONNECT', target, /^\[?[^\]]*\]?:443$/.test(target) ? `https://${target.replace(/:443$/, '')}` : `connect://${target}`);
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    });
    server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      this.record('UPGRADE', String(req.url ?? ''), (() => {
        try {
          return new URL(String(req.url)).origin;
        } catch {
          return String(req.url ?? '');
        }
      })());
      socket.on('error', () => undefined);
      socket.destroy();
    });
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('clientError', (_e, socket: Socket) => socket.destroy());
    const blackhole = createServer();
    blackhole.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.destroy();
    });
    this.server = server;
    this.blackhole = blackhole;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
    await new Promise<void>((resolve, reject) => blackhole.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
    this.port = (server.address() as { port: number }).port;
    this.blackholePort = (blackhole.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await Promise.all([this.server, this.blackhole].map((s) => (s ? new Promise<void>((r) => s.close(() => r())) : Promise.resolve())));
  }
}
