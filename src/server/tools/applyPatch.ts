import { z } from 'zod';
import { applyPatchTool } from '../../core/files/editTools';
import { CHANGES, fileTool, TRANSACTION } from './define';

export default fileTool({
  name: 'applyPatch',
  title: 'Apply a unified diff to a file',
  description: `Apply a unified diff to the file named by "file" (file names inside the diff are ignored; one file per call). args may hold -R/--reverse, -l/--ignore-whitespace, -F N/--fuzz=N; other patch options are refused. A hunk that does not apply is reported by number. ${TRANSACTION}`,
  inputSchema: {
    file: z.string().describe('Existing text file, relative to the workspace root.'),
    diff: z.string().describe('The unified diff ("--- a/x", "+++ b/x", "@@ -1 +1 @@" …).'),
    pnum: z.number().int().min(0).default(2).describe('Accepted for compatibility (patch -pNUM); the explicit file is the target, so nothing is stripped.'),
    args: z.array(z.string()).optional().describe('Safe patch options, e.g. ["-R"] or ["--fuzz=2"].'),
  },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: (deps, call, a) => applyPatchTool(deps, call, { file: a.file, diff: a.diff, pnum: a.pnum, ...(a.args && { args: a.args }) }),
});
