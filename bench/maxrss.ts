/** Preloaded (--import) by bench:probe into the CLI it times: reports the process's peak RSS (kB) on stderr at exit. */
process.on('exit', () => {
  process.stderr.write(`\nbench-maxrss-kb ${process.resourceUsage().maxRSS}\n`);
});
