/**
 * The registry of secret shapes X-6 looks for in source string literals and committed .env files.
 * Precision first: each shape is a documented, prefixed token format, so a match is almost never
 * anything but a credential. Values that say they are placeholders are skipped (see PLACEHOLDER).
 * Every id is a `kind` of the hardcoded-secret message (select keys in i18n): add one there when adding
 * one here.
 */

export interface SecretShape {
  /** Stable id, used as the message's `kind`. */
  id: string;
  re: RegExp;
  /** Where the format is documented. */
  doc: string;
}

export const SECRET_SHAPES: readonly SecretShape[] = [
  {
    id: 'aws_access_key',
    // AKIA = long-term key of an IAM user, ASIA = temporary key from STS; 16 more upper-case letters/digits.
    re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
    doc: 'AWS IAM, "Understanding unique ID prefixes"',
  },
  {
    id: 'github_token',
    // Classic personal (ghp_), OAuth (gho_), user-to-server (ghu_), server-to-server (ghs_), refresh (ghr_).
    re: /\bgh[pousr]_[A-Za-z0-9]{36}\b/,
    doc: 'GitHub Docs, "About authentication to GitHub", GitHub\'s token formats',
  },
  {
    id: 'github_token',
    // Fine-grained personal access token: github_pat_<22>_<59>.
    re: /\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b/,
    doc: 'GitHub Docs, fine-grained personal access tokens',
  },
  {
    id: 'slack_token',
    // Bot (xoxb-), user (xoxp-), app-level (xoxa-), refresh (xoxr-): numeric workspace/user ids then a secret part.
    re: /\bxox[abpr]-[0-9]{6,}-[0-9A-Za-z-]{8,}/,
    doc: 'Slack API, "Token types"',
  },
  {
    id: 'stripe_live_key',
    // Live secret (sk_live_) and restricted (rk_live_) keys; test-mode keys (sk_test_) are not secrets of production.
    re: /\b[rs]k_live_[0-9A-Za-z]{24,}\b/,
    doc: 'Stripe Docs, "API keys"',
  },
  {
    id: 'google_api_key',
    re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/,
    doc: 'Google Cloud, "Manage API keys"',
  },
  {
    id: 'openai_key',
    // Project, service-account and legacy keys all carry the base64 of "OpenAI" (T3BlbkFJ) in the middle.
    re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}/,
    doc: 'OpenAI platform, API keys',
  },
  {
    id: 'anthropic_key',
    re: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}/,
    doc: 'Anthropic Console, API keys',
  },
  {
    id: 'private_key',
    // The header alone (code that recognises a PEM) is not a key: some base64 body must follow.
    re: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----(?:\\[rn]|\s)*[A-Za-z0-9+/=]{40,}/,
    doc: 'RFC 7468 (PEM), OpenSSH and OpenPGP armour headers',
  },
  {
    id: 'jwt',
    // header.payload.signature, both JSON parts starting with {" (eyJ in base64url).
    re: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}/,
    doc: 'RFC 7519 (JSON Web Token)',
  },
];

/** Words that mark a value as a placeholder or an example, never a live secret. */
export const PLACEHOLDER =
  /change[-_ ]?me|example|placeholder|dummy|sample|fake|mock|redacted|replace[-_ ]?me|insert[-_ ]?|your[-_ ]?|xxxx|\*{3}|<[^>]*>|\$\{|\{\{|todo|not[-_ ]?a[-_ ]?real|0{8}|12345678|abcdefgh/i;

/**
 * Names that hold a secret, compared lower-cased without `_`/`-` and at the END of the name: GITHUB_TOKEN,
 * apiKey, db_password, clientSecret. `tokenUrl`, `maxTokens` or `passwordField` do not end with one.
 */
export const SECRET_NAME_ENDINGS = [
  'password',
  'passwd',
  'secret',
  'token',
  'apikey',
  'accesskey',
  'secretkey',
  'privatekey',
  'authkey',
  'credential',
  'credentials',
  'authorization',
];
/** Token-named things that are not credentials in an MCP server. */
export const NOT_SECRET_NAMES = ['progresstoken', 'pagetoken', 'nexttoken', 'cancellationtoken', 'continuationtoken', 'synctoken'];

export const normName = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export function isSecretName(name: string): boolean {
  const n = normName(name);
  return SECRET_NAME_ENDINGS.some((e) => n.endsWith(e)) && !NOT_SECRET_NAMES.some((e) => n.endsWith(e));
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Minimum length and entropy of a value assigned to a secret name. */
export const GENERIC_MIN_LENGTH = 16;
export const GENERIC_MIN_ENTROPY = 3.5;

/**
 * A value assigned to a secret-named variable, property or .env key that looks like a real secret: 16+
 * characters without spaces (after an optional `Bearer `/`Basic ` scheme), letters and digits both
 * present, high entropy, not a URL, not a placeholder.
 */
/** A header value without its authorization scheme (`Bearer abc…` → `abc…`). */
export const withoutScheme = (v: string): string => v.replace(/^(?:Bearer|Basic|token)\s+/i, '');

export function looksLikeSecretValue(raw: string): boolean {
  const v = withoutScheme(raw);
  if (v.length < GENERIC_MIN_LENGTH || /\s/.test(v)) return false;
  if (v.includes('://') || PLACEHOLDER.test(v)) return false;
  if (!/[A-Za-z]/.test(v) || !/[0-9]/.test(v)) return false;
  return entropy(v) >= GENERIC_MIN_ENTROPY;
}

/**
 * The fixed part every shape's match contains: a text without any of them matches no shape, so one scan
 * replaces ten. Keep it in step with SECRET_SHAPES (a test checks each shape's examples against it).
 */
export const SHAPE_MARKERS = /AKIA|ASIA|gh[pousr]_|github_pat_|xox[abpr]-|[rs]k_live_|AIza|sk-|-----BEGIN|eyJ/;

/** The first secret shape found in a text (a whole literal or .env value); a text that says it is a placeholder is skipped. */
export function matchShape(text: string): { id: string; match: string } | undefined {
  if (!SHAPE_MARKERS.test(text)) return undefined;
  for (const s of SECRET_SHAPES) {
    const m = s.re.exec(text);
    if (m && !PLACEHOLDER.test(text)) return { id: s.id, match: m[0] };
  }
  return undefined;
}

/** Evidence for a secret: its first 4 characters and an ellipsis, never the value. */
export const redact = (s: string): string => `${s.slice(0, 4)}…`;
