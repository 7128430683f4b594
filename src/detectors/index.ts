import type { Detector } from '../engine/detector.js';
import c1 from './C-1-bilingual/index.js';
import c2 from './C-2-naming/index.js';
import c3 from './C-3-semver-changelog/index.js';
import c4 from './C-4-typed-schemas/index.js';
import c5 from './C-5-eval-suite/index.js';
import c6 from './C-6-no-secrets-in-logs/index.js';
import c7 from './C-7-obtain-pin-verify/index.js';
import c7gate from './C-7-obtain-pin-verify/gate.js';
import c8 from './C-8-declared-authority/index.js';
import c9 from './C-9-declared-verb/index.js';
import c10 from './C-10-declared-search-mechanism/index.js';
import c11 from './C-11-bounded-pagination/index.js';
import c12 from './C-12-no-duplicate-tools/index.js';
import c13 from './C-13-context-ceiling/index.js';
import c15 from './C-15-tool-annotations/index.js';
import c16 from './C-16-untrusted-tool-output/index.js';
import c17 from './C-17-supply-chain/index.js';
import c17gate from './C-17-supply-chain/gate.js';
import c18 from './C-18-structure-manifest/index.js';
import c19 from './C-19-served-descriptions/index.js';
import c20 from './C-20-derived-locales/index.js';
import c21 from './C-21-measured-disclosure/index.js';
import s1 from './S-1-stdio-transport/index.js';
import s2 from './S-2-result-type/index.js';
import s3 from './S-3-cacheable-results/index.js';
import s4 from './S-4-server-discover/index.js';
import s5 from './S-5-oauth-resource-server/index.js';
import s6 from './S-6-cache-coherence/index.js';
import s7 from './S-7-observable-version/index.js';
import s8 from './S-8-no-token-passthrough/index.js';
import s9 from './S-9-proxy-consent/index.js';
import s10 from './S-10-ssrf-guard/index.js';
import s11 from './S-11-result-contract/index.js';
import s12 from './S-12-list-pagination/index.js';
import s13 from './S-13-progress-cancellation/index.js';
import s14 from './S-14-version-negotiation/index.js';
import s15 from './S-15-completion-safety/index.js';
import s16 from './S-16-local-footprint/index.js';
import s17 from './S-17-forward-compatible-auth/index.js';
import s18 from './S-18-session-integrity/index.js';
import s19 from './S-19-authorization-url-validation/index.js';
import s20 from './S-20-scope-minimization/index.js';
import s21 from './S-21-proxy-sandbox/index.js';
import s22 from './S-22-origin-validation/index.js';
import s23 from './S-23-protocol-version-header/index.js';
import s24 from './S-24-rate-limiting/index.js';
import s25 from './S-25-resource-discipline/index.js';
import s26 from './S-26-list-changed-parity/index.js';
import s27 from './S-27-elicitation-floor/index.js';
import a1 from './A-1-text-fallback/index.js';
import a2 from './A-2-single-file-bundle/index.js';
import a3 from './A-3-sandbox/index.js';
import a4 from './A-4-wcag-aa/index.js';
import a4gate from './A-4-wcag-aa/gate.js';
import a5 from './A-5-performance-budgets/index.js';
import a6 from './A-6-ga-ui-key/index.js';
import a6gate from './A-6-ga-ui-key/gate.js';
import a7 from './A-7-destructive-consent/index.js';
import e1 from './E-1-reverse-dns-identifier/index.js';
import e2 from './E-2-graceful-degradation/index.js';
import e3 from './E-3-single-type/index.js';
import e4 from './E-4-declared-hooks/index.js';
import e5 from './E-5-no-global-effects/index.js';
import e6 from './E-6-hook-timeouts/index.js';
import x1 from './X-1-tool-poisoning/index.js';
import x2 from './X-2-cross-server-shadowing/index.js';
import x3 from './X-3-definition-drift/index.js';
import x4 from './X-4-command-execution/index.js';
import x5 from './X-5-unconfined-file-access/index.js';
import x6 from './X-6-secret-exposure/index.js';
import c14 from './C-14-catalogue-registration/index.js';
import c22 from './C-22-backed-test-ratio/index.js';
import x7 from './X-7-stdout-hygiene/index.js';
import x8 from './X-8-lethal-trifecta/index.js';
import x9 from './X-9-header-body-mirroring/index.js';
import x10 from './X-10-stateless-transport/index.js';
import x11 from './X-11-deterministic-catalog/index.js';

/**
 * The explicit registry, sorted by rule id. One entry per detector folder; a test compares it with the
 * folders on disk and with the catalog. Rules without a folder here have no detector yet and are reported
 * as could-not-judge ("no detector yet"), never silently missing.
 */
export const folders: readonly { folder: string; detectors: readonly Detector[] }[] = [
  { folder: 'C-1-bilingual', detectors: c1 },
  { folder: 'C-2-naming', detectors: c2 },
  { folder: 'C-3-semver-changelog', detectors: c3 },
  { folder: 'C-4-typed-schemas', detectors: c4 },
  { folder: 'C-5-eval-suite', detectors: c5 },
  { folder: 'C-6-no-secrets-in-logs', detectors: c6 },
  { folder: 'C-7-obtain-pin-verify', detectors: [...c7, ...c7gate] },
  { folder: 'C-8-declared-authority', detectors: c8 },
  { folder: 'C-9-declared-verb', detectors: c9 },
  { folder: 'C-10-declared-search-mechanism', detectors: c10 },
  { folder: 'C-11-bounded-pagination', detectors: c11 },
  { folder: 'C-12-no-duplicate-tools', detectors: c12 },
  { folder: 'C-13-context-ceiling', detectors: c13 },
  { folder: 'C-14-catalogue-registration', detectors: c14 },
  { folder: 'C-15-tool-annotations', detectors: c15 },
  { folder: 'C-16-untrusted-tool-output', detectors: c16 },
  { folder: 'C-17-supply-chain', detectors: [...c17, ...c17gate] },
  { folder: 'C-18-structure-manifest', detectors: c18 },
  { folder: 'C-19-served-descriptions', detectors: c19 },
  { folder: 'C-20-derived-locales', detectors: c20 },
  { folder: 'C-21-measured-disclosure', detectors: c21 },
  { folder: 'C-22-backed-test-ratio', detectors: c22 },
  { folder: 'S-1-stdio-transport', detectors: s1 },
  { folder: 'S-2-result-type', detectors: s2 },
  { folder: 'S-3-cacheable-results', detectors: s3 },
  { folder: 'S-4-server-discover', detectors: s4 },
  { folder: 'S-5-oauth-resource-server', detectors: s5 },
  { folder: 'S-6-cache-coherence', detectors: s6 },
  { folder: 'S-7-observable-version', detectors: s7 },
  { folder: 'S-8-no-token-passthrough', detectors: s8 },
  { folder: 'S-9-proxy-consent', detectors: s9 },
  { folder: 'S-10-ssrf-guard', detectors: s10 },
  { folder: 'S-11-result-contract', detectors: s11 },
  { folder: 'S-12-list-pagination', detectors: s12 },
  { folder: 'S-13-progress-cancellation', detectors: s13 },
  { folder: 'S-14-version-negotiation', detectors: s14 },
  { folder: 'S-15-completion-safety', detectors: s15 },
  { folder: 'S-16-local-footprint', detectors: s16 },
  { folder: 'S-17-forward-compatible-auth', detectors: s17 },
  { folder: 'S-18-session-integrity', detectors: s18 },
  { folder: 'S-19-authorization-url-validation', detectors: s19 },
  { folder: 'S-20-scope-minimization', detectors: s20 },
  { folder: 'S-21-proxy-sandbox', detectors: s21 },
  { folder: 'S-22-origin-validation', detectors: s22 },
  { folder: 'S-23-protocol-version-header', detectors: s23 },
  { folder: 'S-24-rate-limiting', detectors: s24 },
  { folder: 'S-25-resource-discipline', detectors: s25 },
  { folder: 'S-26-list-changed-parity', detectors: s26 },
  { folder: 'S-27-elicitation-floor', detectors: s27 },
  { folder: 'A-1-text-fallback', detectors: a1 },
  { folder: 'A-2-single-file-bundle', detectors: a2 },
  { folder: 'A-3-sandbox', detectors: a3 },
  { folder: 'A-4-wcag-aa', detectors: [...a4, ...a4gate] },
  { folder: 'A-5-performance-budgets', detectors: a5 },
  { folder: 'A-6-ga-ui-key', detectors: [...a6, ...a6gate] },
  { folder: 'A-7-destructive-consent', detectors: a7 },
  { folder: 'E-1-reverse-dns-identifier', detectors: e1 },
  { folder: 'E-2-graceful-degradation', detectors: e2 },
  { folder: 'E-3-single-type', detectors: e3 },
  { folder: 'E-4-declared-hooks', detectors: e4 },
  { folder: 'E-5-no-global-effects', detectors: e5 },
  { folder: 'E-6-hook-timeouts', detectors: e6 },
  { folder: 'X-1-tool-poisoning', detectors: x1 },
  { folder: 'X-2-cross-server-shadowing', detectors: x2 },
  { folder: 'X-3-definition-drift', detectors: x3 },
  { folder: 'X-4-command-execution', detectors: x4 },
  { folder: 'X-5-unconfined-file-access', detectors: x5 },
  { folder: 'X-6-secret-exposure', detectors: x6 },
  { folder: 'X-7-stdout-hygiene', detectors: x7 },
  { folder: 'X-8-lethal-trifecta', detectors: x8 },
  { folder: 'X-9-header-body-mirroring', detectors: x9 },
  { folder: 'X-10-stateless-transport', detectors: x10 },
  { folder: 'X-11-deterministic-catalog', detectors: x11 },
];

export const registry: readonly Detector[] = folders.flatMap((f) => f.detectors);
