import { shell } from './agent';
import { fileExists, outputHas, type ProjectSpec } from './plan';

/**
 * Plans for real public projects (issue 26's measurement; scripts/agent-job.mjs runs them against a copy of the
 * project): which line the harness breaks, and how the project's own tests, installs, scripts and lint run, as
 * its README or Makefile says. Only the plan is here, never the projects' code: bring them with a clone.
 *
 * Where this machine cannot do what the project's own tooling wants (no PyPI: the Makefile's bootstrap, hatchling;
 * no shellcheck or ruff), the step an agent would fall back to is used and named in the title.
 */
export const REAL_PROJECTS: Readonly<Record<string, (identity?: ProjectSpec['identity']) => ProjectSpec>> = {
  // https://github.com/jshttp/vary — npm test (mocha), npm run lint (eslint), devDependencies from the npm registry.
  vary: (identity) => ({
    name: 'vary',
    rootEntries: ['index.js', 'package.json', 'test'],
    bug: { file: 'index.js', good: '    if (vals.indexOf(fld) === -1) {', bad: '    if (vals.indexOf(fld) !== -1) {', edit: 'replaceInFile' },
    grep: { command: ['grep', '-n', 'indexOf(fld)', 'index.js'], expect: '77:    if (vals.indexOf(fld) !== -1) {' },
    install: { calls: [shell('npm', 'install')], effect: fileExists('node_modules/.bin/mocha', 'node_modules/.bin/eslint') },
    testFail: { calls: [shell('npm', 'test')], failMarker: /\d+ failing/ },
    testPass: { calls: [shell('npm', 'test')], passMarker: /\d+ passing/ },
    script: { title: 'npm run bench', calls: [shell('npm', 'run', 'bench')], effect: outputHas('ops/sec') },
    oneLiner: { calls: [shell('node', '-e', "console.log(require('./').append('Accept', 'Origin'))")], effect: outputHas('Accept, Origin') },
    lint: { calls: [shell('npm', 'run', 'lint')] },
    ...(identity && { identity }),
  }),
  // https://github.com/tartley/colorama — pure Python, tests under pytest, a Makefile (its venv lives in
  // ~/.virtualenvs and its bootstrap needs PyPI: the agent makes a .venv with the system's packages instead).
  colorama: (identity) => ({
    name: 'colorama',
    rootEntries: ['Makefile', 'colorama', 'pyproject.toml'],
    bug: { file: 'colorama/ansi.py', good: "    return CSI + str(code) + 'm'", bad: "    return CSI + str(code) + 'M'", edit: 'editFile' },
    grep: { command: ['grep', '-rn', 'str(code)', 'colorama'], expect: "colorama/ansi.py:13:    return CSI + str(code) + 'M'" },
    prepare: [{ id: 'venv', title: 'create a virtual environment', calls: [shell('python3', '-m', 'venv', '--system-site-packages', '.venv')], effect: fileExists('.venv/bin/python') }],
    install: { calls: [shell('.venv/bin/pip', 'install', '--no-index', 'pytest')] },
    // The Makefile's own test target, pointed at the new environment (a make variable on the command line).
    testFail: { calls: [shell('make', 'test', 'python=.venv/bin/python')], failMarker: /FAILED \(failures=\d+/ },
    testPass: { calls: [shell('.venv/bin/python', '-m', 'pytest', '-q')], passMarker: / passed/ },
    script: { title: 'make clean', calls: [shell('make', 'clean')] },
    oneLiner: { calls: [shell('python3', '-c', 'import colorama; print(repr(colorama.Fore.RED))')], effect: outputHas("'\\x1b[31m'") },
    lint: { calls: [shell('python3', '-m', 'compileall', '-q', 'colorama')] },
    ...(identity && { identity }),
  }),
  // https://github.com/bats-core/bats-core — tests run through its own bin/bats; install.sh PREFIX.
  'bats-core': (identity) => ({
    name: 'bats-core',
    rootEntries: ['bin', 'lib', 'libexec', 'test', 'install.sh'],
    bug: { file: 'lib/bats-core/test_functions.bash', good: '    output="${output%.}"', bad: '    output="${output%..}"', edit: 'applyPatch' },
    grep: { command: ['grep', '-rn', 'output%', 'lib'], expect: 'lib/bats-core/test_functions.bash:395:    output="${output%..}"' },
    install: { calls: [shell('./install.sh', 'build')], effect: fileExists('build/bin/bats', 'build/libexec/bats-core/bats') },
    // The file that covers `run` (the whole suite takes minutes).
    testFail: { calls: [shell('bin/bats', 'test/run.bats')], failMarker: /not ok \d+ run with BATS_RUN_ERREXIT=1 and --keep-empty-lines/ },
    testPass: { calls: [shell('bin/bats', 'test/run.bats')], passMarker: /^ok \d+ run with BATS_RUN_ERREXIT=1 and --keep-empty-lines/m },
    script: { title: './uninstall.sh build', calls: [shell('./uninstall.sh', 'build')] },
    oneLiner: { calls: [shell('bash', '-c', 'source lib/bats-core/test_functions.bash && run echo hi && echo "$status $output"')], effect: outputHas('0 hi') },
    // shellcheck.sh needs shellcheck (not installed): bash's own syntax check instead.
    lint: { calls: [shell('bash', '-n', 'lib/bats-core/test_functions.bash')] },
    ...(identity && { identity }),
  }),
};
