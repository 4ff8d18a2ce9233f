import { findPerl } from '../../../src/core/exec/zygote/client';
import { startThroughZygote } from './helpers';

// Imported first by the `*.zygote.test.ts` files: every stage their suite builds starts through the zygote.
const perl = findPerl();
if (!perl) throw new Error('perl is missing: the containment zygote (and these suites) need /usr/bin/perl');
startThroughZygote(perl);
