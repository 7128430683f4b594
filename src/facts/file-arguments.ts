/**
 * Paths handed to something else that then opens them, read the same way for JavaScript/TypeScript
 * (facts/flow/sinks.ts) and Python (facts/python-flow.ts): the arguments of a program that name a file or a
 * folder it reads or writes (`git -C dir`, `pg_dump -f out`, `tar -xzf archive -C dir`, `--output=file`, the files and
 * folders after a search program's pattern: `rg -n pattern dir`, `grep -rn -e pattern dir`; where find starts; what tar
 * packs: `tar -czf out.tgz dir`), and
 * the SQL that makes a database read or write a file (`COPY t TO '<path>'`, `pg_read_file(<path>)`,
 * `ATTACH DATABASE '<path>'`).
 */

/**
 * Long options whose value is a file or folder, whatever the program (compared in lower case). Not `--output` /
 * `--out`: kubectl, gcloud, az and aws take a format there (`--output json`); see LONG_PATH_FLAGS_OF.
 */
const LONG_PATH_FLAGS = new Set([
  '--output-file', '--outfile', '--out-file', '--output-dir', '--outdir', '--out-dir',
  '--file', '--input-file', '--infile', '--directory', '--dir', '--cwd', '--app-dir', '--project-dir',
  '--git-dir', '--work-tree', '--target-dir', '--kubeconfig', '--filename', '--log-file', '--config-file', '--dest-dir',
  '--workdir', '--work-dir', '--working-dir', '--working-directory', '--base-dir', '--root-dir', '--source-dir',
  '--output-path', '--input-path', '--project-path', '--manifest-path', '--template-file', '--key-file', '--env-file',
  // Platform CLIs (deploy and app commands): the app's manifest, Dockerfile or built folder read from disk.
  '--manifest', '--app-json', '--dockerfile', '--build-dir', '--dist-dir', '--tarball', '--procfile',
]);

/** Long options whose value is a file or folder for one program only. */
const LONG_PATH_FLAGS_OF: Record<string, ReadonlySet<string>> = {
  curl: new Set(['--output', '--upload-file', '--config']),
  pandoc: new Set(['--output']),
  'yt-dlp': new Set(['--output']),
  'youtube-dl': new Set(['--output']),
  wget: new Set(['--output-document', '--directory-prefix']),
  pg_dump: new Set(['--file']),
};

/** Options of the path-taking programs whose value is not a path (`head -n 20`, `du -d 1`). */
const VALUE_FLAGS = new Set(['-n', '-c', '-d', '-s', '--lines', '--bytes', '--max-depth', '--sort', '--format', '--color', '--block-size']);

/** Short options whose value is a file or folder, per program (a short letter means something else elsewhere). */
const SHORT_PATH_FLAGS: Record<string, ReadonlySet<string>> = {
  git: new Set(['-C']),
  tar: new Set(['-f', '-C']),
  bsdtar: new Set(['-f', '-C']),
  make: new Set(['-C', '-f']),
  pg_dump: new Set(['-f']),
  pg_dumpall: new Set(['-f']),
  pg_restore: new Set(['-f']),
  psql: new Set(['-f', '-o', '-L']),
  mysqldump: new Set(['-r']),
  docker: new Set(['-f']),
  'docker-compose': new Set(['-f']),
  kubectl: new Set(['-f', '-k']),
  helm: new Set(['-f']),
  unzip: new Set(['-d']),
  curl: new Set(['-o', '-T', '-K']),
  wget: new Set(['-O', '-P']),
};

/** Subcommands where a program's short path option means something else (`kubectl logs -f`, `docker logs -f`: follow). */
const NOT_PATH_IN_SUBCOMMAND: Record<string, Record<string, ReadonlySet<string>>> = {
  kubectl: { logs: new Set(['-f']), attach: new Set(['-f']) },
  docker: { logs: new Set(['-f']), events: new Set(['-f']) },
  'docker-compose': { logs: new Set(['-f']) },
};

/**
 * Options of kubectl and docker (and docker compose) that take a value, so that value is not read as a subcommand
 * (`kubectl -n logs apply -f x`, `kubectl --context prod logs -f pod`).
 */
const SUBCOMMAND_VALUE_FLAGS = new Set([
  '-n', '--namespace', '--context', '--cluster', '--user', '--server', '-s', '--token', '--as', '--kubeconfig',
  '-c', '--container', '-l', '--selector', '--since', '--tail', '--request-timeout', '-o', '--output',
  '-H', '--host', '--config', '-p', '--project-name', '--env-file', '--profile', '--project-directory', '--log-level',
]);

/**
 * For each position of an argument list, the subcommand words written before it (literal, not an option, not an
 * option's value): `['-n', 'kube-system', 'logs', '-f', pod]` → logs before the `-f`; docker `['compose', 'logs', '-f', x]`
 * → compose and logs.
 */
function subcommandsBefore(prog: string, argv: ArgvItem[]): ReadonlySet<string>[] {
  const short = SHORT_PATH_FLAGS[prog];
  const out: ReadonlySet<string>[] = [];
  const seen = new Set<string>();
  argv.forEach((item, i) => {
    out.push(new Set(seen));
    const v = item.value;
    if (v === undefined || v.startsWith('-')) return;
    const prev = i > 0 ? argv[i - 1]!.value : undefined;
    if (prev !== undefined && (SUBCOMMAND_VALUE_FLAGS.has(prev) || short?.has(prev) || isLongPathFlag(prev))) return;
    seen.add(v);
  });
  return out;
}

/** Programs whose plain (non-option) arguments are paths they read or write. */
const PATH_PROGRAMS = new Set(['cat', 'head', 'tail', 'less', 'more', 'rm', 'rmdir', 'cp', 'mv', 'mkdir', 'touch', 'ls', 'stat', 'unzip', 'zip', 'du']);

/** One element of an argument list as written: its text when it is a literal, the literal text before the first value of a template. */
export interface ArgvItem {
  value?: string;
  head?: string;
  /** A spread of an array (`...extra`): how many elements, options or operands, it brings is not known. */
  spread?: boolean;
}

/**
 * Search programs: their first operand is the pattern (unless an option gives it: `-e`, `-f`, `--regexp`, `--file`,
 * or rg's `--files`, which searches nothing), the operands after it are the files and folders they read.
 */
const SEARCH_PROGRAMS = new Set(['grep', 'egrep', 'fgrep', 'rg']);
/** Short options of those programs that take the next element (or the rest of their cluster) as their value. */
const SEARCH_SHORT_VALUE: Record<string, string> = { grep: 'efABCmdD', egrep: 'efABCmdD', fgrep: 'efABCmdD', rg: 'efABCmgtTjMErd' };
/** Their long options that take the next element as their value. */
const SEARCH_LONG_VALUE = new Set([
  '--regexp', '--file', '--after-context', '--before-context', '--context', '--max-count', '--include', '--exclude',
  '--exclude-dir', '--devices', '--directories', '--binary-files', '--label', '--glob', '--iglob', '--type', '--type-not',
  '--type-add', '--threads', '--max-columns', '--max-depth', '--max-filesize', '--replace', '--encoding', '--sort', '--sortr',
  '--colors', '--color', '--ignore-file', '--pre', '--pre-glob', '--engine', '--path-separator',
]);
/** Their long options known to take no value (any other long option written alone leaves the next element's role unknown). */
const SEARCH_LONG_FLAG = new Set([
  '--line-number', '--ignore-case', '--smart-case', '--case-sensitive', '--fixed-strings', '--word-regexp', '--line-regexp',
  '--files-with-matches', '--files-without-match', '--count', '--json', '--hidden', '--no-ignore', '--recursive',
  '--no-heading', '--heading', '--with-filename', '--no-filename', '--vimgrep', '--multiline', '--follow', '--invert-match',
  '--only-matching', '--null', '--pcre2', '--extended-regexp', '--perl-regexp', '--basic-regexp', '--no-messages', '--quiet',
  '--silent', '--text', '--binary', '--trim', '--stats', '--column', '--no-line-number', '--dereference-recursive', '--files',
]);

/**
 * The positions of a search program's argument list that name the files and folders it reads: the operands after
 * the pattern. Options are read as the program would (`-m 5`, `-g glob` take the next element; `-rn` does not); an
 * option whose arity is not known, a `--${name}` or a spread leaves the roles of the elements after it unknown, and
 * nothing after it is counted.
 */
function searchPathPositions(prog: string, argv: ArgvItem[]): number[] {
  const shortValue = SEARCH_SHORT_VALUE[prog]!;
  const patternGiven = argv.some((it) => {
    const v = it.value ?? it.head;
    if (v === undefined) return false;
    if (/^--(?:regexp|file|files)(?:=|$)/.test(v)) return true;
    const m = /^-([A-Za-z]+)/.exec(v);
    if (!m || v.startsWith('--')) return false;
    const firstValue = [...m[1]!].find((c) => shortValue.includes(c));
    return firstValue === 'e' || firstValue === 'f';
  });
  const out: number[] = [];
  let operands = patternGiven ? 1 : 0;
  let endOfOptions = false;
  for (let i = 0; i < argv.length; i++) {
    const { value, head, spread } = argv[i]!;
    if (spread) break;
    const text = value ?? head;
    if (!endOfOptions && text !== undefined && text.startsWith('-') && text !== '-') {
      if (value === '--') {
        endOfOptions = true;
        continue;
      }
      if (text.startsWith('--')) {
        if (text.includes('=')) continue;
        if (value === undefined) break; // `--${name}`: the option is the caller's.
        if (SEARCH_LONG_VALUE.has(value)) i++;
        else if (!SEARCH_LONG_FLAG.has(value)) break;
        continue;
      }
      const letters = /^-([A-Za-z]*)/.exec(text)![1]!;
      const at = [...letters].findIndex((c) => shortValue.includes(c));
      // A value letter last in a literal cluster takes the next element; written before other text, that text is its value.
      if (at === -1) {
        if (value === undefined || letters.length !== value.length - 1) break;
        continue;
      }
      if (value !== undefined && at === letters.length - 1 && value.length === letters.length + 1) i++;
      continue;
    }
    if (operands++ >= 1 && value === undefined) out.push(i);
  }
  return out;
}

/**
 * The positions of find's argument list that name where it starts: the operands before its expression (the first
 * element that starts with `-`, `(` or `!`, after the leading -H, -L, -P, -D <debug> and -O<level>).
 */
function findPathPositions(argv: ArgvItem[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const { value, head, spread } = argv[i]!;
    if (spread) break;
    if (value === '-H' || value === '-L' || value === '-P' || (value !== undefined && /^-O\d*$/.test(value))) continue;
    if (value === '-D') {
      i++;
      continue;
    }
    const text = value ?? head;
    if (text !== undefined && /^[-(!]/.test(text)) break;
    if (value === undefined) out.push(i);
  }
  return out;
}

/**
 * The operands of a tar that creates or adds to an archive (`tar -czf out.tgz dir`, `tar -r -f a.tar file`): the
 * files and folders it reads. Not in extract or list mode, where operands are names inside the archive.
 */
function tarMemberPositions(argv: ArgvItem[]): number[] {
  const cluster = (v: string): boolean => /^-?[A-Za-z]+$/.test(v) && !v.startsWith('--');
  const modes = argv.flatMap((it, i) => (it.value !== undefined && (i === 0 || it.value.startsWith('-')) && cluster(it.value) ? [it.value.replace(/^-/, '')] : []));
  if (!modes.some((m) => /[cru]/.test(m)) || modes.some((m) => /[xt]/.test(m))) return [];
  const out: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const { value, head, spread } = argv[i]!;
    if (spread) break;
    const prev = i > 0 ? argv[i - 1]!.value : undefined;
    // The value of -f / -C (already a path: see SHORT_PATH_FLAGS), or of a cluster ending in f.
    if (prev !== undefined && prev.startsWith('-') && /[fC]$/.test(prev)) continue;
    if (value !== undefined || (head !== undefined && /^-/.test(head))) continue;
    out.push(i);
  }
  return out;
}

/** The program's name without folders or a Windows suffix (`/usr/bin/git` → git). */
const programName = (p: string): string => (p.split(/[\\/]/).pop() ?? p).replace(/\.(?:exe|cmd)$/i, '');

const isLongPathFlag = (v: string): boolean => LONG_PATH_FLAGS.has(v.toLowerCase());

/**
 * The positions of an argument list (after the program) that hold a path the program opens, for any of the
 * program names given (the values the program may take): the value after a path option (`-C dir`, `--output
 * file`), a `--output=<value>` written as one element, a tar option cluster ending in f (`-xzf archive`), and the
 * plain arguments of a program that takes paths (cp, rm, cat…).
 */
export function pathArgumentPositions(programs: string[], argv: ArgvItem[]): number[] {
  const out = new Set<number>();
  for (const prog of new Set(programs.map(programName))) {
    const shortAll = SHORT_PATH_FLAGS[prog];
    const notPathOf = NOT_PATH_IN_SUBCOMMAND[prog];
    const subs = notPathOf ? subcommandsBefore(prog, argv) : undefined;
    /** Is this short option (at position j) a path option here, not the `-f` of `logs -f` written after the subcommand? */
    const shortPath = (flag: string, j: number): boolean =>
      !!shortAll?.has(flag) && !(subs && [...subs[j]!].some((sub) => notPathOf![sub]?.has(flag)));
    const long = LONG_PATH_FLAGS_OF[prog];
    const isPathFlag = (v: string): boolean => isLongPathFlag(v) || !!long?.has(v.toLowerCase());
    const tarLike = prog === 'tar' || prog === 'bsdtar';
    if (SEARCH_PROGRAMS.has(prog)) for (const i of searchPathPositions(prog, argv)) out.add(i);
    if (prog === 'find') for (const i of findPathPositions(argv)) out.add(i);
    if (tarLike) for (const i of tarMemberPositions(argv)) out.add(i);
    argv.forEach((item, i) => {
      const head = item.head;
      if (head !== undefined && /^--[\w-]+=$/.test(head) && isPathFlag(head.slice(0, -1))) out.add(i);
      if (item.value !== undefined) return;
      const prev = i > 0 ? argv[i - 1]!.value : undefined;
      if (prev !== undefined && (isPathFlag(prev) || shortPath(prev, i - 1) || (tarLike && /^-?[A-Za-z]*f$/.test(prev) && /[xctrudA]/.test(prev)))) out.add(i);
      else if (PATH_PROGRAMS.has(prog) && head === undefined && !(prev !== undefined && VALUE_FLAGS.has(prev))) out.add(i);
    });
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * SQL text that makes the database read or write a file, ending where the path is written (the value that follows,
 * in or out of quotes, is the path): PostgreSQL `COPY … TO|FROM`, `pg_read_file(`, `pg_read_binary_file(`,
 * `pg_ls_dir(`, `lo_import(`, `lo_export(oid, `; SQLite `ATTACH [DATABASE]`, `VACUUM INTO`; MySQL `LOAD_FILE(`,
 * `INTO OUTFILE|DUMPFILE`, `LOAD DATA [LOCAL] INFILE`; SQL Server `BULK INSERT … FROM`, `OPENROWSET(BULK ` (reads);
 * DuckDB `read_csv(`.
 */
const SQL_FILE = String.raw`(?:\bCOPY\b[^;]*?\b(TO|FROM)\s+|\b(pg_read_file|pg_read_binary_file|pg_ls_dir|lo_import|LOAD_FILE|read_csv(?:_auto)?)\s*\(\s*|\b(lo_export)\s*\([^,()]*,\s*|\b(ATTACH)\s+(?:DATABASE\s+)?|\b(VACUUM)\s+(?:\w+\s+)?INTO\s+|\bINTO\s+(OUTFILE|DUMPFILE)\s+|\bLOAD\s+DATA\s+(?:LOCAL\s+)?(INFILE)\s+|\bBULK\s+INSERT\b[^;]*?\bFROM\s+|\bOPENROWSET\s*\(\s*BULK\s+)`;
const SQL_FILE_BEFORE_VALUE = new RegExp(`${SQL_FILE}(?:E?'|")?$`, 'i');
const SQL_FILE_PLACEHOLDER = new RegExp(`${SQL_FILE}(\\$\\d+|\\?|%s|%\\(\\w+\\)s|:\\w+)`, 'gi');

export type SqlFileAccess = 'read' | 'write';

function sqlAccess(m: RegExpExecArray | RegExpMatchArray): SqlFileAccess {
  const word = (m.slice(1, 8).find((x) => x !== undefined) ?? '').toUpperCase();
  return /^(?:TO|LO_EXPORT|ATTACH|VACUUM|OUTFILE|DUMPFILE)$/.test(word) ? 'write' : 'read';
}

/** Is the SQL text written before a value the place of a file's path? Its access, if so. */
export function sqlFileBefore(textBefore: string): SqlFileAccess | undefined {
  const m = SQL_FILE_BEFORE_VALUE.exec(textBefore);
  return m ? sqlAccess(m) : undefined;
}

/**
 * The placeholders of a parameterised SQL text that stand for a file's path (`pg_read_file($1)`, `ATTACH ? AS
 * other`): the parameter's 0-based position for `$n`, undefined for a positional `?`/`%s` or a name, and the access.
 */
export function sqlFilePlaceholders(text: string): { position?: number; name?: string; access: SqlFileAccess }[] {
  const out: { position?: number; name?: string; access: SqlFileAccess }[] = [];
  for (const m of text.matchAll(SQL_FILE_PLACEHOLDER)) {
    const ph = m[8]!;
    const position = /^\$\d+$/.test(ph) ? Number(ph.slice(1)) - 1 : undefined;
    const name = /^:\w+$/.test(ph) ? ph.slice(1) : /^%\(\w+\)s$/.test(ph) ? ph.slice(2, -2) : undefined;
    out.push({ ...(position !== undefined ? { position } : {}), ...(name ? { name } : {}), access: sqlAccess(m) });
  }
  return out;
}
