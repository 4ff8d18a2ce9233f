import { z } from 'zod';
import { editFileTool } from '../../core/files/editTools';
import { CHANGES, fileTool, TRANSACTION } from './define';

export default fileTool({
  name: 'editFile',
  title: 'Edit a file with sed',
  description: (policy) => `Edit a file with a GNU sed script (sed --sandbox: no r/w/e). args: only -n -E -r -s -u --posix. ${TRANSACTION(policy)}`,
  inputSchema: {
    file: z.string().describe('Workspace-relative.'),
    script: z.string().describe('e.g. "s/old/new/g" or "/pattern/d".'),
    args: z.array(z.string()).optional(),
  },
  annotations: CHANGES,
  view: 'change',
  call: (deps, call, a) => editFileTool(deps, call, { file: a.file, script: a.script, ...(a.args && { args: a.args }) }),
});
