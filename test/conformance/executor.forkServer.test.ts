// The executor's own suites (exit status, signals, pipelines, input, redirects, output limits, timeouts, kills,
// concurrency: test/unit/exec) with every stage forked by the Linux launcher's fork server.
import './modes/forkServer';
import '../unit/exec/executor.basic.test';
import '../unit/exec/executor.kill.test';
import '../unit/exec/executor.concurrency.test';
import '../unit/exec/redirects.test';
