import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { operationHits } from './static.js';
import { addHits, classifyTool, contactedAddress, emptyLegs, isTrifecta, LEG_RULES, nameWords, schemaFacts, toolList, verbOf, type Leg, type ToolView } from './legs.js';

const legs = (t: ToolView): Leg[] => classifyTool(t).map((h) => h.leg);
const rules = (t: ToolView): string[] => classifyTool(t).map((h) => h.rule);

describe('X-8 classification rules (legs.ts)', () => {
  it('gives every rule a unique id and at least one leg', () => {
    const ids = LEG_RULES.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const r of LEG_RULES) assert.ok(r.legs.length > 0, r.id);
  });
  it('splits names on separators and camelCase, and finds the verb', () => {
    assert.deepEqual(nameWords('getFileContents'), ['get', 'file', 'contents']);
    assert.deepEqual(nameWords('slack_post_message'), ['slack', 'post', 'message']);
    assert.deepEqual(nameWords('API-post-page'), ['api', 'post', 'page']);
    assert.ok(nameWords('fetch_web_page').includes('webpage'));
    assert.equal(verbOf(nameWords('get_post')).verb, 'get');
    assert.equal(verbOf(nameWords('slack_post_message')).verb, 'post');
  });

  // Tool definitions shaped like the published servers' (filesystem, fetch, search, forges, chat, browsers, mail,
  // databases), written here in our own words.
  const cases: [ToolView, Leg[]][] = [
    [{ name: 'read_file', description: 'Read the complete contents of a file.', properties: ['path'] }, ['private']],
    [{ name: 'list_directory', properties: ['path'] }, ['private']],
    [{ name: 'search_files', properties: ['path', 'pattern'] }, ['private']],
    [{ name: 'write_file', properties: ['path', 'content'] }, []],
    [{ name: 'create_directory', properties: ['path'] }, []],
    [{ name: 'fetch', description: 'Fetches a URL from the internet and extracts its contents as markdown.', properties: ['url', 'max_length'] }, ['untrusted', 'outbound']],
    [{ name: 'fetch_web_page', properties: ['address'] }, ['untrusted', 'outbound']],
    [{ name: 'brave_web_search', properties: ['query', 'count'] }, ['untrusted']],
    [{ name: 'get_file_contents', properties: ['owner', 'repo', 'path'] }, ['private']],
    [{ name: 'list_issues', properties: ['owner', 'repo', 'state'] }, ['untrusted']],
    [{ name: 'create_issue', properties: ['owner', 'repo', 'title', 'body'] }, ['outbound']],
    [{ name: 'add_issue_comment', properties: ['owner', 'repo', 'issue_number', 'body'] }, ['outbound']],
    [{ name: 'slack_post_message', properties: ['channel_id', 'text'] }, ['outbound']],
    [{ name: 'slack_get_channel_history', properties: ['channel_id', 'limit'] }, ['private', 'untrusted']],
    [{ name: 'browser_navigate', properties: ['url'] }, ['untrusted', 'outbound']],
    [{ name: 'browser_snapshot', properties: [] }, ['untrusted']],
    [{ name: 'browser_file_upload', properties: ['paths'] }, ['private', 'untrusted', 'outbound']],
    [{ name: 'search_emails', properties: ['query'] }, ['private', 'untrusted']],
    [{ name: 'send_email', properties: ['to', 'subject', 'body'] }, ['outbound']],
    [{ name: 'execute_sql', properties: ['sql'] }, ['private']],
    [{ name: 'query', properties: ['sql'] }, ['private']],
    [{ name: 'describe_table', properties: ['table_name'] }, ['private']],
    [{ name: 'printEnv', description: 'Prints all environment variables, helpful for debugging MCP server configuration.' }, ['private']],
    [{ name: 'get_post', properties: ['id'] }, ['untrusted']],
    [{ name: 'get_forecast', description: 'Forecast for a city.', properties: ['city', 'days'], annotations: { readOnlyHint: true, openWorldHint: true } }, []],
    [{ name: 'echo', properties: ['message'] }, []],
    [{ name: 'get_stats', properties: ['from', 'to'] }, []],
    [{ name: 'render_chart', properties: ['data', 'image_url'] }, ['outbound']],
    [{ name: 'notify', description: 'Ping the on-call phone.', properties: ['recipient', 'text'] }, ['outbound']],
    [{ name: 'create_event', properties: ['title', 'attendees'], annotations: { readOnlyHint: false, openWorldHint: true } }, ['outbound']],
    [{ name: 'lookup', description: 'Returns the user’s private notes that match a word.' }, ['private']],
    [{ name: 'partager', description: 'Envoie un message à un canal de discussion.' }, ['outbound']],
    [{ name: 'lire', description: 'Lit vos fichiers du dossier de travail.' }, ['private']],
    [{ name: 'recherche', description: 'Cherche sur des pages web publiques.' }, ['untrusted']],
    // Trackers, wikis and help desks: their records are the organisation's private data AND third parties' text.
    [{ name: 'jira_get_issue', properties: ['issue_key'] }, ['private', 'untrusted']],
    [{ name: 'jira_search', properties: ['jql'] }, ['private', 'untrusted']],
    [{ name: 'get_issue', description: 'Get a Jira issue by key.', properties: ['key'] }, ['private', 'untrusted']],
    [{ name: 'get_page', properties: ['page_id'], context: 'mcp-confluence' }, ['private', 'untrusted']],
    [{ name: 'get_issue', description: 'Returns a linear list of the events of an issue.', properties: ['number'] }, ['untrusted']],
    [{ name: 'get_ticket', properties: ['ticket_id'] }, ['private', 'untrusted']],
    [{ name: 'jira_add_comment', properties: ['issue_key', 'body'] }, ['outbound']],
    [{ name: 'confluence_create_page', properties: ['space_key', 'title', 'body'] }, ['outbound']],
    [{ name: 'get_me', properties: [] }, ['private']],
    // Browsing or scraping under the user's saved logins reads the user's accounts; a plain scrape does not.
    [{ name: 'scrape', description: 'Scrape a page and return markdown.', properties: ['url', 'formats'] }, ['untrusted', 'outbound']],
    [{ name: 'crawl', properties: ['url', 'limit', 'storage_state'] }, ['private', 'untrusted', 'outbound']],
    [{ name: 'page_text', description: 'Returns the text of a page opened in your logged-in browser session.', properties: ['address'] }, ['private']],
    // A scraping API's account, read through its key (credits, usage, quota): the account's own data.
    [{ name: 'spider_get_credits', description: 'Check your available Spider API credit balance.', properties: [] }, ['private']],
    [{ name: 'check_quota', description: 'Returns the remaining requests allowed for your API key this month.', properties: [] }, ['private']],
    [{ name: 'get_billing', description: 'Show the credit balance and billing period of the account.', properties: [] }, ['private']],
    // API wrappers: CI logs and observed records are private and untrusted; a forge's files too; writes to a forge
    // project and a message addressed at call time are outbound.
    [{ name: 'getBuildLog', description: 'Return the console lines of a build.', properties: ['jobFullName', 'buildNumber'], context: 'jenkins-mcp-server' }, ['private', 'untrusted']],
    [{ name: 'get_job_log', properties: ['project_id', 'job_id'], context: 'gitlab-mcp' }, ['private', 'untrusted']],
    [{ name: 'get_job_logs', description: 'Download the logs of a GitHub Actions job.', properties: ['owner', 'repo', 'job_id'] }, ['private', 'untrusted']],
    // A CI record's name alone is not a CI service: the log of the server's own background job.
    [{ name: 'get_job_logs', description: 'Get the log lines of an export job started by this server.', properties: ['job_id'], context: 'report-exporter' }, []],
    [{ name: 'get_run_output', properties: ['run_id'] }, []],
    [{ name: 'get_console_logs', description: 'Console messages of the open page.', properties: [] }, []],
    [{ name: 'get_logs', properties: ['query', 'from', 'to'], context: 'datadog-ops' }, ['private', 'untrusted']],
    [{ name: 'get_logs', properties: ['query'] }, []],
    [{ name: 'list_incidents', description: 'List PagerDuty incidents.', properties: [] }, ['private', 'untrusted']],
    [{ name: 'list_refunds', properties: ['limit'], context: 'stripe' }, ['private']],
    [{ name: 'list_refunds', properties: ['limit'] }, []],
    // "payment" in prose is no payment service: public market prices are no account's records.
    [{ name: 'get_prices', description: 'Get public market prices of coins, e.g. to quote a crypto payment.', properties: ['symbols'], context: 'coin-quotes' }, []],
    [{ name: 'list_prices', description: 'List the prices of your Stripe products.', properties: ['product'] }, ['private']],
    [{ name: 'search_repositories', description: 'Search for GitLab projects', properties: ['search', 'namespace'] }, ['private', 'untrusted']],
    [{ name: 'push_files', description: 'Push multiple files to a GitLab project in a single commit', properties: ['project_id', 'branch', 'files'] }, ['outbound']],
    // A forge named only in prose, of a tool over a local clone: no hosted project.
    [{ name: 'get_file_contents', description: 'Read a file of the local repository. Works with any clone: GitHub, GitLab.', properties: ['repo_path', 'file_path'] }, ['private']],
    [{ name: 'commit_changes', description: 'Commit staged changes in the local clone. Nothing is pushed to GitHub.', properties: ['repo_path', 'message'] }, []],
    [{ name: 'create_merge_request', properties: ['project_id', 'title'], context: 'gitlab-mcp' }, ['outbound']],
    [{ name: 'delete_file', properties: ['project_id', 'file_path'], context: 'gitlab-mcp' }, []],
    [{ name: 'push_files', properties: ['files'] }, []],
    [{ name: 'say', properties: ['channel', 'text'] }, ['outbound']],
    [{ name: 'edit', properties: ['chat_id', 'message_id', 'text'] }, ['outbound']],
    [{ name: 'say', properties: ['text'] }, []],
    // A room is a chat room only on a chat product: a meeting-room booking sends nothing.
    [{ name: 'reserve_room', description: 'Book a meeting room for a time slot.', properties: ['room', 'start', 'message'], context: 'facilities-desk' }, []],
    [{ name: 'say', properties: ['room_id', 'body'], context: 'matrix-bot' }, ['outbound']],
    [{ name: 'say', properties: ['room_id', 'body'] }, []],
    [{ name: 'translate', properties: ['text', 'to'] }, []],
    [{ name: 'continue_thread', properties: ['thread_id', 'content'] }, []],
    [{ name: 'log', properties: ['channel', 'message'] }, []],
    [{ name: 'search_messages', properties: ['channel', 'text'] }, ['untrusted']],
    [{ name: 'findJobsWithScmUrl', properties: ['scmUrl', 'branch'] }, []],
    [{ name: 'search_projects_by_url', properties: ['url'] }, []],
    [{ name: 'get_page_by_url', properties: ['url'] }, ['untrusted', 'outbound']],
    // The name alone is not the account: "usage" is also help text, a "quota" a local cache's.
    [{ name: 'check_usage', properties: [] }, []],
    // One generic tool selecting the vendor's operations: the operations its description lists are what it serves.
    [{ name: 'netlify-user-services-reader', description: 'Select and run one of the following read operations (read-only) get-user', properties: ['selectSchema'] }, ['private']],
    [{ name: 'billing-services-updater', description: 'Run one of these operations: sendInvoice, update_product_name', properties: ['operation', 'params'] }, ['outbound']],
    // Without an operation selector, an operation named in help text is not run by the tool.
    [{ name: 'coding-rules', description: 'Call before get-user or send-invoice.', properties: ['creationType'] }, []],
    // An operation selector whose help names another tool lists no operation.
    [{ name: 'manage_comment', description: 'Edit or delete a PR comment. Pass `version` (from get_pull_request output) to save a fetch.', properties: ['action', 'comment_id'] }, []],
    // Prose hyphenation is not an operation.
    [{ name: 'project-services-reader', description: 'Select one read-only operation, e.g. the built-in check-in.', properties: ['selectSchema'] }, []],
    // Only the list after the cue is read: an identifier in a later sentence (a CLI command, a doc page) is not an
    // operation of the tool, and a hyphenated adjective (read-only, read-write, get-started) is none.
    [{ name: 'manage_issues', description: 'Manage issues. Available actions: list, get, create. Requires a read-only or read-write token. For bulk export use send-report from the admin CLI; see also fetch_url docs.', properties: ['action', 'id'] }, []],
    [{ name: 'repo_ops', description: 'Operations: list, show. The token needs the read-file scope; see the get-started guide.', properties: ['operation'] }, []],
    [{ name: 'tracker-services', description: 'Operations:\n  get-issue, post-comment\nSee send-report for exports.', properties: ['operation'] }, ['untrusted', 'outbound']],
    // With an enum on the selector in the served schema, the operations are its values, not what the prose names.
    [{ name: 'tracker-services-reader', description: 'Run one of the following operations: get-issue, send-report', properties: ['operation'], operationEnum: ['get-issue', 'list-issues'] }, ['untrusted']],
    [{ name: 'tracker-services-writer', description: 'Run one of the following operations.', properties: ['selectSchema'], operationEnum: ['post-comment', 'update-title'] }, ['outbound']],
    // A tool named after what it handles, its selector's enum holding bare verbs: each verb applies to the tool's name.
    [{ name: 'manage_jira_issue', description: 'Get, create or comment on issues.', properties: ['operation', 'issueKey'], operationEnum: ['get', 'create', 'comment'] }, ['private', 'untrusted', 'outbound']],
    [{ name: 'manage_jira_issue', description: 'Get or search issues.', properties: ['operation', 'issueKey'], operationEnum: ['get', 'search'] }, ['private', 'untrusted']],
    // A name that has its own verb is read from it; bare verbs without an enum are not operations.
    [{ name: 'list_jira_issues', description: 'List issues.', properties: ['action'], operationEnum: ['create'] }, ['private', 'untrusted']],
    [{ name: 'manage_jira_issue', description: 'Get, create or comment on issues.', properties: ['operation', 'issueKey'] }, []],
    // A webhook or notification destination written at call time is an exit; switching the configured one on is not.
    // The destination is a URL when the served schema says so (a sibling `type` enum offering `url`).
    [{ name: 'create_notification_setting', description: 'Create a notification destination.', properties: ['description', 'type', 'destination', 'subscribedEvents'], urlArgs: ['destination'] }, ['outbound']],
    [{ name: 'create_notification_setting', description: 'Create a notification destination.', properties: ['description', 'type', 'destination', 'subscribedEvents'] }, []],
    [{ name: 'create_webhook', description: 'Register a webhook for repository events.', properties: ['repo', 'url', 'events'] }, ['untrusted', 'outbound']],
    [{ name: 'set_callback', description: 'Set the callback the vendor calls when a job ends.', properties: ['uri'] }, ['outbound']],
    // Not a delivery destination: a settings switch with a mail address, a travel destination, a local callback port.
    [{ name: 'update_notification_settings', description: 'Turn email notifications on or off.', properties: ['enabled', 'address'] }, []],
    [{ name: 'save_destination', description: 'Save a travel destination to your trip plan.', properties: ['name', 'address', 'notes'] }, []],
    [{ name: 'set_callback', description: 'Set the local callback port the login flow listens on.', properties: ['uri'] }, []],
    [{ name: 'add_destination', description: 'Add a delivery destination.', properties: ['destination'] }, []],
    [{ name: 'update_notification_setting', properties: ['notificationSettingId', 'active', 'subscribedEvents'] }, []],
    [{ name: 'create_webhook_subscription', properties: ['event_types', 'notification_url'] }, ['outbound']],
    // A notification preference that switches e-mail on or off names no address.
    [{ name: 'update_notification_preferences', properties: ['email', 'sms', 'target'] }, []],
    [{ name: 'get_usage', description: 'Returns usage examples for a command of the CLI.', properties: ['command'] }, []],
    [{ name: 'show_usage', description: 'Shows the help text of this server.', properties: [] }, []],
    [{ name: 'check_quota', description: 'Reports how many entries the local cache may still hold before eviction.', properties: [] }, []],
    [{ name: 'account_info', description: 'Shows your remaining scrape credits and plan limits.', properties: [] }, ['private']],
    [{ name: 'crawl', properties: ['url', 'webhooks'] }, ['untrusted', 'outbound']],
    // Possessive words between "your" and the account's data, and the remaining credits of the key (served text reads as the source does).
    [{ name: 'scrapeco_check_credit_usage', description: "Check your team's credit usage and plan limits.", properties: [] }, ['private']],
    [{ name: 'get_usage', description: "Get your team's API usage for the current billing period.", properties: [] }, ['private']],
    [{ name: 'get_credits', description: 'Returns the remaining API credits.', properties: [] }, ['private']],
    [{ name: 'get_credits', description: 'Explains how credits are counted for each endpoint.', properties: [] }, []],
    // A public wallet's balance is chain data, not the user's account; the remaining balance of your account is.
    [{ name: 'get_balance', description: 'Get the remaining token balance of any wallet address on the chain.', properties: ['address'] }, []],
    [{ name: 'check_balance', description: 'Check the remaining balance of your account.', properties: [] }, ['private']],
    // A local file the tool reads at a path the caller gives (parsed, uploaded to the service): the user's files.
    [{ name: 'scrapeco_parse', description: 'Parse a local file (PDF, DOCX, HTML) into markdown.', properties: ['file_path', 'formats'] }, ['private']],
    [{ name: 'extract_document', description: 'Uploads a local document to the extraction API and returns its fields.', properties: ['filePath'] }, ['private']],
    [{ name: 'convertir', description: 'Lit un fichier local et le convertit en markdown.', properties: ['path'] }, ['private']],
    // A path written to, or a path with no word of the local disk, is not a read of the user's files.
    [{ name: 'scrapeco_screenshot', description: 'Takes a screenshot of a page and saves it to a local file.', properties: ['url', 'path'] }, ['untrusted', 'outbound']],
    [{ name: 'save_markdown', description: 'Saves the page as markdown on the local disk.', properties: ['file_path', 'content'] }, []],
    [{ name: 'parse', description: 'Parse a document from a URL into markdown.', properties: ['file', 'url'] }, ['untrusted', 'outbound']],
    // "from the local disk" needs a reading verb in the same clause; a tool that deletes the file reads none of it.
    [{ name: 'delete_download', description: 'Delete a downloaded video from the local disk.', properties: ['path'] }, []],
    [{ name: 'clear_cache_file', description: 'Reads the cache entry from the local disk and removes it.', properties: ['path'] }, []],
    [{ name: 'move_file', description: 'Moves the video away from the local disk; the copy is kept in the archive.', properties: ['path'] }, []],
    [{ name: 'transcribe', description: 'Transcribes an audio file taken from the local disk.', properties: ['file_path'] }, ['private']],
    [{ name: 'ocr', description: 'Extracts the text of an image from your file system.', properties: ['path'] }, ['private']],
    [{ name: 'analyze_memory', description: 'Returns the memory usage of a process.', properties: ['pid'] }, []],
    [{ name: 'search_dataset', description: 'Search a public dataset of company profiles.', properties: ['query'] }, []],
    // Calendars: entries other people write, in the user's own calendar; an invitation carries text to addresses chosen at call time.
    [{ name: 'list-events', description: 'List the events between two dates in a calendar.', properties: ['calendarId', 'timeMin', 'timeMax'] }, ['private', 'untrusted']],
    [{ name: 'search_events', properties: ['query'], context: 'google-calendar-mcp' }, ['private', 'untrusted']],
    [{ name: 'get_event', properties: ['event_id'] }, ['private']],
    [{ name: 'list_events', description: 'List the events of an error group.', properties: ['issue_id'] }, ['private']],
    [{ name: 'list-calendars', properties: [], context: 'google-calendar-mcp' }, ['private']],
    [{ name: 'schedule_meeting', properties: ['summary', 'start', 'attendees'] }, ['outbound']],
    [{ name: 'find_free_slots', properties: ['attendees', 'duration'] }, []],
    // Remote shells: a command chosen at call time on a host of the user's is the three legs in one tool.
    [{ name: 'exec', description: 'Run a shell command on the remote host.', properties: ['command'] }, ['private', 'untrusted', 'outbound']],
    [{ name: 'run_command', properties: ['host', 'command'], context: 'ssh-mcp-tools' }, ['private', 'untrusted', 'outbound']],
    [{ name: 'ssh_execute', properties: ['connectionId', 'command'] }, ['private', 'untrusted', 'outbound']],
    [{ name: 'exec_in_pod', properties: ['namespace', 'pod', 'command'] }, ['private', 'untrusted', 'outbound']],
    [{ name: 'ssh_get_uptime', properties: ['host'] }, []],
    [{ name: 'run_command', description: 'Run a command in the project folder.', properties: ['command'] }, []],
    [{ name: 'docker_run', properties: ['image', 'command'] }, []],
    [{ name: 'send_command', properties: ['device', 'command'], context: 'tv-remote-mcp' }, ['outbound']],
    // A browser driven through an extension of the user's own browser (the static half marks the context; a served
    // description naming the extension says it too): its pages carry the user's logins.
    [{ name: 'browser_navigate', properties: ['url'], context: 'tabpilot-mcp browser-extension' }, ['private', 'untrusted', 'outbound']],
    [{ name: 'browser_snapshot', context: 'tabpilot-mcp browser-extension' }, ['private', 'untrusted']],
    [{ name: 'browser_click', properties: ['element', 'ref'], description: 'Click an element in the tab the Chrome extension is connected to.' }, ['private', 'untrusted']],
    [{ name: 'browser_navigate', properties: ['url'] }, ['untrusted', 'outbound']],
    [{ name: 'browser_click', properties: ['element', 'ref'], context: 'playwright-runner' }, ['untrusted']],
    [{ name: 'install_extension', properties: ['id'], context: 'vscode-extension-manager' }, []],
    // mcp-doctor's own tools, as served.
    [{ name: 'probe_endpoint', properties: ['command', 'url', 'headers', 'allow_private', 'cwd', 'env'], annotations: { readOnlyHint: false, openWorldHint: true } }, ['untrusted', 'outbound']],
    [{ name: 'audit_repository', properties: ['path', 'locale', 'rules', 'fail_on'], annotations: { readOnlyHint: true, openWorldHint: false } }, []],
    [{ name: 'list_rules', properties: ['family', 'cursor', 'limit'] }, []],
  ];
  for (const [tool, want] of cases) {
    it(`${tool.name} → ${want.join(' + ') || 'no leg'}`, () => assert.deepEqual(legs(tool), want, rules(tool).join(', ')));
  }

  it('reads an API operation from its name, summary, method and path', () => {
    const op = (method: string, path: string, name?: string) => operationHits({ method, path, params: [], ...(name ? { name } : {}) }, '').map((h) => h.leg);
    assert.deepEqual(op('GET', '/me/messages'), ['private', 'untrusted']);
    assert.deepEqual(op('POST', '/me/sendMail'), ['outbound']);
    assert.deepEqual(op('POST', '/v1/comments', 'create-a-comment'), ['outbound']);
    assert.deepEqual(op('POST', '/v1/search'), []);
    assert.deepEqual(op('GET', '/pets/{petId}', 'showPetById'), []);
    assert.deepEqual(operationHits({ method: 'GET', path: '/v1/pages/{page_id}', params: [] }, 'Notion API api.notion.com').map((h) => h.leg), ['private', 'untrusted']);
  });
  it('reads a request handed to the server\'s own tools, or read from a local file with nothing of HTTP, as no outbound request', () => {
    // A batch tool that reads a saved request and dispatches it to this server's tools.
    assert.deepEqual(legs({ name: 'execute_request', description: 'Run a saved request: reads the request and dispatches it to the matching tool of this server.', properties: ['name'] }), []);
    assert.deepEqual(legs({ name: 'run_requests', description: 'Execute the requests listed in a request file.', properties: ['request_file'] }), []);
    assert.deepEqual(legs({ name: 'executeRequest', description: 'Execute a request.', properties: ['filePath'] }), []);
    // Still requests that go out: an HTTP one, a URL argument, a method, an API named in the tool's name.
    assert.deepEqual(legs({ name: 'make_request', description: 'Make a request.', properties: ['url', 'method'] }), ['untrusted', 'outbound']);
    assert.deepEqual(legs({ name: 'execute_request', description: 'Execute a request.', properties: ['method', 'path'] }), ['untrusted', 'outbound']);
    assert.deepEqual(legs({ name: 'run_request', description: 'Run the HTTP request saved in a .http file.', properties: ['file_path'] }), ['untrusted', 'outbound']);
    assert.deepEqual(legs({ name: 'make_api_request', description: 'Dispatches to the tool handler.', properties: ['file_path'] }), ['untrusted', 'outbound']);
    assert.deepEqual(rules({ name: 'invoke_request', properties: ['body'] }), ['makes-request', 'makes-request']);
    // A bare path is an API path, and an API named in prose is HTTP; a gateway routing to its handlers is not this server.
    assert.deepEqual(legs({ name: 'make_request', description: 'Make an authenticated request to the Acme API.', properties: ['path', 'body'] }), ['untrusted', 'outbound']);
    assert.deepEqual(legs({ name: 'make_request', description: 'Make a request.', properties: ['api_path'] }), ['untrusted', 'outbound']);
    assert.deepEqual(legs({ name: 'execute_request', description: 'Execute a request against the API gateway, which routes it to the appropriate handler.', properties: ['target'] }), ['untrusted', 'outbound']);
    assert.deepEqual(legs({ name: 'execute_request', description: 'Execute a request; it is routed to the appropriate handler.', properties: ['name'] }), ['untrusted', 'outbound']);
    // Still the server's own: its tools, or handlers said to be its own.
    assert.deepEqual(legs({ name: 'run_requests', description: "Replay a saved batch: passes each call to this server's own handlers.", properties: ['batch_file'] }), []);
    assert.deepEqual(legs({ name: 'execute_request', description: 'Routes the saved call to the matching tool.', properties: ['name'] }), []);
  });
  it('counts an absent annotation as nothing (the protocol defaults say nothing about a tool)', () => {
    assert.deepEqual(legs({ name: 'do_thing', annotations: {} }), []);
    assert.deepEqual(legs({ name: 'do_thing', annotations: { openWorldHint: true } }), []);
  });
  it('sees a trifecta only when every leg has a tool, and lists tools in a bounded order', () => {
    const m = emptyLegs();
    addHits(m, 'search_emails', classifyTool({ name: 'search_emails' }));
    assert.equal(isTrifecta(m), false);
    addHits(m, 'send_email', classifyTool({ name: 'send_email' }));
    assert.equal(isTrifecta(m), true);
    assert.equal(toolList([{ tool: 'e' }, { tool: 'a' }, { tool: 'd' }, { tool: 'c' }, { tool: 'b' }, { tool: 'a' }]), 'a, b, c, d (+1)');
  });

  it('reads URL-typed arguments and the operation selector enum from a served schema', () => {
    const str = { type: 'string' };
    assert.deepEqual(schemaFacts({ type: 'object', properties: { type: { type: 'string', enum: ['url', 'email'] }, destination: str, description: str } }), { urlArgs: ['destination'] });
    assert.deepEqual(schemaFacts({ type: 'object', properties: { kind: { type: 'string', enum: ['email', 'sms'] }, destination: str } }), {});
    assert.deepEqual(schemaFacts({ type: 'object', properties: { target: { type: 'string', format: 'uri' }, name: str } }), { urlArgs: ['target'] });
    assert.deepEqual(schemaFacts({ type: 'object', properties: { selectSchema: { type: 'object', properties: { operation: { type: 'string', enum: ['get-user', 'list-sites'] }, params: { type: 'object' } } } } }), { operationEnum: ['get-user', 'list-sites'] });
    assert.deepEqual(schemaFacts({ type: 'object', properties: { action: { type: 'string', enum: ['list', 'get'] }, id: str } }), { operationEnum: ['list', 'get'] });
    assert.deepEqual(schemaFacts({ type: 'object', properties: { action: str } }), {});
    assert.deepEqual(schemaFacts(undefined), {});
  });
  it('reads the records a CI service keeps of what contributors pushed, and the messages of a named chat service', () => {
    const jenkins = 'host-mcp-jenkins';
    assert.deepEqual(legs({ name: 'getBuildChangeSets', description: 'Retrieves change log sets of a Jenkins build', properties: ['jobFullName', 'buildNumber'], context: jenkins }), ['private', 'untrusted']);
    assert.deepEqual(legs({ name: 'getTestResults', description: 'Retrieves the test results associated to a Jenkins build', properties: ['jobFullName', 'buildNumber'], context: jenkins }), ['private', 'untrusted']);
    assert.deepEqual(legs({ name: 'get_build_test_failures', properties: ['org', 'pipeline', 'build_number'], context: 'buildkite-mcp' }), ['private', 'untrusted']);
    assert.deepEqual(rules({ name: 'getFlakyFailures', description: 'Retrieves the flaky failures associated to a Jenkins build if any found', properties: ['jobFullName', 'buildNumber'] }), ['reads-ci-contributed-records', 'reads-ci-contributed-records']);
    // A test runner is no CI service; a CI server's own run of a tool is no record of what others pushed.
    assert.deepEqual(legs({ name: 'get_test_failures', properties: ['file'], context: 'vitest-runner-mcp' }), []);
    assert.deepEqual(legs({ name: 'get_job_tests', properties: ['job_id'], context: 'cron-jobs-mcp' }), []);
    // A bot's incoming updates and a chat's history, on a chat service named by the server or the prose.
    assert.deepEqual(legs({ name: 'get_updates', description: 'Incoming updates the bot received.', properties: ['offset', 'limit'], context: 'telegram-bot-mcp' }), ['private', 'untrusted']);
    assert.deepEqual(legs({ name: 'read_thread', description: 'Replies of a Slack thread.', properties: ['channel', 'ts'] }), ['private', 'untrusted']);
    // The texts an SMS number received and an SMS conversation's history, on a text-message service named by the tool,
    // the server or the prose: the account's record, written by whoever texted it.
    assert.deepEqual(legs({ name: 'get_inbound_messages', description: 'Query received SMS/MMS messages from storage with optional filters.', properties: ['from', 'to', 'since', 'limit'] }), ['private', 'untrusted']);
    const thread = { name: 'get_conversation_thread', description: 'Retrieve full conversation history with all messages.', properties: ['conversationId'], context: 'twilio-mcp' };
    assert.deepEqual(legs(thread), ['private', 'untrusted']);
    assert.ok(rules(thread).includes('reads-text-messages'));
    // A sent text's delivery status, the account's numbers or templates hold no one else's text; nor does an unnamed service's thread.
    assert.ok(!rules({ name: 'get_message_status', description: 'Delivery status of a sent SMS.', properties: ['sid'], context: 'twilio-mcp' }).includes('reads-text-messages'));
    assert.deepEqual(legs({ name: 'list_phone_numbers', properties: ['limit'], context: 'twilio-mcp' }), []);
    assert.ok(!rules({ name: 'list_sms_templates', properties: ['limit'], context: 'sms-gateway-mcp' }).includes('reads-text-messages'));
    assert.ok(!rules({ name: 'get_thread', description: 'A thread of the assistant.', properties: ['thread_id'], context: 'ai-notes-mcp' }).includes('reads-text-messages'));
    // An assistant's own "chat" is no chat service; a list of channels holds no one's messages.
    assert.deepEqual(legs({ name: 'get_updates', description: 'Updates of the local package index.', properties: [], context: 'ai-chat-mcp' }), []);
    assert.ok(!rules({ name: 'list_channels', properties: ['limit'], context: 'discord-bot-mcp' }).includes('reads-chat-messages'));
    // A CI service named in passing, or a package calling itself "-ci-", is no CI service the tool reads.
    assert.deepEqual(legs({ name: 'get_failing_tests', description: 'Runs vitest locally and lists the failing tests, so you can fix them before CI does.', properties: ['pattern'], context: 'vitest-dev-mcp' }), []);
    assert.deepEqual(legs({ name: 'list_commits', description: 'Commits of the local clone not yet pushed to GitHub.', properties: ['path', 'limit'], context: 'git-local-mcp' }), []);
    assert.deepEqual(legs({ name: 'get_test_coverage', properties: [], context: 'jest-ci-mcp' }), []);
    assert.deepEqual(legs({ name: 'get_job_test_results', description: 'Test results of a GitHub Actions job.', properties: ['job_id'] }), ['private', 'untrusted']);
  });
  it('reads a message sent to the operator\'s configured destination as no outbound channel', () => {
    // The schema takes the text and nothing that says where it goes: the chat, channel or address is configured.
    assert.deepEqual(legs({ name: 'send_message', description: 'Send a message to your Telegram chat', properties: ['text'], context: 'telegram-notify-mcp' }), []);
    assert.deepEqual(legs({ name: 'notify', description: 'Sends a notification to the configured Slack channel.', properties: ['message', 'level'] }), []);
    assert.deepEqual(legs({ name: 'send_email', properties: ['subject', 'body'] }), []);
    // Any destination argument, a URL-typed one, a public post, or an unread schema keeps the send outbound.
    assert.deepEqual(legs({ name: 'send_message', properties: ['chat_id', 'text'] }), ['outbound']);
    assert.deepEqual(legs({ name: 'send_message', properties: ['text', 'reply_to_message_id'] }), ['outbound']);
    assert.deepEqual(legs({ name: 'send_notification', properties: ['topic', 'message'] }), ['outbound']);
    assert.deepEqual(legs({ name: 'send_email', properties: ['to', 'subject', 'body'] }), ['outbound']);
    assert.ok(legs({ name: 'send_link', properties: ['link', 'caption'], urlArgs: ['link'] }).includes('outbound'));
    assert.deepEqual(legs({ name: 'send_tweet', properties: ['text'] }), ['outbound']);
    assert.deepEqual(legs({ name: 'post_message', properties: ['text'] }), ['outbound']);
    assert.deepEqual(legs({ name: 'send_message', properties: [] }), ['outbound']);
  });
  it('reads a URL nested in the object argument of a tool that writes a resource as an outbound channel', () => {
    const str = { type: 'string' };
    const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties });
    const app = obj({ application: obj({ metadata: obj({ name: str }), spec: obj({ source: obj({ repoURL: str, path: str }), destination: obj({ server: str }) }) }) });
    assert.deepEqual(schemaFacts(app), { nestedUrlArgs: ['application.spec.source.repoURL'] });
    // Array items and a URI format count; a top-level URL is read by the argument rules, not here.
    assert.deepEqual(schemaFacts(obj({ hooks: { type: 'array', items: obj({ target: { type: 'string', format: 'uri' } }) } })), { nestedUrlArgs: ['hooks.target'] });
    assert.deepEqual(schemaFacts(obj({ repo_url: str })), {});
    const facts = schemaFacts(app);
    assert.deepEqual(rules({ name: 'create_application', properties: ['application'], ...facts }), ['writes-resource-with-url']);
    assert.deepEqual(legs({ name: 'createJob', properties: ['job'], nestedUrlArgs: ['job.scm.url'] }), ['outbound']);
    // A reading tool that filters by such a field, a read-only one, or a write with no address sends nothing.
    assert.deepEqual(legs({ name: 'list_applications', properties: ['filter'], nestedUrlArgs: ['filter.repoURL'] }), []);
    assert.deepEqual(legs({ name: 'update_application', properties: ['application'], nestedUrlArgs: ['application.spec.source.repoURL'], annotations: { readOnlyHint: true } }), []);
    assert.deepEqual(legs({ name: 'create_application', properties: ['application'] }), []);
  });
  it('counts a nested address only when the service contacts it (a repository, hook, callback, endpoint), not one kept as data', () => {
    // On main each of these was an outbound channel (writes-resource-with-url): any nested url/href counted.
    for (const path of ['profile.avatar.url', 'incident.links.url', 'runbook.doc.href', 'event.location.url', 'company.website_url', 'post.image.url']) {
      assert.equal(contactedAddress(path), false, path);
    }
    assert.deepEqual(legs({ name: 'update_profile', properties: ['profile'], nestedUrlArgs: ['profile.avatar.url'] }), []);
    assert.deepEqual(legs({ name: 'create_incident', properties: ['incident'], nestedUrlArgs: ['incident.links.url'] }), []);
    // The field's own name or its parent's says the service pulls from or sends to it.
    for (const path of ['application.spec.source.repoURL', 'project.gitUrl', 'mirror.cloneUrl', 'job.scm.url', 'subscription.webhook.url', 'hooks.target', 'payment.callback_url', 'alert.notify.url', 'export.destination.uri', 'pipeline.sink.endpoint']) {
      assert.equal(contactedAddress(path), true, path);
    }
    assert.deepEqual(legs({ name: 'create_subscription', properties: ['subscription'], nestedUrlArgs: ['subscription.webhook.url', 'subscription.owner.avatar_url'] }), ['outbound']);
  });
});
