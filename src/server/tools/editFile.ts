import { z } from 'zod';
import { editFileTool } from '../../core/files/editTools';
import { CHANGES, fileTool, TRANSACTION } from './define';

export default fileTool({
  name: 'editFile',
  title: 'Edit a file with sed',
  description: `Edit a text file with a GNU sed script (run by the server with --sandbox: no r/w/e commands). The script is the only program; args may hold only -n -E -r -s -u --posix --quiet --silent --regexp-extended (-i, -e, -f, -z, --follow-symlinks … are refused). ${TRANSACTION}`,
  inputSchema: {
    file: z.string().describe('Existing text file, relative to the workspace root.'),
    script: z.string().describe('The sed program, e.g. "s/old_name/new_name/g" or "/pattern/d".'),
    args: z.array(z.string()).optional().describe('Safe sed options, e.g. ["-E"].'),
  },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: (deps, call, a) => editFileTool(deps, call, { file: a.file, script: a.script, ...(a.args && { args: a.args }) }),
});
