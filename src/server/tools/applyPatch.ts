import { z } from 'zod';
import { applyPatchTool } from '../../core/files/editTools';
import { CHANGES, fileTool, TRANSACTION } from './define';

export default fileTool({
  name: 'applyPatch',
  title: 'Apply a unified diff to a file',
  description: (policy) => `Apply a unified diff to "file" (names inside the diff are ignored). args: only -R, -l, -F N/--fuzz=N. ${TRANSACTION(policy)}`,
  inputSchema: {
    file: z.string().describe('Workspace-relative.'),
    diff: z.string().describe('Unified diff text.'),
    pnum: z.number().int().min(0).default(2).describe('Ignored (patch -pNUM compatibility).'),
    args: z.array(z.string()).optional(),
  },
  annotations: CHANGES,
  view: 'change',
  call: (deps, call, a) => applyPatchTool(deps, call, { file: a.file, diff: a.diff, pnum: a.pnum, ...(a.args && { args: a.args }) }),
});
