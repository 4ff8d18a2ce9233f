import { z } from 'zod';
import { listFilesTool } from '../../core/files/list';
import { fileTool, READS } from './define';

export default fileTool({
  name: 'listFiles',
  title: 'List a folder',
  description: 'List a folder in the workspace, one entry per line; folders end with "/", symbolic links with "@".',
  inputSchema: { path: z.string().default('.').describe('Folder relative to the workspace root.') },
  annotations: READS,
  view: 'entries',
  call: (deps, call, a) => listFilesTool(deps, call, { path: a.path }),
});
