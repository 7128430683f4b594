import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { log } from '../engine/log.js';
import { killTree } from '../probe/stdio.js';
import { within } from './within.js';

/**
 * The system's Chromium, driven by playwright-core. mcp-doctor never downloads a browser: it uses the one the
 * machine has (Debian/Ubuntu: `apt-get install chromium`), or the one MCP_DOCTOR_CHROMIUM names; failing both,
 * the Chromium binary that the npm package @sparticuz/chromium ships, when it is installed (a devDependency: the
 * test run on a machine without a browser). MCP_DOCTOR_SYSTEM_CHROMIUM=off skips the system candidates. Each launch
 * gets a fresh profile (Playwright's temporary one, removed at close), no GPU, no QUIC, no background networking, no component
 * updates, no sync, and a browser-wide proxy that answers nothing, so that the browser's own traffic cannot
 * leave the machine either; pages get the network guard as their proxy (netguard.ts).
 *
 * A launched browser is closed on every path: `close()` (bounded, then its process group is killed), at
 * process exit, and on SIGINT/SIGTERM — where, if nothing else listens to the signal, the signal is raised
 * again once the browser is gone, so the process ends as it would have.
 */

export const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome-stable', '/usr/bin/google-chrome'];

export class BrowserMissing extends Error {
  constructor(readonly tried: string[]) {
    super(`no Chromium found (tried ${tried.join(', ')})`);
  }
}

/**
 * The browser executable: MCP_DOCTOR_CHROMIUM when set (and executable), else the first system candidate
 * (none when MCP_DOCTOR_SYSTEM_CHROMIUM is `off`).
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const tried: string[] = [];
  const explicit = env.MCP_DOCTOR_CHROMIUM;
  const system = env.MCP_DOCTOR_SYSTEM_CHROMIUM === 'off' ? [] : CANDIDATES;
  for (const c of explicit ? [explicit] : system) {
    tried.push(c);
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      /* next */
    }
  }
  throw new BrowserMissing(tried);
}

export const PACKAGED = '@sparticuz/chromium';

/**
 * The Chromium binary an npm package ships (@sparticuz/chromium), unpacked into the temporary folder on first use,
 * or undefined when the package is not installed or cannot unpack. The unpacked file is used only when it is ours
 * and writable by nobody else (the temporary folder is shared).
 */
export async function packagedChromium(): Promise<string | undefined> {
  let path: string;
  let libDir: string | undefined;
  try {
    const mod = (await import(PACKAGED)) as { default: { executablePath(input?: string): Promise<string> }; inflate(file: string): Promise<string> };
    path = await mod.default.executablePath();
    // The NSS, NSPR and expat libraries it links against, which a bare machine may lack (its al2023 archive).
    libDir = join(await mod.inflate(join(dirname(fileURLToPath(import.meta.resolve(PACKAGED))), '..', 'bin', 'al2023.tar.br')), 'lib');
  } catch (e) {
    log.debug({ err: String(e) }, 'no packaged chromium');
    return undefined;
  }
  const uid = process.getuid?.();
  const ours = (f: string, file: boolean) => {
    const st = statSync(f);
    return (file ? st.isFile() : st.isDirectory()) && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  };
  try {
    if (!ours(path, true)) return undefined;
    accessSync(path, constants.X_OK);
    if (libDir && ours(libDir, false)) packagedLibs.set(path, libDir);
    return path;
  } catch {
    return undefined;
  }
}

/** Library folder of each packaged Chromium found (set as LD_LIBRARY_PATH of that browser only). */
const packagedLibs = new Map<string, string>();
export const packagedLibDir = (executable: string): string | undefined => packagedLibs.get(executable);

/** findChromium, then (unless MCP_DOCTOR_CHROMIUM names one) the packaged Chromium. */
export async function locateChromium(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    return findChromium(env);
  } catch (e) {
    if (!(e instanceof BrowserMissing) || env.MCP_DOCTOR_CHROMIUM) throw e;
    const packaged = await packagedChromium();
    if (packaged) return packaged;
    throw new BrowserMissing([...e.tried, PACKAGED]);
  }
}

export interface LaunchedBrowser {
  browser: Browser;
  executable: string;
  version: string;
  pid?: number;
  close(): Promise<void>;
}

const live = new Set<LaunchedBrowser & { profile: string }>();
let handlersInstalled = false;

function killNow(b: { pid?: number; profile: string }): void {
  if (b.pid) {
    for (const target of [-b.pid, b.pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  try {
    rmSync(b.profile, { recursive: true, force: true });
  } catch {
    /* best effort */
  }
}

function onSignal(sig: NodeJS.Signals): void {
  for (const b of live) killNow(b);
  live.clear();
  uninstall();
  // Nobody else handles this signal: end the process the way the signal would have.
  if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
}
const onSigint = () => onSignal('SIGINT');
const onSigterm = () => onSignal('SIGTERM');
const onExit = () => {
  for (const b of live) killNow(b);
};

function install(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  process.on('exit', onExit);
}
function uninstall(): void {
  if (!handlersInstalled || live.size) return;
  handlersInstalled = false;
  process.off('SIGINT', onSigint);
  process.off('SIGTERM', onSigterm);
  process.off('exit', onExit);
}

/** The pid of the browser process started with this argument (Linux /proc), or undefined elsewhere. */
function browserPid(arg: string): number | undefined {
  let dirs: string[];
  try {
    dirs = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  const found: number[] = [];
  for (const d of dirs) {
    try {
      const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (argv.includes(arg) && !argv.some((a) => a.startsWith('--type='))) found.push(Number(d));
    } catch {
      /* gone or not ours */
    }
  }
  return found.sort((a, b) => a - b)[0];
}

const DISABLED_FEATURES = [
  'AutofillServerCommunication',
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'CertificateTransparencyComponentUpdater',
  'DestroyProfileOnBrowserClose',
  'DialMediaRouteProvider',
  'HttpsFirstBalancedModeAutoEnable',
  'HttpsUpgrades',
  'InterestFeedContentSuggestions',
  'LensOverlay',
  'MediaRouter',
  'NetworkTimeServiceQuerying',
  'OptimizationHints',
  'PaintHolding',
  'PreconnectToSearch',
  'Translate',
];

export interface LaunchOptions {
  executable?: string;
  /** Port of a listener that refuses everything: the browser-wide proxy (the browser's own traffic). */
  blackholePort: number;
  timeoutMs?: number;
}

export async function launchChromium(opts: LaunchOptions): Promise<LaunchedBrowser> {
  const executable = opts.executable ?? (await locateChromium());
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'mcp-doctor-chromium-'));
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-extensions',
    '--disable-breakpad',
    '--disable-domain-reliability',
    '--no-pings',
    '--metrics-recording-only',
    '--enable-precise-memory-info',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    // Replaces Playwright's own list (the last --disable-features wins): its entries that matter here, plus the
    // browser services that would otherwise call out from a page's network context (autofill, translation).
    `--disable-features=${DISABLED_FEATURES.join(',')}`,
    `--proxy-server=http://127.0.0.1:${opts.blackholePort}`,
    '--proxy-bypass-list=<-loopback>',
  ];
  let browser: Browser;
  try {
    // Playwright gives the browser a fresh temporary profile (removed at close); our own HOME for the rest.
    // Playwright's own signal handling is off: ours closes the browser (see the top of this file).
    browser = await chromium.launch({
      executablePath: executable,
      headless: true,
      args,
      timeout: opts.timeoutMs ?? 30_000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      env: {
        HOME: profile,
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'en_US.UTF-8',
        TZ: 'UTC',
        ...(packagedLibs.has(executable) ? { LD_LIBRARY_PATH: packagedLibs.get(executable) } : {}),
      },
    });
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
  // The browser's main process (its process group leader), found by its unique proxy argument, for the group kill.
  const pid = browserPid(`--proxy-server=http://127.0.0.1:${opts.blackholePort}`);
  const entry = {
    browser,
    executable,
    version: browser.version(),
    pid,
    profile,
    close: async () => {
      if (!live.has(entry)) return;
      live.delete(entry);
      await within(browser.close(), 5000, undefined);
      if (entry.pid) await killTree(entry.pid);
      killNow(entry);
      uninstall();
      log.debug({ executable }, 'apps: browser closed');
    },
  };
  live.add(entry);
  install();
  return entry;
}
