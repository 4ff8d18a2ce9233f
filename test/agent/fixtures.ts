import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { shell } from './agent';
import { fileExists, outputHas, type ProjectSpec } from './plan';

/**
 * The three kinds of project an agent fixes a bug in, as tiny generated fixtures (nothing large in the repository,
 * no network: dependencies come from a tarball or a wheel inside the project, and the npm registry is a dead
 * 127.0.0.1 address so nothing leaves the machine):
 * - JavaScript: `npm test`, `npm run lint` through a linter that `npm install` puts in node_modules/.bin;
 * - Python: pytest in a virtual environment, a vendored wheel installed with pip, a Makefile;
 * - a project whose tests run through its own program (like bats' `bin/bats`): `bin/tt`, `./install.sh`, scripts/.
 * Each is a git repository whose last commit brought the bug.
 */

export interface Fixture {
  readonly ws: string;
  readonly spec: ProjectSpec;
}

/** Who the person is in their git configuration (the server reads it; commands commit as them). */
export const IDENTITY = { name: 'Agent Tester', email: 'agent.tester@example.test' };

function write(root: string, files: Record<string, string>, executable: readonly string[] = []): void {
  for (const [rel, body] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, body, { mode: executable.includes(rel) ? 0o755 : 0o644 });
  }
}

function commitAll(ws: string, message: string): void {
  const env = { PATH: process.env.PATH ?? '', HOME: '/nonexistent-gs-agent', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Upstream', GIT_AUTHOR_EMAIL: 'upstream@example.test', GIT_COMMITTER_NAME: 'Upstream', GIT_COMMITTER_EMAIL: 'upstream@example.test' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (!fs.existsSync(path.join(ws, '.git'))) git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', message);
}

const NPMRC = 'registry=http://127.0.0.1:9/\naudit=false\nfund=false\nupdate-notifier=false\n';

export function jsFixture(base: string): Fixture {
  const ws = path.join(base, 'calc-js');
  const linter = path.join(base, 'tinylint');
  write(linter, {
    'package/package.json': JSON.stringify({ name: 'tinylint', version: '1.0.0', bin: { tinylint: 'bin/tinylint.js' } }),
    'package/bin/tinylint.js': [
      '#!/usr/bin/env node',
      "'use strict';",
      "const fs = require('node:fs');",
      "const path = require('node:path');",
      'let bad = 0;',
      'const check = (f) => fs.readFileSync(f, "utf8").split("\\n").forEach((l, i) => { if (/\\s+$/.test(l) || /\\bvar\\b/.test(l)) { bad++; console.log(`${f}:${i + 1}: style`); } });',
      'const walk = (p) => (fs.statSync(p).isDirectory() ? fs.readdirSync(p).forEach((f) => walk(path.join(p, f))) : check(p));',
      'process.argv.slice(2).forEach(walk);',
      "console.log(bad ? `${bad} problems` : 'lint clean');",
      'process.exit(bad ? 1 : 0);',
      '',
    ].join('\n'),
  }, ['package/bin/tinylint.js']);
  fs.mkdirSync(path.join(ws, 'vendor'), { recursive: true });
  execFileSync('tar', ['-czf', path.join(ws, 'vendor', 'tinylint-1.0.0.tgz'), '-C', linter, 'package']);
  fs.rmSync(linter, { recursive: true });
  write(ws, {
    'package.json': JSON.stringify({
      name: 'calc', version: '1.0.0', private: true,
      scripts: { test: 'node test/run.js', lint: 'tinylint src test', build: 'node scripts/build.js' },
      devDependencies: { tinylint: 'file:vendor/tinylint-1.0.0.tgz' },
    }, null, 2) + '\n',
    '.npmrc': NPMRC,
    '.gitignore': 'node_modules/\ndist/\n',
    'README.md': '# calc\n\nAdds numbers. `npm test`, `npm run lint`, `npm run build`.\n',
    'src/calc.js': "'use strict';\n\nfunction add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n",
    'test/run.js': "'use strict';\nconst assert = require('node:assert');\nconst { add } = require('../src/calc');\n\nassert.strictEqual(add(2, 3), 5, 'add(2, 3) should be 5');\nconsole.log('calc: all tests passed');\n",
    'scripts/build.js': "'use strict';\nconst fs = require('node:fs');\n\nfs.mkdirSync('dist', { recursive: true });\nfs.copyFileSync('src/calc.js', 'dist/calc.js');\nconsole.log('built dist/calc.js');\n",
  });
  commitAll(ws, 'calc: add()');
  return {
    ws,
    spec: {
      name: 'javascript',
      rootEntries: ['package.json', 'src', 'test'],
      bug: { file: 'src/calc.js', bad: '  return a - b;', good: '  return a + b;', edit: 'replaceInFile' },
      grep: { command: ['grep', '-rn', 'return a', 'src'], expect: 'src/calc.js:4:  return a - b;' },
      install: { calls: [shell('npm', 'install')], effect: fileExists('node_modules/tinylint/package.json', 'node_modules/.bin/tinylint', 'package-lock.json') },
      testFail: { calls: [shell('npm', 'test')], failMarker: 'add(2, 3) should be 5' },
      testPass: { calls: [shell('npm', 'test')], passMarker: 'calc: all tests passed' },
      script: { title: 'npm run build', calls: [shell('npm', 'run', 'build')], effect: fileExists('dist/calc.js') },
      oneLiner: { calls: [shell('node', '-e', "console.log(require('./src/calc').add(20, 22))")], effect: outputHas('42') },
      lint: { calls: [shell('npm', 'run', 'lint')], effect: outputHas('lint clean') },
      identity: IDENTITY,
    },
  };
}

/** A wheel is a zip; python3's zipfile writes it (the fixture needs python3 anyway). */
function buildWheel(dir: string): void {
  const program = [
    'import base64, hashlib, sys, zipfile',
    'files = {',
    '  "tinyhelper/__init__.py": "def tokens(text):\\n    return text.split()\\n",',
    '  "tinyhelper-1.0.dist-info/METADATA": "Metadata-Version: 2.1\\nName: tinyhelper\\nVersion: 1.0\\n",',
    '  "tinyhelper-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: gs-agent\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",',
    '}',
    'rec = [n + ",sha256=" + base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b"=").decode() + "," + str(len(t.encode())) for n, t in files.items()]',
    'files["tinyhelper-1.0.dist-info/RECORD"] = "\\n".join(rec + ["tinyhelper-1.0.dist-info/RECORD,,"]) + "\\n"',
    'with zipfile.ZipFile(sys.argv[1], "w") as z:',
    '    [z.writestr(n, t) for n, t in files.items()]',
  ].join('\n');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('python3', ['-c', program, path.join(dir, 'tinyhelper-1.0-py3-none-any.whl')]);
}

export function pythonFixture(base: string): Fixture {
  const ws = path.join(base, 'wordcount-py');
  buildWheel(path.join(ws, 'vendor'));
  write(ws, {
    'README.md': '# wordcount\n\n`make install`, `make test`, `make lint`, `make report`.\n',
    '.gitignore': '.venv/\n__pycache__/\n.pytest_cache/\nreport.txt\n',
    'pytest.ini': '[pytest]\npythonpath = src\n',
    'requirements.txt': 'tinyhelper==1.0\n',
    'src/wordcount/__init__.py': '"""Count words."""\nfrom tinyhelper import tokens\n\n\ndef count(text):\n    return len(tokens(text)) - 1\n',
    'tests/test_wordcount.py': 'from wordcount import count\n\n\ndef test_two_words():\n    assert count("hello world") == 2\n',
    'tools/lint.py': [
      'import pathlib',
      'import sys',
      '',
      'bad = 0',
      'for root in sys.argv[1:]:',
      '    for f in sorted(pathlib.Path(root).rglob("*.py")):',
      '        for n, line in enumerate(f.read_text().splitlines(), 1):',
      '            if line != line.rstrip() or len(line) > 99:',
      '                print(f"{f}:{n}: style")',
      '                bad += 1',
      'print(f"{bad} problems" if bad else "lint clean")',
      'sys.exit(1 if bad else 0)',
      '',
    ].join('\n'),
    'tools/report.py': 'import sys\n\nsys.path.insert(0, "src")\nfrom wordcount import count  # noqa: E402\n\nwith open("report.txt", "w") as out:\n    out.write(f"README.md: {count(open(\'README.md\').read())} words\\n")\nprint("wrote report.txt")\n',
    Makefile: [
      'PYTHON ?= python3',
      'VENV = .venv',
      '',
      '$(VENV)/bin/python:',
      '\t$(PYTHON) -m venv --system-site-packages $(VENV)',
      '',
      'venv: $(VENV)/bin/python',
      '',
      'install: venv',
      '\t$(VENV)/bin/pip install --no-index --find-links vendor -r requirements.txt',
      '',
      'test:',
      '\t$(VENV)/bin/python -m pytest -q',
      '',
      'lint:',
      '\t$(VENV)/bin/python tools/lint.py src tests tools',
      '',
      'report:',
      '\t$(VENV)/bin/python tools/report.py',
      '',
      '.PHONY: venv install test lint report',
      '',
    ].join('\n'),
  });
  commitAll(ws, 'wordcount: count()');
  const site = () => fs.readdirSync(path.join(ws, '.venv', 'lib')).map((v) => path.join('.venv', 'lib', v, 'site-packages'));
  return {
    ws,
    spec: {
      name: 'python',
      rootEntries: ['Makefile', 'src', 'tests', 'requirements.txt'],
      bug: { file: 'src/wordcount/__init__.py', bad: '    return len(tokens(text)) - 1', good: '    return len(tokens(text))', edit: 'editFile' },
      grep: { command: ['grep', '-rn', 'return len', 'src'], expect: 'src/wordcount/__init__.py:6:    return len(tokens(text)) - 1' },
      prepare: [{
        id: 'venv', title: 'create a virtual environment',
        calls: [shell('python3', '-m', 'venv', '--system-site-packages', '.venv')],
        effect: fileExists('.venv/bin/python', '.venv/bin/pip'),
      }],
      install: {
        calls: [shell('.venv/bin/pip', 'install', '--no-index', '--find-links', 'vendor', '-r', 'requirements.txt')],
        effect: (a, root) => (a.sc?.outcome !== 'ok' ? `ended ${a.sc?.outcome}` : site().some((s) => fs.existsSync(path.join(root, s, 'tinyhelper', '__init__.py'))) ? undefined : 'tinyhelper is not in the virtual environment'),
      },
      testFail: { calls: [shell('make', 'test')], failMarker: 'FAILED tests/test_wordcount.py::test_two_words' },
      testPass: { calls: [shell('.venv/bin/python', '-m', 'pytest', '-q')], passMarker: /1 passed/ },
      script: { title: 'make report', calls: [shell('make', 'report')], effect: fileExists('report.txt') },
      // The environment's interpreter: the dependency is installed there.
      oneLiner: { calls: [shell('.venv/bin/python', '-c', 'import sys; sys.path.insert(0, "src"); import wordcount; print(wordcount.count("one two three"))')], effect: outputHas('3\n') },
      lint: { calls: [shell('make', 'lint')], effect: outputHas('lint clean') },
      identity: IDENTITY,
    },
  };
}

export function ownProgramsFixture(base: string): Fixture {
  const ws = path.join(base, 'strings-sh');
  write(ws, {
    'README.md': '# strings\n\nBash string helpers. Tests: `bin/tt test`. Install: `./install.sh PREFIX`.\n',
    '.gitignore': 'build/\nNOTES.md\n',
    'lib/strings.sh': [
      '# String helpers.',
      '',
      'upper() {',
      "  printf '%s\\n' \"$1\" | tr '[:lower:]' '[:upper:]'",
      '}',
      '',
      'repeat() {',
      '  local out="" i',
      '  for ((i = 1; i < $2; i++)); do',
      '    out+=$1',
      '  done',
      "  printf '%s\\n' \"$out\"",
      '}',
      '',
    ].join('\n'),
    // The project's own test runner, like bats: it sources the library and each test file, runs every test_*
    // function, and draws its rule as wide as the terminal (tput, which needs TERM).
    'bin/tt': [
      '#!/usr/bin/env bash',
      'set -eu',
      'root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"',
      'cols="$(tput cols)"',
      'rule="$(printf "%*s" "$cols" "" | tr " " "-")"',
      'pass=0 fail=0',
      'for t in "${1:-$root/test}"/*.t; do',
      '  for fn in $(bash -c "source \'$root/lib/strings.sh\'; source \'$t\'; declare -F" | awk \'$3 ~ /^test_/ {print $3}\'); do',
      '    if (source "$root/lib/strings.sh"; source "$t"; "$fn"); then pass=$((pass + 1)); echo "ok $fn";',
      '    else fail=$((fail + 1)); echo "not ok $fn"; fi',
      '  done',
      'done',
      'echo "$rule"',
      'echo "$pass passed, $fail failed"',
      '[ "$fail" -eq 0 ]',
      '',
    ].join('\n'),
    'test/strings.t': [
      'test_upper() { [ "$(upper abc)" = ABC ]; }',
      'test_repeat() { [ "$(repeat ab 3)" = ababab ]; }',
      '',
    ].join('\n'),
    'install.sh': '#!/usr/bin/env bash\nset -e\nprefix="${1:?usage: install.sh PREFIX}"\nmkdir -p "$prefix/bin" "$prefix/lib/strings"\ncp bin/tt "$prefix/bin/"\ncp lib/strings.sh "$prefix/lib/strings/"\necho "installed to $prefix"\n',
    'scripts/notes.sh': '#!/usr/bin/env bash\nset -e\ngit log --format="- %s" > NOTES.md\necho "wrote NOTES.md"\n',
    'scripts/lint.sh': '#!/usr/bin/env bash\nfor f in bin/tt lib/strings.sh install.sh scripts/*.sh; do\n  bash -n "$f" || exit 1\ndone\necho "lint clean"\n',
  }, ['bin/tt', 'install.sh', 'scripts/notes.sh', 'scripts/lint.sh']);
  commitAll(ws, 'strings: repeat()');
  return {
    ws,
    spec: {
      name: 'own-programs',
      rootEntries: ['bin', 'lib', 'test', 'install.sh'],
      bug: { file: 'lib/strings.sh', bad: '  for ((i = 1; i < $2; i++)); do', good: '  for ((i = 0; i < $2; i++)); do', edit: 'applyPatch' },
      grep: { command: ['grep', '-rn', 'for ((', 'lib'], expect: 'lib/strings.sh:9:  for ((i = 1; i < $2; i++)); do' },
      install: { calls: [shell('./install.sh', 'build')], effect: fileExists('build/bin/tt', 'build/lib/strings/strings.sh') },
      testFail: { calls: [shell('bin/tt', 'test')], failMarker: 'not ok test_repeat' },
      testPass: { calls: [shell('bin/tt', 'test')], passMarker: '2 passed, 0 failed' },
      script: { title: 'scripts/notes.sh', calls: [shell('scripts/notes.sh')], effect: fileExists('NOTES.md') },
      oneLiner: { calls: [shell('bash', '-c', 'source lib/strings.sh && upper hello')], effect: outputHas('HELLO') },
      lint: { calls: [shell('scripts/lint.sh')], effect: outputHas('lint clean') },
      identity: IDENTITY,
    },
  };
}
