/**
 * C-6 (source parts, JavaScript/TypeScript and Python) — the names that mark a logged value as a secret, and the
 * names of functions that mask one. Compared on the name lowercased with separators removed, so `apiKey`,
 * `api_key` and `API-KEY` are one name.
 */
const SECRET_ENDINGS = ['token', 'password', 'passwd', 'secret', 'apikey', 'authorization', 'cookie', 'cookies', 'privatekey', 'accesskey', 'credentials', 'setcookie'];
/** Names that end like a secret and are not one (pagination, progress and limit tokens). */
const NOT_SECRET = ['progresstoken', 'pagetoken', 'nexttoken', 'cancellationtoken', 'continuationtoken', 'synctoken', 'maxtoken'];

export const normName = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

export const isSecretName = (name: string): boolean => {
  const n = normName(name);
  return SECRET_ENDINGS.some((e) => n.endsWith(e)) && !NOT_SECRET.some((e) => n.endsWith(e));
};

/** Functions that return a masked form, a hint or a digest of a secret rather than the secret. */
export const MASKING = /mask|redact|obfuscat|censor|hide|anonymi[sz]|truncat|sanitiz|scrub|elide|fingerprint|hash|digest|preview|hint|last4|suffix|prefix/i;
