import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { toolFlows, toolStops, type Flow } from '../../facts/flow.js';
import { sourceGap } from '../../facts/server-model.js';
import { noHandlersFound } from '../support/source/tool-absence.js';
import python from './python.js';

/**
 * unconfined file access (static, JavaScript/TypeScript part). Reads the taint flows of facts/flow
 * from the arguments of every tool (prompt, resource template) handler to file-system calls (fs,
 * fs/promises, fs-extra: reads, writes, deletions; the path arguments only; the local path of an SFTP
 * upload or download; the file and folder words of a shell command line, also of one made as a template and run by
 * the package's own helper, `runCommand(`rg -n ${p} ${dir}`)` into `exec(command)`) and reports each one reached
 * without sound confinement, at the call's line:
 *   - 'path-not-confined': no check between the argument and the call;
 *   - 'prefix-without-separator': the resolved path is checked with `startsWith(root)`, which also accepts
 *     a sibling such as /srv/data-private for /srv/data;
 *   - 'raw-path-check': the only check looks at the unresolved string (`includes('..')`, a regex,
 *     `isAbsolute`, a literal prefix), which `a/../../b`, encodings or absolute paths get around;
 *   - 'allowlist-open-by-default': the confinement lets everything through while its list of allowed
 *     roots is empty (`if (allowed.length === 0) return true`), and that list is empty unless configured
 *     (`config.allowedDirectories ?? []`);
 *   - 'roots-changed-by-tool': a tool writes its arguments into the allowed roots the confinement reads (a
 *     `set_config`-like tool doing `config[key] = value`, or pushing a folder): the caller moves the fence;
 *   - 'caller-sql-reaches-files': the whole text of a statement sent to a SQL client comes from the arguments
 *     (facts/flow sink kind 'sql': `client.query(args.sql)`, `db.all(sql)` in a helper), so the caller can write
 *     the statements that make the database read or write a file at a path of its choosing (`COPY t TO
 *     '<path>'`, `pg_read_file`, `lo_export`, SQLite `ATTACH DATABASE '<path>'` and `VACUUM INTO`, MySQL `INTO
 *     OUTFILE` and `LOAD_FILE`), unless a check is made on the statement: any unchecked one is red. A statement
 *     run in a read-only transaction the same function began (`BEGIN TRANSACTION READ ONLY`) is could-not-judge
 *     'sql-read-only-not-judged': table writes are refused, but `SELECT pg_read_file('/etc/passwd')` and `COPY …
 *     TO '<file>'` are not, and whether the database role may use them (superuser, pg_read_server_files,
 *     pg_write_server_files, MySQL's FILE privilege) is not known from the code. A statement that passes a check first (an
 *     allowlist, a pattern, words refused) is not judged here: the rule is then could-not-judge
 *     'sql-statement-check-not-judged' unless another call is red.
 *   - 'sql-check-first-word': every check the caller's statement passes looks at its first word only
 *     (`sql.trim().toUpperCase().startsWith('SELECT')`, `/^\s*(select|show)\b/i.test(sql)`, `sql.split(' ')[0]`;
 *     facts/flow Flow.sqlFirstWordOnly), and the client is a database server's (PostgreSQL, MySQL/MariaDB, SQL Server;
 *     Flow.sqlServer), where the rest of the statement still reads or writes files: `SELECT pg_read_file(…)`,
 *     `SELECT LOAD_FILE(…)`, `SELECT … INTO OUTFILE`, `INSERT … SELECT` of them, a second statement after `;`. Red,
 *     unless the statement runs in a read-only transaction ('sql-read-only-not-judged' then). On SQLite a first-word
 *     SELECT check does keep ATTACH and VACUUM INTO out of a one-statement call: could-not-judge as any check. A
 *     client received as a parameter is followed into the value the calling function passes (`handle(pool, sql)`
 *     with `pool = new pg.Pool()`); a stop on a call whose statement is written in the code (`client.query('… $1',
 *     [v])`) is a bound value, not a lost statement. A statement sent to a receiver only named like a
 *     SQL client (`client.query(text)`, `db.run(sql)`) whose module is not followed (a client received as a parameter,
 *     an object made by the package) is no evidence of SQL — an HTTP API client has `query` too — so it is never red:
 *     could-not-judge 'sql-client-not-resolved' unless another call is red. The arguments of a call on a prepared
 *     statement (`db.prepare('… ?').get(k)`, `stmt.run(a, b)`) are bound values, not statements.
 * Sound confinement (see facts/flow): path.resolve/join (or realpath) followed by a `startsWith(root +
 * path.sep)` check, or path.relative checked for '..'; path.basename; an allowlist of names. A helper such
 * as `confine(root, p)` in the same project counts when the handler uses its result.
 * No JavaScript/TypeScript source: could-not-judge 'no-source', or not-applicable 'no-js-source' when the
 * repository is Python (judged by the Python part, python.ts); source but no handler: noHandlersFound of
 * support/source/tool-absence (could-not-judge 'no-tools-in-source', or not-applicable on a relay).
 * A tool argument handed, in a package that uses a SQL client, to a statement-running method (executeSQL, query, run…)
 * of an object the flow analysis could not resolve (facts/flow toolStops: a connector picked from a registry) is
 * could-not-judge 'sql-flow-not-followed' (naming the call) rather than present, when nothing else is red or judged.
 * A method of a regular expression (`URI_RE.exec(uri)`, facts/flow ToolStop.regex) is a pattern match, not a statement sent.
 * One finding per call; the tools that reach it are named together.
 */

const rank = { none: 2, unsound: 1, sound: 0 } as const;

/** Methods that run a statement under SQL clients and the packages' own wrappers of them. */
const SQL_SEND = /^(?:execute(?:SQL|Sql|Query|Statement)?|exec|query|run(?:Query|Sql|SQL)?|all|raw|unsafe|\$queryRawUnsafe|\$executeRawUnsafe)$/;

export default [
  defineDetector({
    ruleId: 'X-5',
    genre: 'static',
    needs: ['repo'],
    partial: true,
    messages: {
      'path-not-confined': ['entry', 'name', 'call', 'access'],
      'prefix-without-separator': ['entry', 'name', 'call', 'guardLine'],
      'raw-path-check': ['entry', 'name', 'call', 'guardLine'],
      'allowlist-open-by-default': ['entry', 'name', 'call', 'guardLine'],
      'roots-changed-by-tool': ['entry', 'name', 'call', 'writer', 'guardLine'],
      'caller-sql-reaches-files': ['entry', 'name', 'call'],
      'sql-check-first-word': ['entry', 'name', 'call', 'guardLine'],
    },
    judge({ inputs: { repo } }) {
      const gap = sourceGap(repo);
      if (gap === 'no-js-source') return notApplicable(gap);
      // No handler at all: support/source/tool-absence (unread files named, a relay not-applicable, else could-not-judge).
      if (gap === 'no-tools-in-source') return noHandlersFound(repo);
      if (gap) return couldNotJudge(gap);
      const bySink = new Map<string, Flow[]>();
      const sqlChecked = new Set<string>();
      const sqlReadOnly = new Set<string>();
      const sqlUnresolved = new Set<string>();
      for (const f of toolFlows(repo)) {
        // A statement a helper built with written text before the value (`PRAGMA table_info(${name})`): not the caller's.
        if (f.sinkKind === 'sql' && f.sqlTextFirst) continue;
        if (f.sinkKind === 'sql') {
          // A statement the caller writes: no path confinement applies; a check on it (an allowlist, a pattern, a
          // list of refused words) is not judged — whether it refuses the file statements is not known.
          // A check on the first word only (`startsWith('SELECT')`), for a database server's client: the rest of the
          // statement is the caller's (`SELECT pg_read_file('/etc/passwd')`, `SELECT LOAD_FILE(…)`, `… INTO OUTFILE`,
          // `SELECT 1; COPY t TO '<file>'`) — red, unless it runs in a read-only transaction (then as that case).
          if (f.guard !== 'none' && f.sqlFirstWordOnly && f.sqlServer && !f.sqlUnresolved && !f.readOnly) {
            bySink.set(`sql|${f.file}:${f.line}:${f.column}`, [...(bySink.get(`sql|${f.file}:${f.line}:${f.column}`) ?? []), f]);
          } else if (f.guard !== 'none' && f.sqlFirstWordOnly && f.readOnly && !f.sqlUnresolved) sqlReadOnly.add(f.tool);
          else if (f.guard !== 'none') sqlChecked.add(f.tool);
          // In a read-only transaction: what remains (pg_read_file, COPY … TO a file) depends on the role's file privileges.
          else if (f.readOnly) sqlReadOnly.add(f.tool);
          // Sent to a receiver only named like a SQL client (its module not followed): maybe an HTTP API's query.
          else if (f.sqlUnresolved) sqlUnresolved.add(f.tool);
          else bySink.set(`sql|${f.file}:${f.line}:${f.column}`, [...(bySink.get(`sql|${f.file}:${f.line}:${f.column}`) ?? []), f]);
          continue;
        }
        if (f.sinkKind !== 'fs' || f.guard === 'sound') continue;
        const key = `${f.file}:${f.line}:${f.column}`;
        bySink.set(key, [...(bySink.get(key) ?? []), f]);
      }
      const findings: Finding[] = [];
      for (const flows of bySink.values()) {
        const worst = [...flows].sort((a, b) => rank[b.guard] - rank[a.guard])[0]!;
        const names = [...new Set(flows.map((f) => f.tool))].sort().join(', ');
        const data = { entry: worst.entryKind, name: names, call: worst.sinkCall };
        const location = { file: worst.file, line: worst.line, column: worst.column };
        if (worst.sinkKind === 'sql' && worst.guard !== 'none') findings.push({ messageId: 'sql-check-first-word', data: { ...data, guardLine: worst.guardAt?.line ?? worst.line }, location });
        else if (worst.sinkKind === 'sql') findings.push({ messageId: 'caller-sql-reaches-files', data, location });
        else if (worst.guard === 'none') findings.push({ messageId: 'path-not-confined', data: { ...data, access: worst.access ?? 'read' }, location });
        else if (worst.guardDetail === 'roots-writable') {
          findings.push({ messageId: 'roots-changed-by-tool', data: { ...data, writer: worst.guardWriter ?? '', guardLine: worst.guardAt?.line ?? worst.line }, location });
        } else {
          const messageId =
            worst.guardDetail === 'prefix-without-separator' ? 'prefix-without-separator' : worst.guardDetail === 'default-open' ? 'allowlist-open-by-default' : 'raw-path-check';
          findings.push({ messageId, data: { ...data, guardLine: worst.guardAt?.line ?? worst.line }, location });
        }
      }
      if (findings.length) return { state: 'non-conforming', findings };
      if (sqlChecked.size) return couldNotJudge('sql-statement-check-not-judged', { name: [...sqlChecked].sort().join(', ') });
      if (sqlReadOnly.size) return couldNotJudge('sql-read-only-not-judged', { name: [...sqlReadOnly].sort().join(', ') });
      if (sqlUnresolved.size) return couldNotJudge('sql-client-not-resolved', { name: [...sqlUnresolved].sort().join(', ') });
      // In a package that uses a SQL client, an argument handed to a statement-running method of an object the analysis
      // could not resolve (`connector.executeSQL(sql)` on a connector picked from a registry): the flow stops unread there.
      // Not a call whose statement is written in the code (`client.query('… WHERE id = $1', [id])`): the argument is a bound value there.
      const lost = toolStops(repo).filter((s) => s.sql && s.why === 'method-of-unknown-receiver' && SQL_SEND.test(s.method ?? '') && !s.textFirst && !s.regex);
      if (lost.length) {
        const first = lost[0]!;
        return couldNotJudge('sql-flow-not-followed', { name: [...new Set(lost.map((s) => s.tool))].sort().join(', '), call: first.call, file: first.file, line: first.line });
      }
      return present();
    },
  }),
  python,
];
