/** S-25: the scheme of a resource URI (shared by the TypeScript and the Python parts). */

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;

/** 'invalid' with the scheme written, 'none' when there is no scheme, undefined when it is fine. */
export function schemeProblem(uri: string): { kind: 'invalid' | 'none'; scheme: string } | undefined {
  const colon = uri.indexOf(':');
  const brace = uri.indexOf('{');
  if (colon <= 0 || (brace >= 0 && brace < colon)) return brace === 0 ? undefined : { kind: 'none', scheme: '' };
  const scheme = uri.slice(0, colon);
  return SCHEME.test(scheme) ? undefined : { kind: 'invalid', scheme };
}
