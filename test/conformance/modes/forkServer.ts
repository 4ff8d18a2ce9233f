import { findForkServer } from '../../../src/core/exec/launch/forkServer';
import { createLinuxLauncher } from '../../../src/core/exec/launch/linux';
import { requires } from '../../helpers/needs';
import { useLauncher } from '../../unit/exec/helpers';

// Imported first by a conformance file: every stage the executor's suites build is forked by the Linux launcher's
// fork server into namespaces of its own. Without its binary (a build with a C compiler) and namespaces here the file's
// tests are skipped with one line (failed under GUARDED_SHELL_STRICT).
const binary = findForkServer();
if (requires('fork-server') && binary) useLauncher(createLinuxLauncher({ containment: { kind: 'fork-server', binary } }));
