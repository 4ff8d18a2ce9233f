import { findPerl } from '../../../src/core/exec/zygote/client';
import { requires } from '../../helpers/needs';
import { startThroughZygote } from './helpers';

// Imported first by the zygote test files: every stage their suite builds starts through the containment zygote;
// without a working zygote here (no perl, no PID namespaces) the file's tests are skipped with one line (failed
// under GUARDED_SHELL_STRICT).
const perl = findPerl();
if (requires('zygote') && perl) startThroughZygote(perl);
