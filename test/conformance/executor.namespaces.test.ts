// The executor's own suites (exit status, signals, pipelines, input, redirects, output limits, timeouts, kills,
// concurrency: test/unit/exec) with every stage started by the Linux launcher's exec chain (no fork server).
import './modes/namespaces';
import '../unit/exec/executor.basic.test';
import '../unit/exec/executor.kill.test';
import '../unit/exec/executor.concurrency.test';
import '../unit/exec/redirects.test';
