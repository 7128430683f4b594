/** The vocabulary of sensitive data shared by the static and dynamic parts of S-27. */

/** Words (from a camelCase / snake_case / kebab-case name) that name sensitive data. */
const SENSITIVE_WORDS: Record<string, string> = {
  password: 'password',
  passwd: 'password',
  pwd: 'password',
  passphrase: 'password',
  passcode: 'password',
  secret: 'secret',
  apikey: 'api_key',
  token: 'token',
  credential: 'credential',
  credentials: 'credential',
  otp: 'one_time_code',
  totp: 'one_time_code',
  mfa: 'one_time_code',
  cvv: 'card_number',
  cvc: 'card_number',
  iban: 'bank_account',
  ssn: 'ssn',
  diagnosis: 'health',
  medical: 'health',
  health: 'health',
};
/** Pairs of consecutive words. */
const SENSITIVE_PAIRS: Record<string, string> = {
  'api key': 'api_key',
  'access key': 'api_key',
  'private key': 'secret',
  'secret key': 'secret',
  'card number': 'card_number',
  'credit card': 'card_number',
  'account number': 'bank_account',
  'routing number': 'bank_account',
  'bank account': 'bank_account',
  'social security': 'ssn',
};
/** `maxTokens`, `tokenCount`: a number of tokens, not a credential. */
const TOKEN_COUNT = /^(max|min|num|count|limit|total|budget)$/;

/** Phrases in a title or description. */
const SENSITIVE_TEXT: [RegExp, string][] = [
  [/\b(?:password|passphrase|passcode)\b/i, 'password'],
  [/\b(?:api|access|secret|private)[ -]?key\b/i, 'api_key'],
  [/\b(?:access|auth|bearer|api|personal access|refresh) ?token\b/i, 'token'],
  [/\b(?:client )?secret\b/i, 'secret'],
  [/\b(?:credit|debit) card\b|\bcard number\b|\bCVV\b|\bCVC\b/i, 'card_number'],
  [/\bIBAN\b|\bbank account\b|\brouting number\b|\baccount number\b/i, 'bank_account'],
  [/\bsocial security number\b|\bSSN\b/, 'ssn'],
  [/\b(?:medical|health) (?:record|condition|history|information|data)\b|\bdiagnos[ei]s\b/i, 'health'],
  [/\b(?:one-time|2FA|MFA|verification) code\b/i, 'one_time_code'],
];

const words = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());

/** What sensitive data a field name asks for, if any. */
export function sensitiveName(name: string): string | undefined {
  const w = words(name);
  for (let i = 0; i < w.length; i++) {
    const pair = i + 1 < w.length ? `${w[i]} ${w[i + 1]}` : '';
    if (SENSITIVE_PAIRS[pair]) return SENSITIVE_PAIRS[pair];
    const hit = SENSITIVE_WORDS[w[i]!];
    if (!hit) continue;
    if (hit === 'token' && w.some((x) => TOKEN_COUNT.test(x))) continue;
    if (hit === 'health' && w.length > 1 && /^(check|status|endpoint|url)$/.test(w[i + 1] ?? '')) continue;
    return hit;
  }
  return undefined;
}

export function sensitiveText(text: string): string | undefined {
  for (const [re, what] of SENSITIVE_TEXT) if (re.test(text)) return what;
  return undefined;
}
