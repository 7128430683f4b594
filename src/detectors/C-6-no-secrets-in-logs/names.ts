/**
 * C-6 (source parts, JavaScript/TypeScript and Python) — the names that mark a logged value as a secret, and the
 * names of functions that mask one. Compared on the name lowercased with separators removed, so `apiKey`,
 * `api_key` and `API-KEY` are one name.
 */
const SECRET_ENDINGS = ['token', 'password', 'passwd', 'secret', 'apikey', 'authorization', 'cookie', 'cookies', 'privatekey', 'accesskey', 'credentials', 'setcookie',
  // Connection strings and database URLs carry the user and password of the database.
  'connectionstring', 'connstring', 'connstr', 'databaseurl', 'databaseuri', 'dburl', 'dburi', 'dsn', 'mongouri', 'mongourl', 'mongodburi', 'mongodburl', 'redisurl', 'postgresurl', 'postgresqlurl', 'pgurl', 'mysqlurl'];
/** Names that end like a secret and are not one (pagination, progress and limit tokens). */
const NOT_SECRET = ['progresstoken', 'pagetoken', 'nexttoken', 'cancellationtoken', 'continuationtoken', 'synctoken', 'maxtoken'];

export const normName = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

export const isSecretName = (name: string): boolean => {
  const n = normName(name);
  return SECRET_ENDINGS.some((e) => n.endsWith(e)) && !NOT_SECRET.some((e) => n.endsWith(e));
};

/** Functions that return a masked form, a hint or a digest of a secret rather than the secret. */
export const MASKING = /mask|redact|obfuscat|censor|hide|anonymi[sz]|truncat|sanitiz|scrub|elide|fingerprint|hash|digest|preview|hint|last4|suffix|prefix/i;

/**
 * Names of personal fields (the logging section of the MCP specification names personally identifying
 * information): e-mail addresses, client IP addresses, phone numbers. Compared like secret names.
 */
const PERSONAL_ENDINGS = ['email', 'emailaddress', 'ipaddress', 'clientip', 'remoteip', 'userip', 'remoteaddress', 'phonenumber', 'phone', 'mobilenumber'];
/** Exact personal names: `ip` alone (`req.ip`), never as an ending (`zip`, `skip`). */
const PERSONAL_EXACT = ['ip', 'ips', 'xforwardedfor'];
const NOT_PERSONAL = ['sendemail', 'hasemail', 'emailtemplate', 'isemail', 'validemail', 'emailenabled', 'emailphone'];

export const isPersonalName = (name: string): boolean => {
  const n = normName(name);
  if (NOT_PERSONAL.includes(n)) return false;
  // The machine's own address (`localIp`, `getLocalIpAddress()`, `serverIp`) names no person: it is the server's
  // endpoint, printed for the operator who started it, not a user's identifying data.
  if (/^(?:local|server|host|machine|own|my|lan|internal)(?:ip|ips|ipaddress|ipv4|ipv6|address)$/.test(n)) return false;
  return PERSONAL_EXACT.includes(n) || PERSONAL_ENDINGS.some((e) => n.endsWith(e));
};

/** Log calls of JavaScript/TypeScript source: console methods, logger methods, and the names a logger object goes by. */
export const CONSOLE_METHODS: ReadonlySet<string> = new Set(['log', 'info', 'warn', 'error', 'debug', 'trace']);
export const LOGGER_METHODS: ReadonlySet<string> = new Set(['info', 'warn', 'error', 'debug', 'trace', 'fatal', 'log']);
export const LOGGER_NAME = /^(?:log|logger|pino|winston|bunyan|consola|signale)$|Logger$/i;
/** The call that builds a logger library's instance: `winston.createLogger(…)`, `bunyan.createLogger(…)`, `pino(…)`. */
export const LOGGER_FACTORY = /(?:^|\.)(?:createLogger|pino)$/;
