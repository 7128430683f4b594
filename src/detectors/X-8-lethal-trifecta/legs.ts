/**
 * X-8 — the reviewed classification data of the lethal trifecta. Every tool is sorted into zero or more of
 * three legs:
 *
 *  - private: it reads the user's files, mail, databases, documents, records or accounts;
 *  - untrusted: it returns content third parties can write (web pages, incoming mail, issues, comments,
 *    posts, search results);
 *  - outbound: it can send information to a destination chosen at call time (a message, a post, a public
 *    comment, a request to an argument-supplied URL, a write to a shared space).
 *
 * The rules are data, each with a stable id that findings and the scan summary show, and each tested on
 * tool definitions shaped like real servers' (legs.test.ts). A rule reads one of:
 *
 *  - `name`: the words of the tool name (split on separators and camelCase, lower-cased). `verbs` are
 *    matched against the name's verb — its first word that belongs to the verb vocabulary (VERBS), so
 *    `get_post` reads posts while `slack_post_message` posts one — and `objects` against its other words;
 *    `words` matches any word; `names` the whole name.
 *  - `properties`: the top-level property names of the input schema (exact, or by `suffix`).
 *  - `annotations`: explicit annotation values (an absent hint never counts: the protocol's defaults say
 *    nothing about a tool).
 *  - `text`: a phrase of the title or description (English and French).
 *
 * A rule may hold several of these (and `product`): all must hold.
 */

export const LEGS = ['private', 'untrusted', 'outbound'] as const;
export type Leg = (typeof LEGS)[number];

export interface LegRule {
  id: string;
  legs: readonly Leg[];
  name?: { verbs?: readonly string[]; objects?: readonly string[]; words?: readonly string[]; names?: readonly string[] };
  /** The tool must also belong to one of these products (see `productOf`). */
  product?: readonly string[];
  /** With `product`: how its title or description names the product (default: the trackers' and wikis' names). */
  prose?: RegExp;
  properties?: { exact?: readonly string[]; suffix?: readonly string[] };
  annotations?: { readOnlyHint?: boolean; openWorldHint?: boolean };
  text?: RegExp;
  /** The rule does not hold when a word of the tool name is one of these (`delete_download` reads nothing). */
  notWords?: readonly string[];
  /** The rule does not hold when the title or description says this (a request handed to the server's own tools). */
  notText?: RegExp;
  /** The rule does not hold for a tool whose input is a local file (see requestFromFile). */
  notFileInput?: boolean;
  /** The rule does not hold for a lookup that filters a collection by an address (`findJobsWithScmUrl`: see filtersByAddress). */
  notFilter?: boolean;
  /** The rule does not hold for a message sent to the operator's configured destination (see toFixedDestination). */
  notFixedDestination?: boolean;
  /** A further condition read over the whole tool view (its schema facts included). */
  holds?: (t: ToolView, words: readonly string[]) => boolean;
}

/** Verbs that read or look something up. */
const READ = ['read', 'get', 'list', 'search', 'find', 'open', 'view', 'show', 'cat', 'fetch', 'retrieve', 'load', 'query', 'lookup', 'browse', 'describe', 'export', 'grep', 'glob', 'tree', 'stat', 'check', 'inspect', 'summarize', 'print', 'dump'];
/** Verbs that send information somewhere. */
const SEND = ['send', 'post', 'publish', 'reply', 'respond', 'forward', 'share', 'notify', 'tweet', 'upload', 'submit', 'broadcast', 'email', 'mail', 'sms', 'dm', 'invite', 'message', 'ping', 'webhook', 'announce'];
/** Verbs that create or change something. */
const WRITE = ['create', 'add', 'write', 'update', 'edit', 'comment', 'make', 'new', 'put', 'append', 'set', 'insert', 'save', 'modify', 'patch', 'delete', 'remove', 'move', 'rename', 'copy', 'merge', 'close', 'assign', 'attach', 'download', 'execute', 'run', 'exec', 'call', 'invoke', 'scrape', 'crawl', 'navigate', 'visit', 'goto', 'click', 'type', 'fill', 'press', 'hover', 'select', 'take', 'capture', 'extract', 'convert', 'analyze', 'ask'];

/** The verb vocabulary: the first name word found here is the name's verb. */
export const VERBS: ReadonlySet<string> = new Set([...READ, ...SEND, ...WRITE]);

const FILES = ['file', 'files', 'dir', 'dirs', 'directory', 'directories', 'folder', 'folders', 'filesystem', 'fs', 'path', 'paths'];
const MAIL = ['email', 'emails', 'mail', 'mails', 'mailbox', 'inbox', 'gmail', 'outlook', 'imap'];
const DATABASE = ['sql', 'db', 'database', 'databases', 'table', 'tables', 'record', 'records', 'row', 'rows', 'collection', 'collections', 'query', 'queries', 'schema', 'schemas', 'postgres', 'mysql', 'sqlite', 'mongo', 'mongodb', 'redis', 'bigquery', 'snowflake'];
const PERSONAL = [
  'document', 'documents', 'doc', 'docs', 'note', 'notes', 'drive', 'calendar', 'calendars', 'event', 'events', 'contact', 'contacts',
  'customer', 'customers', 'account', 'accounts', 'payment', 'payments', 'invoice', 'invoices', 'order', 'orders', 'transaction', 'transactions',
  'secret', 'secrets', 'credential', 'credentials', 'password', 'passwords', 'env', 'environment', 'clipboard', 'history', 'memory', 'memories',
  'notebook', 'notebooks', 'spreadsheet', 'spreadsheets', 'sheet', 'sheets', 'workspace', 'vault', 'keychain', 'profile', 'profiles', 'user', 'users',
];
const WEB = ['url', 'urls', 'webpage', 'webpages', 'website', 'websites', 'html', 'link', 'links', 'http', 'https', 'internet'];
const SEARCH_ENGINES = ['web', 'internet', 'online', 'news', 'google', 'bing', 'brave', 'duckduckgo', 'ddg', 'tavily', 'exa', 'serp', 'serper', 'perplexity', 'searxng', 'kagi'];
const THIRD_PARTY_POSTS = [
  'issue', 'issues', 'comment', 'comments', 'ticket', 'tickets', 'pull', 'pr', 'prs', 'review', 'reviews', 'discussion', 'discussions', 'post', 'posts',
  'tweet', 'tweets', 'timeline', 'message', 'messages', 'chat', 'chats', 'channel', 'channels', 'thread', 'threads', 'conversation', 'conversations',
  'transcript', 'transcripts', 'video', 'videos', 'youtube', 'reddit', 'notification', 'notifications', 'mention', 'mentions', 'article', 'articles',
  'story', 'stories', 'forum', 'inbox', 'feed', 'feeds', 'rss',
];
const PUBLIC_CONTENT = [
  'issue', 'issues', 'comment', 'comments', 'pull', 'pr', 'discussion', 'post', 'gist', 'ticket', 'message', 'page', 'pages', 'document', 'doc',
  'wiki', 'release', 'review', 'tweet', 'status', 'spreadsheet', 'sheet', 'event', 'invite', 'draft', 'webhook', 'reaction', 'reply',
  'posts', 'tickets', 'messages', 'replies', 'reactions', 'drafts', 'worklog',
];
/**
 * Trackers, wikis, help desks and shared workspaces an organisation keeps its own records in. What their tools
 * read (issues, tickets, pages, comments) is at once the organisation's private data, read under the user's
 * account, and content third parties write (colleagues, customers filing tickets, anyone who can comment).
 */
export const WORKSPACE_PRODUCTS = [
  'jira', 'confluence', 'atlassian', 'notion', 'linear', 'asana', 'trello', 'clickup', 'youtrack', 'redmine', 'zendesk', 'freshdesk',
  'freshservice', 'servicenow', 'intercom', 'helpscout', 'sharepoint', 'onedrive', 'airtable', 'basecamp', 'wrike',
];
/** The records of such products (and the product word itself: `jira_search`, `notion_retrieve`). */
const WORKSPACE_RECORDS = [
  'issue', 'issues', 'ticket', 'tickets', 'page', 'pages', 'comment', 'comments', 'project', 'projects', 'space', 'spaces', 'board', 'boards',
  'sprint', 'sprints', 'epic', 'epics', 'task', 'tasks', 'database', 'databases', 'block', 'blocks', 'worklog', 'worklogs', 'attachment', 'attachments',
  'wiki', 'article', 'articles', 'conversation', 'conversations', 'story', 'stories', 'item', 'items', 'card', 'cards', 'content', 'children',
  'request', 'requests', 'incident', 'incidents', 'changelog', 'history', 'transitions', 'fields', ...WORKSPACE_PRODUCTS,
];
/**
 * Calendars. What a calendar's read tools return holds entries other people write (invitations, meetings, their
 * titles, descriptions and notes), in the user's own calendar: private data and untrusted content at once.
 */
const CALENDAR_PRODUCTS = ['calendar', 'calendars', 'gcal', 'caldav', 'ical', 'icalendar', 'ics', 'agenda'];
const CALENDAR_PROSE = /\b(?:calendars?|calendriers?|agendas?|CalDAV)\b/i;
const CALENDAR_ENTRIES = ['event', 'events', 'invitation', 'invitations', 'invite', 'invites', 'meeting', 'meetings', 'appointment', 'appointments', 'agenda'];
/** Arguments naming the people a calendar entry is sent to: the invitation carries its text to addresses chosen at call time. */
const INVITEE_ARGS = ['attendees', 'attendee', 'attendee_emails', 'invitees', 'invitee', 'guests', 'guest_emails', 'add_attendees'];
/** Name words of a tool that creates, changes or sends something (an invitation goes out when an entry is written). */
const WRITES_OR_SENDS = ['create', 'add', 'new', 'make', 'insert', 'update', 'edit', 'modify', 'patch', 'put', 'set', 'move', 'send', 'invite', 'schedule', 'reschedule', 'book', 'quick'];

/**
 * Remote shells. A command chosen at call time and run on a host of the user's (over SSH, in a container or a pod)
 * reads whatever that host holds (private data), returns output that text others wrote can fill (logs, files,
 * pages it fetches: untrusted content), and can send anything anywhere (`curl -d @file https://…`): the three legs
 * in one tool. Only a tool that takes the command itself is read so: fixed operations (`get_uptime`) are not.
 */
const COMMAND_ARGS = ['command', 'commands', 'cmd', 'script', 'shell_command', 'remote_command', 'command_line'];
const REMOTE_SHELLS = ['ssh', 'sshd', 'sftp', 'scp'];
const REMOTE_PROSE = /\b(?:SSH|remote\s+(?:hosts?|servers?|machines?|systems?|shells?)|(?:hôtes?|serveurs?|machines?)\s+distante?s?)\b/i;
const CONTAINERS = ['docker', 'container', 'containers', 'pod', 'pods', 'kubectl', 'kubernetes', 'k8s'];
const CONTAINER_PROSE = /\b(?:(?:in|inside)\s+(?:an?|the)\s+(?:running\s+)?(?:container|pod)|Kubernetes|Docker)\b/i;

/**
 * Browsers driven through an extension installed in the user's own browser (a bridge: the server listens on a local
 * WebSocket the extension connects to). The pages it opens, reads and clicks through carry the user's profile: saved
 * logins, cookies, open tabs. Browsing there reads the user's accounts (private data), as browsing under saved logins does.
 * The static half marks the server's context with EXTENSION_BRIDGE when its source holds such a bridge.
 */
export const EXTENSION_BRIDGE = 'browser-extension';
const BROWSER_ACTIONS = ['navigate', 'goto', 'click', 'type', 'snapshot', 'screenshot', 'tab', 'tabs', 'hover', 'scroll', 'fill', 'press', 'drag', 'browser'];
export const EXTENSION_PROSE = /\b(?:(?:browser|chrome|firefox|edge)\s+extension|extension\s+(?:running\s+|installed\s+)?in\s+(?:your|the\s+user['’]s)\s+(?:own\s+)?(?:browser|chrome))\b/i;

/**
 * The user's account with a service, what its API key opens: the credit balance, quota, subscription and billing of a
 * scraping, search or AI API (`get_credits`, `check_quota`). Read through the key, it is the account's own data
 * (private), like `get_me`. The name alone is not enough ("usage" is also a usage example or help text, a "quota" a
 * local cache's): the description must speak of the account (ACCOUNT_PROSE, a credit balance, billing, your
 * account/plan/subscription) or of the API key it is read through.
 */
const ACCOUNT_DATA = ['credits', 'credit', 'balance', 'quota', 'quotas', 'subscription', 'billing', 'invoices'];
const ACCOUNT_PROSE = /\b(?:check|checks|get|gets|show|shows|return|returns|view|see|retrieve|retrieves|read|reads|list|lists)\s+(?:your|the\s+user['’]s)\s+(?:[\w'’-]+\s+){0,3}(?:credits?|balance|usage|quotas?|subscription|billing)\b/i;
// The words between may be possessive: "your team's credit usage" (`[\w'’-]`).
const ACCOUNT_CONTEXT = new RegExp(
  `${ACCOUNT_PROSE.source}|\\b(?:credits?\\s+balance|billing|remaining\\s+(?:[\\w-]+\\s+)?(?:credits?|quota)|(?:your|the\\s+user['’]s)\\s+(?:[\\w'’-]+\\s+)?(?:account|plan|subscription)|API[\\s_-]?keys?)\\b`,
  'i',
);

/**
 * A local file the caller names by path, read by the tool (parsed, scraped, uploaded to the service): the user's files
 * (private), what the static half reads as a file read at an argument path (static.ts 'reads-argument-path'). The
 * served schema shows only the argument's name, so its description must say the file is read from the local disk: a
 * path the tool writes to (`save_path`, "saves the screenshot to a local file") is not read, and "from the local disk"
 * counts only after a reading verb of the same clause ("Delete a downloaded video from the local disk" reads nothing).
 */
const LOCAL_PATH_ARGS = ['file_path', 'file_paths', 'filepath', 'filepaths', 'local_path', 'local_paths', 'local_file', 'local_files', 'input_path', 'input_file', 'source_path', 'path', 'paths', 'file', 'files'];
/** A tool that deletes the file at the path reads nothing of it ("Delete a downloaded video from the local disk"). */
const REMOVES = ['delete', 'remove', 'clear', 'purge', 'erase', 'unlink', 'rm', 'del', 'wipe', 'trash'];
const LOCAL_FILE_READ = /\b(?:reads?|loads?|pars(?:e|es)|uploads?|opens?|scrapes?|extracts?|converts?|ingests?|imports?|sends?|submits?)\s+(?:(?:a|an|the|any|your|one\s+or\s+more)\s+)?local\s+(?:files?|documents?|PDFs?|images?|paths?)\b|\b(?:reads?|reading|loads?|loading|pars(?:e|es|ing)|uploads?|uploading|opens?|scrapes?|extracts?|converts?|ingests?|imports?|sends?|submits?|gets?|fetch(?:es)?|retrieves?|process(?:es)?|transcribes?|analy[sz]es?)\b[^.;:!?\n]*?\bfrom\s+(?:(?:a|the|your)\s+)?(?:local\s+(?:files?|paths?|disk|file\s*system|machine)|(?:local\s+)?file\s*system)\b|(?<!\p{L})(?:lit|charge|analyse|envoie|téléverse)\s+(?:un|une|le|la|les|des)\s+fichiers?\s+(?:locaux|local)(?!\p{L})/iu;

/**
 * A request that goes to the server's own tools or handlers ("dispatches the request to the matching tool"), not out
 * over the network: a batch or replay tool (`execute_request` over a request file) calls this server's handlers. The
 * target must be tools, or handlers said to be the server's own ("to this server's handlers"): a bare "routes it to the
 * appropriate handler" is also what an API gateway does. Read only when nothing says HTTP (HTTP_SENSE, see ruleMatches).
 */
const DISPATCH_TO_OWN_TOOLS = /\b(?:dispatch(?:es|ed|ing)?|rout(?:e|es|ed|ing)|forward(?:s|ed|ing)?|hand(?:s|ed|ing)?|pass(?:es|ed|ing)?|delegat(?:e|es|ed|ing))\b[^.;:!?\n]{0,60}?\bto\s+(?:the\s+|this\s+|its\s+|our\s+)?(?:(?:own\s+|matching\s+|appropriate\s+|corresponding\s+|registered\s+|other\s+|internal\s+|local\s+)*(?:MCP\s+)?tools?(?:\s+handlers?)?|(?:server['’]s\s+|server\s+|own\s+)(?:own\s+|matching\s+|appropriate\s+|corresponding\s+|registered\s+|other\s+|internal\s+|local\s+)*(?:MCP\s+)?(?:tools?|handlers?|tool\s+handlers?))\b/i;
/** What says a request is an HTTP one: the protocol, an address, a method, an API ("a request to the Acme API"). */
const HTTP_SENSE = /\b(?:HTTPS?|URLs?|URIs?|endpoints?|REST(?:ful)?|APIs?|web|webhooks?|headers?|curl)\b|\b(?:GET|POST|PUT|PATCH|DELETE)\b/i;
/**
 * Arguments that name a file, not any path: `file`, `…_file`, `file_path`, `filePath`, `filename`. A bare `path` or
 * `api_path` is also the path of an API request (`make_request({ path })`), so it says nothing of a local file.
 */
const FILE_INPUT = (p: string): boolean => /^(?:file|files|filename|filenames)$|_files?$|(?:^|_)file_?(?:path|name)s?$/.test(p);
/** Arguments naming an address (what an HTTP request tool takes). */
const URL_ARGS = ['url', 'urls', 'uri', 'href', 'endpoint', 'host', 'hostname', 'base_url', 'method', 'headers'];
/**
 * A "request" read from a local file the caller names (`execute_request({ request_file })`), with nothing that says
 * HTTP: no URL, endpoint, method or header argument, and a title and description that name no HTTP, URL, endpoint or
 * method. Such a request is a record the tool reads (a saved call of the server's own tools), not an outbound request.
 */
function requestFromFile(t: ToolView): boolean {
  const props = (t.properties ?? []).map(normProp);
  if (!props.some(FILE_INPUT)) return false;
  if (props.some((p) => URL_ARGS.includes(p) || /_(?:url|uri|endpoint)s?$/.test(p))) return false;
  return ![t.title, t.description].some((s) => typeof s === 'string' && HTTP_SENSE.test(s));
}

/** What a vendor delivers its events to: a webhook, a callback (a notification only with a URL argument, see deliversToUrl). */
const DELIVERY_OBJECTS = ['webhook', 'webhooks', 'hook', 'hooks', 'notification', 'notifications', 'callback', 'callbacks'];
/** Arguments that carry a URL by their name. A bare `address` or `destination` is as often a postal or travel one. */
const DELIVERY_URL_ARGS = ['url', 'target_url', 'endpoint', 'uri'];
const DELIVERY_URL_SUFFIXES = ['_url', '_uri', '_endpoint'];
/** A callback or hook said to be local (a local port, a git hook in the local repository) goes nowhere outside. */
const LOCAL_DESTINATION = /\b(?:local(?:host)?|loopback|127\.0\.0\.1)\b/i;

/**
 * Whether a tool sets where the vendor delivers events: its name says webhook, hook or callback (or notification),
 * and it takes a URL-typed argument, by name (`url`, `target_url`, `endpoint`, `uri`, `…_url`) or by its served
 * schema (`format: uri`, or a sibling `type` enum offering `url`: see schemaFacts). A settings or preferences tool
 * (`update_notification_settings({ enabled, address })`) has no such argument: it switches something on or off. A
 * callback described as local (`set_callback({ uri })`, "the local callback port") goes nowhere outside.
 */
function deliversToUrl(t: ToolView, words: readonly string[]): boolean {
  const props = (t.properties ?? []).map(normProp);
  const urlArg = props.some((p) => DELIVERY_URL_ARGS.includes(p) || DELIVERY_URL_SUFFIXES.some((s) => p.endsWith(s))) || (t.urlArgs ?? []).length > 0;
  if (!urlArg) return false;
  if (!words.some((w) => DELIVERY_OBJECTS.includes(w))) return false;
  return ![t.title, t.description].some((s) => typeof s === 'string' && LOCAL_DESTINATION.test(s));
}

/**
 * Pipelines and monitoring: CI/CD servers (builds, jobs, pipelines, workflow runs) and observability back ends (logs,
 * alerts, incidents). Their logs and alert payloads are the account's own records (private) and hold text others
 * wrote: a CI log prints the commit messages, branch names and test output of code contributors pushed; a service's
 * logs and the alerts raised on them carry what its callers sent (untrusted). A log is read so only when its tool
 * names a CI record (`getBuildLog`, `get_job_logs`) or the server is one of these products (`get_logs` of a Datadog
 * wrapper): a browser's console log or a local tool's own debug log is neither.
 */
const CI_RECORDS = ['build', 'builds', 'job', 'jobs', 'pipeline', 'pipelines', 'workflow', 'workflows', 'run', 'runs', 'deployment', 'deployments', 'step', 'steps', 'stage', 'stages'];
// Not `output`: a workflow step's or a scraping run's output is its result, read by other rules.
const LOGS = ['log', 'logs', 'logfile', 'console', 'trace', 'traces'];
const FORGE_PRODUCTS_CI = ['github', 'gitlab', 'bitbucket', 'gitea', 'forgejo', 'codeberg'];
export const PIPELINE_PRODUCTS = [
  'jenkins', 'circleci', 'buildkite', 'travis', 'teamcity', 'bamboo', 'drone', 'woodpecker', 'argocd', 'tekton', 'spinnaker', 'gitlab',
  'datadog', 'grafana', 'loki', 'prometheus', 'splunk', 'newrelic', 'sentry', 'honeycomb', 'signoz', 'kibana', 'elasticsearch', 'opensearch',
  'cloudwatch', 'pagerduty', 'opsgenie', 'logz', 'papertrail', 'betterstack', 'axiom', 'coralogix', 'dynatrace',
];
const PIPELINE_PROSE = /\b(?:Jenkins|CircleCI|Buildkite|Travis\s+CI|TeamCity|Argo\s*CD|Tekton|GitLab(?:\s+CI)?|GitHub\s+Actions|Datadog|Grafana|Loki|Prometheus|Splunk|New\s+Relic|Sentry|Honeycomb|SigNoz|Kibana|Elasticsearch|OpenSearch|CloudWatch|PagerDuty|Opsgenie|Dynatrace|CI\/CD)\b/;
const OBSERVED_RECORDS = ['log', 'logs', 'alert', 'alerts', 'incident', 'incidents', 'event', 'events', 'error', 'errors', 'issue', 'issues', 'exception', 'exceptions'];
/** A browser's console, a page's network log: what the model itself opened, not the account's records. */
const NOT_ACCOUNT_LOGS = ['browser', 'page', 'tab', 'console', 'network', 'server', 'mcp', 'debug', 'audit'];
/**
 * CI products and hosts, for a log read by a CI record's name: a job's log is a CI log only on a CI service or a forge
 * that runs pipelines (`get_job_logs` of a GitLab or GitHub wrapper). A server's own background job (an export, a
 * sync) logs what the server did, not what contributors pushed.
 */
const CI_PRODUCTS = [...PIPELINE_PRODUCTS, ...FORGE_PRODUCTS_CI, 'ci', 'cicd', 'azure', 'devops'];
const CI_PROSE = /\b(?:CI|CI\/CD|Jenkins|CircleCI|Buildkite|Travis\s+CI|TeamCity|Woodpecker|Argo\s*CD|Tekton|Spinnaker|GitLab|GitHub(?:\s+Actions)?|Bitbucket(?:\s+Pipelines)?|Gitea|Forgejo|Azure\s+(?:DevOps|Pipelines))\b/;
/** A log read whose name names a CI record: `getBuildLog`, `get_job_logs`, `get_workflow_run_logs`. */
const namesCiLog = (_t: ToolView, words: readonly string[]): boolean => words.some((w) => CI_RECORDS.includes(w)) && words.some((w) => LOGS.includes(w));
/**
 * What a CI service records of what contributors pushed, besides the log: a build's change sets (the commit messages and
 * authors of what it built) and its test results and failures (the names and messages of tests others wrote, and what
 * they printed). Read on a CI product, they are the account's records (private) holding text others wrote (untrusted),
 * as its logs are (`getBuildChangeSets`, `get_job_test_results`, `getFlakyFailures`). Only on a CI service or a forge that
 * runs pipelines: a local test runner's `get_test_failures` reads the user's own run.
 */
/**
 * For those records, the CI service must be named by the tool or the server (its name, package, API host), or by a
 * product name in its prose: not the bare word "CI" ("fix them before CI does") or a forge named in passing ("commits
 * not yet pushed to GitHub"), nor a package that calls itself `…-ci-…` (`jest-ci-mcp` runs jest where it is started).
 * A local test runner or a local clone reads the user's own run and commits.
 */
const CI_SERVICES = CI_PRODUCTS.filter((p) => !['ci', 'cicd', 'azure'].includes(p));
const CI_SERVICE_PROSE = /\b(?:Jenkins|CircleCI|Buildkite|Travis\s+CI|TeamCity|Woodpecker|Argo\s*CD|Tekton|Spinnaker|GitLab\s+CI(?:\/CD)?|GitHub\s+Actions|Bitbucket\s+Pipelines|Azure\s+(?:DevOps|Pipelines))\b/;
const CI_CONTRIBUTED = ['change', 'changeset', 'changesets', 'changes', 'commits', 'test', 'tests', 'failure', 'failures', 'flaky'];
const namesCiContributed = (_t: ToolView, words: readonly string[]): boolean => words.some((w) => CI_CONTRIBUTED.includes(w));

/**
 * Payments: an account's charges, refunds, payouts, disputes and subscriptions are its own records (private), like
 * its customers, invoices and transactions (PERSONAL). The product is a payment service named by the tool, the server
 * or its prose; the word "payment" in a description is not one (public coin prices "to quote a crypto payment" are
 * no account's records).
 */
const PAYMENT_RECORDS = ['charge', 'charges', 'refund', 'refunds', 'payout', 'payouts', 'dispute', 'disputes', 'subscriptions', 'balance_transactions', 'payment_intents', 'intent', 'intents', 'checkout', 'checkouts', 'sessions', 'price', 'prices'];
const PAYMENT_PRODUCTS = ['stripe', 'paypal', 'paddle', 'square', 'braintree', 'adyen', 'mollie', 'razorpay', 'lemonsqueezy', 'chargebee', 'recurly', 'payments', 'billing'];
const PAYMENT_PROSE = /\b(?:Stripe|PayPal|Paddle|Square|Braintree|Adyen|Mollie|Razorpay|Lemon\s*Squeezy|Chargebee|Recurly)\b/;

/**
 * Forges (GitHub, GitLab, Bitbucket, Gitea): the files, commits and merge requests of a project chosen at call time
 * are the user's own repositories (private) and anyone's public ones, whose READMEs, code and commit messages others
 * write (untrusted), as a tracker's issues are. Writing a file, a branch's commit, a merge request or a note to a
 * project chosen at call time writes to a shared space others read (outbound): a public project takes what it is sent.
 */
export const FORGE_PRODUCTS = ['github', 'gitlab', 'bitbucket', 'gitea', 'forgejo', 'codeberg', 'gogs'];
const FORGE_PROSE = /\b(?:GitHub|GitLab|Bitbucket|Gitea|Forgejo|Codeberg)\b/;
const FORGE_RECORDS = ['file', 'files', 'contents', 'content', 'readme', 'repository', 'repositories', 'repo', 'repos', 'project', 'projects', 'commit', 'commits', 'code', 'snippet', 'snippets', 'merge', 'mr', 'mrs', 'diff', 'diffs', 'note', 'notes', 'wiki', 'blob', 'blobs', 'tree'];
const FORGE_WRITES = ['file', 'files', 'merge', 'mr', 'note', 'notes', 'snippet', 'snippets', 'wiki', 'release', 'releases', 'commit', 'commits'];
const FORGE_WRITE_VERBS = ['create', 'update', 'write', 'edit', 'add', 'put', 'push', 'commit', 'new', 'make', 'append', 'save'];
/**
 * Whether a forge tool acts on a hosted project: the forge names the tool or the server (its name, package, API
 * host), or the tool takes the project it acts on (a project or repo id, an owner and name; not `repository`, often a
 * local path). A forge named only in prose ("any clone: GitHub, GitLab", "Nothing is pushed to GitHub") of a tool that
 * takes a local path acts on a local clone: it reads the user's working copy and writes nowhere others read.
 */
const FORGE_PROJECT_ARGS = ['owner', 'repo', 'repo_name', 'repository_name', 'repo_full_name', 'full_name', 'project', 'project_id', 'project_path', 'project_name', 'project_key', 'namespace', 'repo_slug', 'repo_id', 'repository_id'];
function onHostedProject(t: ToolView, words: readonly string[]): boolean {
  if (words.some((w) => FORGE_PRODUCTS.includes(w))) return true;
  if (t.context !== undefined && nameWords(t.context).some((w) => FORGE_PRODUCTS.includes(w))) return true;
  return (t.properties ?? []).map(normProp).some((p) => FORGE_PROJECT_ARGS.includes(p));
}
/** Forge writes name their verb first (`push_files`, `create_or_update_file`); `push` and `commit` are forge verbs only. */
const forgeWrite = (_t: ToolView, words: readonly string[]): boolean => FORGE_WRITE_VERBS.includes(words.find((w) => VERBS.has(w) || w === 'push' || w === 'commit') ?? '');

/**
 * A message addressed at call time: a tool that takes both where a message goes (a channel, chat, room, thread or
 * recipient id) and what it says (text, message, content, body) posts it there, whatever its name (`discord_send`,
 * `reply`, `edit_message`). A tool that only reads a channel (`get_channel_history({ channel_id, limit })`) takes no text,
 * and a read-only one (`readOnlyHint: true`, or a reading verb: `search_messages({ channel, text })`) sends nothing.
 */
// Not \`to\` (a translation's target language), nor a thread or conversation id (an AI assistant's own thread).
const MESSAGE_DESTINATIONS = ['channel', 'channel_id', 'channel_name', 'chat_id', 'room', 'room_id', 'thread_ts', 'recipient_id', 'recipient', 'dm_user_id'];
/**
 * A room is a chat room only on a chat product: `reserve_room({ room, start, message })` books a meeting room. A tool
 * addressed by a room alone sends a message when the tool or the server names a chat product, or its prose does.
 */
const ROOM_DESTINATIONS = ['room', 'room_id'];
const CHAT_PRODUCTS = ['chat', 'slack', 'discord', 'matrix', 'telegram', 'mattermost', 'rocketchat', 'zulip', 'gitter', 'irc', 'xmpp', 'webex', 'synapse', 'msteams', 'whatsapp', 'messenger'];
const CHAT_PROSE = /\b(?:[Cc]hat|Slack|Discord|Matrix|Telegram|Mattermost|Rocket\.?Chat|Zulip|Gitter|IRC|XMPP|Webex|Microsoft\s+Teams|WhatsApp)\b/;
const MESSAGE_BODIES = ['text', 'message', 'content', 'body', 'blocks', 'markdown', 'caption'];
/**
 * Chat services named as such (not the word "chat", which an AI assistant's own conversation also uses). What their read
 * tools return — the messages of the user's or the bot's chats, channels, threads and direct conversations, and the
 * updates a bot receives (not the list of its channels) — is the workspace's own record (private, as mail is) written by other members (untrusted).
 */
const NAMED_CHAT_PRODUCTS = CHAT_PRODUCTS.filter((p) => p !== 'chat');
const NAMED_CHAT_PROSE = /\b(?:Slack|Discord|Telegram|Mattermost|Rocket\.?Chat|Zulip|Gitter|IRC|XMPP|Webex|Microsoft\s+Teams|WhatsApp|Matrix\s+(?:rooms?|homeserver|chat))\b/;
const CHAT_RECORDS = ['message', 'messages', 'history', 'updates', 'dialog', 'dialogs', 'conversation', 'conversations', 'thread', 'threads', 'replies', 'dm', 'dms', 'mentions', 'unread', 'inbox'];

/**
 * Text-message services (SMS, MMS through Twilio, Vonage, Plivo…). The messages their read tools return — the texts the
 * account's numbers received, a conversation's history — are the account's own record (private, as a mailbox is) written
 * by whoever texted the number (untrusted, as incoming mail is). Only a read of received texts or of a conversation
 * counts: a sent message's delivery status, the account's numbers, templates or prices hold no one else's text.
 */
const SMS_PRODUCTS = ['twilio', 'sms', 'mms', 'vonage', 'nexmo', 'plivo', 'messagebird', 'telnyx', 'sinch'];
const SMS_PROSE = /\b(?:Twilio|SMS|MMS|Vonage|Nexmo|Plivo|MessageBird|Telnyx|Sinch)\b/;
const SMS_RECORDS = ['messages', 'sms', 'mms', 'texts', 'inbound', 'received', 'incoming', 'inbox', 'replies', 'conversation', 'conversations', 'thread', 'threads'];
const NOT_RECEIVED_TEXTS = ['status', 'statuses', 'delivery', 'template', 'templates', 'price', 'prices', 'pricing', 'number', 'numbers', 'usage', 'sent', 'outbound', 'scheduled'];

function sendsAddressedMessage(t: ToolView, words: readonly string[]): boolean {
  const props = (t.properties ?? []).map(normProp);
  if (!props.some((p) => MESSAGE_DESTINATIONS.includes(p)) || !props.some((p) => MESSAGE_BODIES.includes(p))) return false;
  if (!props.some((p) => MESSAGE_DESTINATIONS.includes(p) && !ROOM_DESTINATIONS.includes(p)) && !productOf(t, words, CHAT_PRODUCTS, CHAT_PROSE)) return false;
  if (t.annotations?.readOnlyHint === true) return false;
  const verb = verbOf(words).verb;
  return verb === undefined || !READ.includes(verb);
}

/**
 * A message sent where the operator's configuration says (a bot's chat id, a channel, a mail address or a phone number
 * set in the environment): the served schema is read, it takes the message (a body argument) and nothing that names
 * where it goes (no recipient, chat, channel, room, user, address, number, topic, id or URL argument, no URL-typed
 * argument). What the call chooses is the text, not who reads it: the operator's own chat is no open outbound
 * channel. Only for direct sends (`send_message`, `notify`, `send_email`, `sms`): a post, tweet or publication
 * (`post_status({ text })`, `send_tweet`) goes to a public audience whatever the arguments, and stays outbound.
 */
const DIRECT_SEND_VERBS = ['send', 'notify', 'message', 'dm', 'sms', 'email', 'mail', 'ping'];
const DESTINATION_WORDS = [
  'to', 'recipient', 'recipients', 'chat', 'chats', 'channel', 'channels', 'room', 'rooms', 'thread', 'threads', 'conversation', 'conversations',
  'user', 'users', 'username', 'usernames', 'member', 'members', 'email', 'emails', 'address', 'addresses', 'phone', 'number', 'numbers', 'peer',
  'peers', 'contact', 'contacts', 'group', 'groups', 'target', 'targets', 'destination', 'destinations', 'webhook', 'webhooks', 'url', 'urls', 'uri',
  'endpoint', 'host', 'cc', 'bcc', 'dm', 'guild', 'team', 'teams', 'space', 'spaces', 'topic', 'topics', 'stream', 'queue', 'device', 'devices',
  'token', 'tokens', 'handle', 'account', 'id', 'ids', 'jid', 'server', 'link', 'links', 'href',
];
/** What a message names when it is public: a post, a tweet, a status. */
const PUBLIC_MESSAGES = ['post', 'posts', 'tweet', 'tweets', 'status', 'statuses', 'toot', 'toots', 'cast', 'casts', 'story', 'stories', 'comment', 'comments', 'review', 'reviews', 'article', 'articles', 'release', 'releases', 'issue', 'issues', 'page', 'pages', 'feed', 'blog', 'gist', 'broadcast', 'announcement', 'announcements', 'public'];
function toFixedDestination(t: ToolView, words: readonly string[]): boolean {
  const props = (t.properties ?? []).map(normProp);
  if (!props.some((p) => MESSAGE_BODIES.includes(p))) return false;
  if ((t.urlArgs ?? []).length > 0) return false;
  if (props.some((p) => p.split('_').some((w) => DESTINATION_WORDS.includes(w)))) return false;
  if (words.some((w) => PUBLIC_MESSAGES.includes(w))) return false;
  const verb = verbOf(words).verb;
  return verb !== undefined && DIRECT_SEND_VERBS.includes(verb);
}

/**
 * A lookup that filters a collection by an address: a find, search or list verb, then `with` or `by` before the
 * address word (`findJobsWithScmUrl`, `search_projects_by_url`). The address selects records the service holds; the
 * tool fetches nothing from it. A fetch or get names what it reads (`get_page_by_url` may load it), so only the
 * collection verbs are read so.
 */
const FILTER_VERBS = ['find', 'search', 'list', 'lookup', 'query'];
function filtersByAddress(words: readonly string[]): boolean {
  const verb = verbOf(words).verb;
  if (verb === undefined || !FILTER_VERBS.includes(verb)) return false;
  const by = words.findIndex((w) => w === 'with' || w === 'by');
  return by > 0 && words.slice(by + 1).some((w) => WEB.includes(w));
}

/** Verbs of a tool that writes a resource (creates, changes or registers it). */
const RESOURCE_WRITES = ['create', 'add', 'new', 'make', 'update', 'edit', 'set', 'put', 'patch', 'modify', 'save', 'insert', 'write'];

/** The user's own account, named from its side: `get_me`, `list_my_issues`, GET /me/messages. */
const OWN_ACCOUNT = ['me', 'my', 'mine', 'myself', 'self', 'whoami'];

export const LEG_RULES: readonly LegRule[] = [
  // --- names -------------------------------------------------------------------------------------------
  { id: 'reads-local-files', legs: ['private'], name: { verbs: READ, objects: FILES } },
  { id: 'reads-mail', legs: ['private', 'untrusted'], name: { verbs: READ, objects: MAIL } },
  { id: 'reads-database', legs: ['private'], name: { verbs: [...READ, 'execute', 'run', 'exec'], objects: DATABASE } },
  { id: 'sql-tool', legs: ['private'], name: { names: ['query', 'sql', 'execute_sql', 'run_sql', 'sql_query', 'run_query', 'execute_query', 'read_query'] } },
  { id: 'reads-personal-records', legs: ['private'], name: { verbs: READ, objects: PERSONAL } },
  { id: 'reads-web-page', legs: ['untrusted', 'outbound'], name: { verbs: [...READ, 'scrape', 'crawl', 'visit', 'extract', 'convert'], objects: WEB }, notFilter: true },
  { id: 'fetch-tool', legs: ['untrusted', 'outbound'], name: { names: ['fetch', 'scrape', 'crawl', 'curl', 'wget', 'browse', 'http_get', 'http_request', 'fetch_url', 'read_url'] } },
  { id: 'web-search', legs: ['untrusted'], name: { verbs: ['search', 'find', 'lookup', 'query', 'ask', 'get'], objects: SEARCH_ENGINES } },
  { id: 'search-tool', legs: ['untrusted'], name: { names: ['web_search', 'search_web', 'websearch', 'google_search', 'brave_search', 'brave_web_search', 'tavily_search', 'search_news'] } },
  { id: 'browser-content', legs: ['untrusted'], name: { words: ['browser', 'playwright', 'puppeteer', 'selenium', 'webdriver'] } },
  { id: 'browser-navigation', legs: ['untrusted', 'outbound'], name: { words: ['navigate', 'goto'] } },
  { id: 'reads-third-party-posts', legs: ['untrusted'], name: { verbs: READ, objects: THIRD_PARTY_POSTS } },
  { id: 'reads-workspace-records', legs: ['private', 'untrusted'], name: { verbs: READ, objects: WORKSPACE_RECORDS }, product: WORKSPACE_PRODUCTS },
  { id: 'reads-calendar-events', legs: ['private', 'untrusted'], name: { verbs: READ, objects: CALENDAR_ENTRIES }, product: CALENDAR_PRODUCTS, prose: CALENDAR_PROSE },
  { id: 'reads-tickets', legs: ['private', 'untrusted'], name: { verbs: READ, objects: ['ticket', 'tickets'] } },
  { id: 'reads-own-account', legs: ['private'], name: { verbs: READ, objects: OWN_ACCOUNT } },
  { id: 'reads-account-usage', legs: ['private'], name: { verbs: READ, objects: ACCOUNT_DATA }, text: ACCOUNT_CONTEXT },
  { id: 'uploads-local-files', legs: ['private', 'outbound'], name: { verbs: ['upload', 'attach', 'share', 'send', 'email', 'mail'], objects: FILES } },
  { id: 'sends', legs: ['outbound'], name: { verbs: SEND }, notFixedDestination: true },
  { id: 'creates-public-content', legs: ['outbound'], name: { verbs: ['create', 'add', 'open', 'write', 'update', 'edit', 'comment', 'make', 'new', 'put', 'append', 'insert', 'save'], objects: PUBLIC_CONTENT } },
  { id: 'http-request', legs: ['outbound', 'untrusted'], name: { verbs: ['make', 'send', 'call', 'execute', 'run', 'invoke'], objects: ['http', 'api', 'endpoint', 'webhook'] } },
  // "Request" alone is not always an HTTP one: a request handed to the server's own tools, or read from a local file
  // with nothing that says HTTP, goes nowhere outside.
  { id: 'makes-request', legs: ['outbound', 'untrusted'], name: { verbs: ['make', 'send', 'call', 'execute', 'run', 'invoke'], objects: ['request', 'requests'] }, notText: DISPATCH_TO_OWN_TOOLS, notFileInput: true },

  // Pipelines, monitoring, payments and forges: the records of API wrappers (see PIPELINE_PRODUCTS … FORGE_PRODUCTS).
  { id: 'reads-ci-log', legs: ['private', 'untrusted'], name: { verbs: READ }, holds: namesCiLog, product: CI_PRODUCTS, prose: CI_PROSE, notWords: NOT_ACCOUNT_LOGS.filter((w) => w !== 'console') },
  { id: 'reads-observed-records', legs: ['private', 'untrusted'], name: { verbs: READ, objects: OBSERVED_RECORDS }, product: PIPELINE_PRODUCTS, prose: PIPELINE_PROSE, notWords: NOT_ACCOUNT_LOGS },
  { id: 'reads-ci-contributed-records', legs: ['private', 'untrusted'], name: { verbs: READ }, holds: namesCiContributed, product: CI_SERVICES, prose: CI_SERVICE_PROSE, notWords: NOT_ACCOUNT_LOGS },
  { id: 'reads-chat-messages', legs: ['private', 'untrusted'], name: { verbs: READ, objects: CHAT_RECORDS }, product: NAMED_CHAT_PRODUCTS, prose: NAMED_CHAT_PROSE },
  { id: 'reads-text-messages', legs: ['private', 'untrusted'], name: { verbs: READ, objects: SMS_RECORDS }, product: SMS_PRODUCTS, prose: SMS_PROSE, notWords: NOT_RECEIVED_TEXTS },
  { id: 'reads-payment-records', legs: ['private'], name: { verbs: READ, objects: PAYMENT_RECORDS }, product: PAYMENT_PRODUCTS, prose: PAYMENT_PROSE },
  { id: 'reads-forge-content', legs: ['private', 'untrusted'], name: { verbs: READ, objects: FORGE_RECORDS }, product: FORGE_PRODUCTS, prose: FORGE_PROSE, holds: onHostedProject },
  { id: 'writes-forge-content', legs: ['outbound'], name: { words: FORGE_WRITES }, product: FORGE_PRODUCTS, prose: FORGE_PROSE, holds: (t, w) => forgeWrite(t, w) && onHostedProject(t, w) },
  { id: 'sends-addressed-message', legs: ['outbound'], properties: { exact: MESSAGE_DESTINATIONS }, holds: sendsAddressedMessage, notWords: ['log', 'logs', 'debug', 'trace'] },
  { id: 'drives-user-browser', legs: ['private'], name: { words: BROWSER_ACTIONS }, product: ['extension'], prose: EXTENSION_PROSE },
  { id: 'invites-attendees', legs: ['outbound'], name: { words: WRITES_OR_SENDS }, properties: { exact: INVITEE_ARGS } },
  { id: 'runs-remote-command', legs: ['private', 'untrusted', 'outbound'], properties: { exact: COMMAND_ARGS }, product: REMOTE_SHELLS, prose: REMOTE_PROSE },
  { id: 'execs-in-container', legs: ['private', 'untrusted', 'outbound'], name: { words: ['exec', 'execute'] }, properties: { exact: COMMAND_ARGS }, product: CONTAINERS, prose: CONTAINER_PROSE },

  // --- input schema ------------------------------------------------------------------------------------
  { id: 'url-argument', legs: ['outbound', 'untrusted'], properties: { exact: ['url', 'urls', 'href', 'link', 'links', 'endpoint', 'website', 'webpage', 'uri_to_fetch'] }, notFilter: true },
  { id: 'url-valued-argument', legs: ['outbound'], properties: { suffix: ['_url', '_urls', '_webhook', '_endpoint'] }, notFilter: true },
  { id: 'recipient-argument', legs: ['outbound'], properties: { exact: ['recipient', 'recipients', 'cc', 'bcc', 'to_email', 'to_address', 'email_to', 'phone_number', 'webhook', 'webhooks'] } },
  // A browser or scraping session that opens pages under the user's saved logins reads the user's accounts.
  { id: 'reads-local-file-argument', legs: ['private'], properties: { exact: LOCAL_PATH_ARGS }, text: LOCAL_FILE_READ, notWords: REMOVES },
  // A webhook or notification destination written at call time: the vendor then delivers its events (with the
  // account's records) to the address the call chose.
  {
    id: 'sets-delivery-destination',
    legs: ['outbound'],
    name: { verbs: ['create', 'add', 'new', 'make', 'update', 'edit', 'set', 'put', 'patch', 'modify', 'save', 'insert'], objects: DELIVERY_OBJECTS },
    holds: deliversToUrl,
  },
  // A resource written at call time that holds an address the service then contacts: an application whose source
  // is a repository URL (a GitOps controller pulls and syncs it), a job whose SCM URL a CI server clones, a hook's
  // target. The address sits inside the resource's object argument (`application.spec.source.repoURL`), where the
  // top-level argument rules do not look; a reading tool that filters by such a field (`list_apps({ filter })`) writes nothing.
  // Only an address of the contacted kind counts (contactedAddress): one stored as data (`avatar.url`, `links[].url`,
  // `doc.href`, `location.url`) is shown or linked, never fetched by the service.
  {
    id: 'writes-resource-with-url',
    legs: ['outbound'],
    name: { verbs: RESOURCE_WRITES },
    holds: (t) => (t.nestedUrlArgs ?? []).some(contactedAddress) && t.annotations?.readOnlyHint !== true,
  },
  { id: 'saved-login-argument', legs: ['private'], properties: { exact: ['storage_state', 'user_data_dir', 'browser_profile', 'profile_id', 'auth_context_id', 'persistent_context'] } },

  // --- annotations -------------------------------------------------------------------------------------
  { id: 'open-world-write', legs: ['outbound'], annotations: { openWorldHint: true, readOnlyHint: false } },

  // --- descriptions (English, French) -------------------------------------------------------------------
  {
    id: 'describes-private-data',
    legs: ['private'],
    text: /\b(?:the\s+user['’]s|your|private|personal|internal|confidential)\s+(?:local\s+)?(?:files?|e-?mails?|mailbox|inbox|messages|documents?|notes|calendars?|contacts|databases?|data|records|accounts?|repositor(?:y|ies)|drive|workspace|secrets?|credentials?)\b/i,
  },
  {
    id: 'describes-saved-logins',
    legs: ['private'],
    text: /\b(?:(?:your|the\s+user['’]s)\s+(?:own\s+)?(?:browser\s+profile|(?:browser\s+)?cookies|logged[- ]in\s+(?:sessions?|accounts?|browser))|(?:with|using|in|reuses?)\s+(?:your|the\s+user['’]s|saved|existing)\s+(?:login|logged[- ]in|authenticated)\s+(?:sessions?|state|cookies|browser))\b/i,
  },
  { id: 'describes-account-usage', legs: ['private'], text: ACCOUNT_PROSE },
  { id: 'describes-file-contents', legs: ['private'], text: /\b(?:reads?|returns?|shows?|gets?)\s+(?:the\s+)?(?:complete\s+|full\s+|raw\s+)?contents?\s+of\s+(?:a\s+|the\s+|any\s+)?(?:local\s+)?files?\b/i },
  { id: 'decrit-donnees-privees', legs: ['private'], text: /(?<!\p{L})(?:vos|ses|leurs|les)\s+(?:fichiers|e-?mails|courriels|messages|documents|notes|contacts|données\s+(?:privées|personnelles))(?!\p{L})/iu },
  {
    id: 'describes-untrusted-content',
    legs: ['untrusted'],
    text: /\b(?:web\s*pages?|websites?|the\s+(?:open\s+)?web|the\s+internet|search\s+results|incoming\s+(?:e-?mails?|messages)|user[- ]generated|third[- ]party\s+content|any\s+URL)\b/i,
  },
  { id: 'decrit-contenu-externe', legs: ['untrusted'], text: /(?<!\p{L})(?:pages?\s+web|sites?\s+web|résultats\s+de\s+recherche|l['’]internet|n['’]importe\s+quelle\s+URL)(?!\p{L})/iu },
  {
    id: 'describes-sending',
    legs: ['outbound'],
    text: /\b(?:sends?|posts?|publish(?:es)?|forwards?|uploads?)\s+(?:an?\s+|the\s+|new\s+)?(?:e-?mails?|messages?|sms|texts?|notifications?|comments?|tweets?|webhooks?|replies|files?\s+to)\b/i,
    notFixedDestination: true,
  },
  { id: 'describes-request-to-url', legs: ['outbound', 'untrusted'], text: /\b(?:HTTP\s+)?requests?\s+to\s+(?:any|an?\s+arbitrary|the\s+given|a\s+given|the\s+specified|the\s+provided)\s+(?:URL|endpoint|address)\b/i },
  { id: 'decrit-envoi', legs: ['outbound'], notFixedDestination: true, text: /(?<!\p{L})(?:envoie|publie|poste|transfère)\s+(?:un|une|des|le|la|les)\s+(?:e-?mails?|courriels?|messages?|sms|commentaires?|notifications?)(?!\p{L})/iu },
];

/** What the classifier reads of a tool: the served definition, or the same fields read from the source. */
export interface ToolView {
  name: string;
  title?: string;
  description?: string;
  /** Top-level property names of the input schema. */
  properties?: readonly string[];
  annotations?: Record<string, unknown>;
  /** Arguments the served schema types as a URL (see schemaFacts). */
  urlArgs?: readonly string[];
  /**
   * URL-valued fields inside an object argument, as dotted paths (`application.spec.source.repoURL`): the address a
   * resource the tool writes will hold (see schemaFacts).
   */
  nestedUrlArgs?: readonly string[];
  /** The values the served schema allows for the operation selector, when it lists them (see schemaFacts). */
  operationEnum?: readonly string[];
  /**
   * What the whole server says it wraps: its served name and title, the package name, or the title and host of
   * the API document its tools are built from. Read only for the product of `product` rules.
   */
  context?: string;
}

/** Product names as written in prose (case kept, so the adjective "linear" is not the tracker). */
const PRODUCT_PROSE = /\b(?:Jira|JIRA|Confluence|Atlassian|Notion|Linear|Asana|Trello|ClickUp|YouTrack|Redmine|Zendesk|Freshdesk|Freshservice|ServiceNow|Intercom|Help ?Scout|SharePoint|OneDrive|Airtable|Basecamp|Wrike)\b/g;

/** Whether a tool belongs to one of `products`: a word of its name or of the server's context, or the product named in its title or description (`prose`, else the trackers' names). */
function productOf(t: ToolView, words: readonly string[], products: readonly string[], prose?: RegExp): boolean {
  if (words.some((w) => products.includes(w))) return true;
  if (t.context !== undefined && nameWords(t.context).some((w) => products.includes(w))) return true;
  if (prose) return [t.title, t.description].some((s) => typeof s === 'string' && prose.test(s));
  return [t.title, t.description].some((s) => typeof s === 'string' && (s.match(PRODUCT_PROSE) ?? []).some((m) => products.includes(m.toLowerCase().replace(/\s+/g, ''))));
}

export interface LegHit {
  leg: Leg;
  /** The rule (or source API) that put the tool on this leg. */
  rule: string;
}

/**
 * The words of a name: split on anything not a letter or digit and on camelCase humps, lower-cased; `web` followed
 * by `page(s)` or `site(s)` also reads as one word (`fetch_web_page` reads a webpage).
 */
export function nameWords(name: string): string[] {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const joined: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const next = words[i + 1];
    if (words[i] === 'web' && next !== undefined && /^(?:page|site)s?$/.test(next)) joined.push(`web${next}`);
  }
  return [...words, ...joined];
}

/** The name's verb (its first word in VERBS), and the other words. */
export function verbOf(words: readonly string[]): { verb?: string; rest: string[] } {
  const i = words.findIndex((w) => VERBS.has(w));
  return i < 0 ? { rest: [...words] } : { verb: words[i], rest: words.filter((_, j) => j !== i) };
}

const normProp = (p: string): string => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

function nameMatches(n: NonNullable<LegRule['name']>, t: ToolView, words: string[], verb: { verb?: string; rest: string[] }): boolean {
  if (n.names) return n.names.includes(t.name.toLowerCase()) || n.names.includes(words.join('_'));
  if (n.words) return words.some((w) => n.words!.includes(w));
  if (n.verbs && (!verb.verb || !n.verbs.includes(verb.verb))) return false;
  return !n.objects || verb.rest.some((w) => n.objects!.includes(w));
}

/** Whether every condition of a rule holds for a tool. */
function ruleMatches(r: LegRule, t: ToolView, words: string[], verb: { verb?: string; rest: string[] }): boolean {
  if (!r.name && !r.properties && !r.annotations && !r.text) return false;
  if (r.notWords && words.some((w) => r.notWords!.includes(w))) return false;
  if (r.notText && [t.title, t.description].some((s) => typeof s === 'string' && r.notText!.test(s)) && ![t.title, t.description].some((s) => typeof s === 'string' && HTTP_SENSE.test(s))) return false;
  if (r.notFileInput && requestFromFile(t)) return false;
  if (r.notFilter && filtersByAddress(words)) return false;
  if (r.notFixedDestination && toFixedDestination(t, words)) return false;
  if (r.name && !nameMatches(r.name, t, words, verb)) return false;
  if (r.product && !productOf(t, words, r.product, r.prose)) return false;
  if (r.properties) {
    const props = (t.properties ?? []).map(normProp);
    const p = r.properties;
    if (!props.some((x) => (p.exact?.includes(x) ?? false) || (p.suffix?.some((s) => x.endsWith(s)) ?? false))) return false;
  }
  if (r.annotations) {
    const a = t.annotations ?? {};
    if (!Object.entries(r.annotations).every(([k, v]) => a[k] === v)) return false;
  }
  if (r.text && ![t.title, t.description].some((s) => typeof s === 'string' && r.text!.test(s))) return false;
  if (r.holds && !r.holds(t, words)) return false;
  return true;
}

/**
 * Arguments by which one generic tool selects which of the vendor's operations it runs (`selectSchema`,
 * `operation`, `action`): the tool serves every operation it lists.
 */
const OPERATION_SELECTORS = ['operation', 'operations', 'operation_id', 'operation_name', 'op', 'action', 'select_schema', 'subcommand'];
/** An operation identifier written in prose: two or more words joined by `-` or `_`, or camelCase (`get-user`, `list_customers`, `createWebhook`). */
const OPERATION_ID = /(?<![\p{L}\p{N}_./-])[A-Za-z][a-z0-9]*(?:(?:[-_][a-z0-9]+)+|(?:[A-Z][a-z0-9]+)+)(?![\p{L}\p{N}_/-]|\.[\p{L}\p{N}])/gu;

/** Where a description starts listing the operations it selects from (`one of the following … operations`, `Operations:`). */
const OPERATION_LIST = /\b(?:one\s+of\s+the\s+following|(?:available|supported|following)\s+(?:[\w-]+\s+)?(?:operations|actions|endpoints)|(?:operations|actions)\s*:)/i;

/** Hyphenated adjectives written like operation identifiers (`a read-only token`, `the get-started guide`). */
const COMPOUND_ADJECTIVES = new Set(['read only', 'read write', 'write only', 'get started']);
/** Where the list after the cue ends: the first sentence end or line break. */
const LIST_END = /[.!?](?=\s|$)|\n/;

/**
 * The operations a generic tool enumerates: when its input schema has an operation selector and its description
 * says it lists them, the identifiers of that list (from the cue to the first sentence end or line break) whose first
 * word is a verb of the vocabulary (`get-user`; `manage-env-vars` is not read). When the served schema gives the
 * selector an enum, the operations are that enum's values and nothing the prose names. Each is then classified by the
 * name rules, as if it were a tool of its own. A tool that merely names another tool in its help (`version from
 * get_pull_request`, "see also fetch_url docs" after the list) lists nothing; hyphenated adjectives (`read-only`) are
 * not operations.
 */
export function enumeratedOperations(t: ToolView): string[] {
  if (typeof t.description !== 'string') return [];
  if (!(t.properties ?? []).some((p) => OPERATION_SELECTORS.includes(normProp(p)))) return [];
  const cue = OPERATION_LIST.exec(t.description);
  if (!cue) return [];
  let candidates: readonly string[];
  if (t.operationEnum !== undefined) candidates = t.operationEnum;
  else {
    // The list may start on the line after the cue ("Operations:\n get-user, list-users").
    const after = t.description.slice(cue.index + cue[0].length);
    const start = after.length - after.trimStart().length;
    const end = LIST_END.exec(after.slice(start));
    const list = after.slice(0, end ? start + end.index : after.length);
    candidates = [...list.matchAll(OPERATION_ID)].map((m) => m[0]);
  }
  const ops = new Set<string>();
  for (const c of candidates) {
    const words = nameWords(c);
    if (words.length >= 2 && VERBS.has(words[0]!) && c !== t.name && !COMPOUND_ADJECTIVES.has(words.join(' '))) ops.add(c);
    if (ops.size >= 200) break;
  }
  return [...ops];
}

/**
 * The operations of a tool named after what it handles, without a verb of the vocabulary (`manage_jira_issue`,
 * `jiraIssue`), whose operation selector's enum holds bare verbs (`operation: ['get', 'comment', 'create']`): each
 * verb applied to the tool's name (`get_manage_jira_issue`), classified by the name rules like the operations
 * enumeratedOperations reads. A tool whose name already has a verb (`list_issues` with an `action`) is read from its
 * name alone; enum values of two words or more are enumeratedOperations' own.
 */
export function verbOperations(t: ToolView): string[] {
  if (t.operationEnum === undefined || verbOf(nameWords(t.name)).verb !== undefined) return [];
  const ops = new Set<string>();
  for (const v of t.operationEnum) {
    const words = nameWords(v);
    if (words.length === 1 && VERBS.has(words[0]!)) ops.add(`${words[0]}_${t.name}`);
    if (ops.size >= 50) break;
  }
  return [...ops];
}

/** Sibling properties whose enum says what kind of address another property holds (`type: 'url' | 'email'`). */
const ADDRESS_KIND_PROPS = ['type', 'kind', 'destination_type', 'target_type', 'channel', 'delivery_type'];
const ADDRESS_PROPS = ['destination', 'destinations', 'target', 'address', 'callback'];
const isRec = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const enumOf = (v: unknown): string[] | undefined => {
  if (!isRec(v)) return undefined;
  const e = Array.isArray(v.enum) ? v.enum : isRec(v.items) && Array.isArray(v.items.enum) ? v.items.enum : undefined;
  return e?.filter((x): x is string => typeof x === 'string');
};

/**
 * What legs.ts reads of a served input schema beyond its property names: the arguments typed as a URL (`format: uri`,
 * or an address argument whose sibling `type` enum offers `url` or `webhook`), and the enum of the operation selector
 * (top level, or one level inside a selector object: `selectSchema: { operation: enum }`).
 */
/** A field name that says it holds an address: `url`, `uri`, `…_url`, `repoURL`, `…_endpoint`, `webhook`. */
const URL_FIELD = (p: string): boolean => /^(?:urls?|uris?|href|webhook|endpoint)$|_(?:urls?|uris?|webhook|endpoint)$/.test(normProp(p));
/**
 * Words that say a nested address is one the service then contacts: a repository it pulls or clones (`repoURL`,
 * `source.repoURL`, `gitUrl`, `cloneUrl`, `scm.url`), a webhook, callback or notification destination, an endpoint or
 * target it sends to.
 */
const CONTACTED_WORDS = new Set([
  'repo', 'repos', 'repository', 'repositories', 'source', 'sources', 'git', 'clone', 'scm',
  'webhook', 'webhooks', 'hook', 'hooks', 'callback', 'callbacks', 'notify', 'notification', 'notifications',
  'target', 'targets', 'endpoint', 'endpoints', 'destination', 'destinations', 'sink', 'sinks',
]);
/**
 * A nested URL field (a dotted path from nestedUrlFields) the service contacts: the field's own name or its parent's
 * carries a CONTACTED_WORDS word (`application.spec.source.repoURL`, `webhook.url`, `hooks.target`). An address kept
 * as data (`profile.avatar.url`, `incident.links.url`, `runbook.doc.href`) is not.
 */
export function contactedAddress(path: string): boolean {
  const segs = path.split('.');
  return segs.slice(-2).some((seg) => normProp(seg).split(/[_\W]+/).some((w) => CONTACTED_WORDS.has(w)));
}
/** How deep inside an object argument a URL field is looked for, and how many are kept. */
const NESTED_DEPTH = 4;
const NESTED_MAX = 20;

/**
 * URL-valued fields inside object arguments (not the top-level ones, read by name and `urlArgs`): a field whose name
 * says URL (URL_FIELD) or whose format is a URI, inside `properties` of an object (or of an array's items), down to
 * NESTED_DEPTH levels (`application.spec.source.repoURL`, `destination.server`'s sibling `webhook.url`).
 */
function nestedUrlFields(props: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (depth > NESTED_DEPTH || out.length >= NESTED_MAX || !isRec(node)) return;
    const inner = isRec(node.properties) ? node.properties : isRec(node.items) && isRec(node.items.properties) ? node.items.properties : undefined;
    if (!inner) return;
    for (const [k, v] of Object.entries(inner)) {
      const format = isRec(v) && typeof v.format === 'string' ? v.format : undefined;
      if (URL_FIELD(k) || (format !== undefined && ['uri', 'url', 'iri'].includes(format))) out.push(`${path}.${k}`);
      else walk(v, `${path}.${k}`, depth + 1);
    }
  };
  for (const [k, v] of Object.entries(props)) walk(v, k, 1);
  return out.slice(0, NESTED_MAX);
}

export function schemaFacts(schema: unknown): { urlArgs?: string[]; nestedUrlArgs?: string[]; operationEnum?: string[] } {
  if (!isRec(schema) || !isRec(schema.properties)) return {};
  const props = schema.properties;
  const urlArgs: string[] = [];
  const kinds = Object.entries(props).filter(([k]) => ADDRESS_KIND_PROPS.includes(normProp(k))).flatMap(([, v]) => enumOf(v) ?? []).map((x) => x.toLowerCase());
  const urlKind = kinds.some((k) => ['url', 'uri', 'webhook', 'http', 'https'].includes(k));
  for (const [k, v] of Object.entries(props)) {
    const format = isRec(v) && typeof v.format === 'string' ? v.format : undefined;
    if ((format !== undefined && ['uri', 'url', 'iri'].includes(format)) || (urlKind && ADDRESS_PROPS.includes(normProp(k)))) urlArgs.push(k);
  }
  let operationEnum: string[] | undefined;
  for (const [k, v] of Object.entries(props)) {
    if (!OPERATION_SELECTORS.includes(normProp(k))) continue;
    const direct = enumOf(v);
    const nested = isRec(v) && isRec(v.properties) ? Object.entries(v.properties).filter(([n]) => OPERATION_SELECTORS.includes(normProp(n))).flatMap(([, x]) => enumOf(x) ?? []) : [];
    if (direct || nested.length > 0) operationEnum = [...(operationEnum ?? []), ...(direct ?? []), ...nested];
  }
  const nestedUrlArgs = nestedUrlFields(props);
  return { ...(urlArgs.length > 0 ? { urlArgs } : {}), ...(nestedUrlArgs.length > 0 ? { nestedUrlArgs } : {}), ...(operationEnum ? { operationEnum } : {}) };
}

/** Rules read from an operation identifier alone: its name (and the product), never the generic tool's own schema or prose. */
const nameOnly = (r: LegRule): boolean => r.name !== undefined && !r.properties && !r.annotations && !r.text && !r.notFileInput && !r.holds;

/** The legs of one tool, each with the first rule that put it there (rules in LEG_RULES order). */
export function classifyTool(t: ToolView): LegHit[] {
  const words = nameWords(t.name);
  const verb = verbOf(words);
  const out: LegHit[] = [];
  for (const r of LEG_RULES) {
    if (!ruleMatches(r, t, words, verb)) continue;
    for (const leg of r.legs) if (!out.some((h) => h.leg === leg)) out.push({ leg, rule: r.id });
  }
  for (const op of [...enumeratedOperations(t), ...verbOperations(t)]) {
    const ow = nameWords(op);
    const ov = verbOf(ow);
    const view: ToolView = { name: op, ...(t.context !== undefined ? { context: t.context } : {}) };
    for (const r of LEG_RULES) {
      if (!nameOnly(r) || !ruleMatches(r, view, ow, ov)) continue;
      for (const leg of r.legs) if (!out.some((h) => h.leg === leg)) out.push({ leg, rule: `operation ${op}: ${r.id}` });
    }
  }
  return out.sort((a, b) => LEGS.indexOf(a.leg) - LEGS.indexOf(b.leg));
}

/** Tools on each leg, for one server or a set: tool label -> the rules that put it there. */
export type LegMap = Record<Leg, { tool: string; rules: string[] }[]>;

export const emptyLegs = (): LegMap => ({ private: [], untrusted: [], outbound: [] });

/** Add one tool's hits to a leg map (the same tool once per leg, its rules merged). */
export function addHits(map: LegMap, tool: string, hits: readonly LegHit[]): void {
  for (const h of hits) {
    const row = map[h.leg].find((x) => x.tool === tool);
    if (row) {
      if (!row.rules.includes(h.rule)) row.rules.push(h.rule);
    } else map[h.leg].push({ tool, rules: [h.rule] });
  }
}

export const isTrifecta = (m: LegMap): boolean => LEGS.every((l) => m[l].length > 0);

/** A bounded, sorted list of the tools on a leg, for message data: `a, b, c (+2)`. */
export function toolList(rows: readonly { tool: string }[], max = 4): string {
  const names = [...new Set(rows.map((r) => r.tool))].sort();
  return names.length > max ? `${names.slice(0, max).join(', ')} (+${names.length - max})` : names.join(', ');
}

/** Evidence for a trifecta: each leg with its tools and rules. */
export function legEvidence(m: LegMap): string {
  return LEGS.map((l) => `${l}: ${m[l].slice(0, 4).map((r) => `${r.tool} [${r.rules.join(', ')}]`).join('; ')}${m[l].length > 4 ? '; …' : ''}`).join(' | ');
}
