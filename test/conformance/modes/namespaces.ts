import { createLinuxLauncher } from '../../../src/core/exec/launch/linux';
import { findLinuxTools } from '../../../src/core/exec/launch/linuxChains';
import { requires } from '../../helpers/needs';
import { useLauncher } from '../../unit/exec/helpers';

// Imported first by a conformance file: every stage the executor's suites build is prepared and started by the
// Linux launcher's exec chain without a sandbox (namespaces of its own, its own /proc, no capability, a PID 1 it
// cannot reach). Without namespaces here the file's tests are skipped with one line (failed under
// GUARDED_SHELL_STRICT).
const tools = findLinuxTools();
if (requires('namespaces') && tools) useLauncher(createLinuxLauncher({ containment: { kind: 'namespaces', tools } }));
