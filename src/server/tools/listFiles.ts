import { z } from 'zod';
import { listFilesTool } from '../../core/files/list';
import { fileTool, READS } from './define';

export default fileTool({
  name: 'listFiles',
  title: 'List a folder',
  description: 'List the entries of a folder inside the workspace, sorted, one per line; folders end with "/", symbolic links with "@".',
  inputSchema: { path: z.string().default('.').describe('Folder relative to the workspace root (default ".").') },
  annotations: READS,
  actions: ['read'],
  view: 'entries',
  call: (deps, call, a) => listFilesTool(deps, call, { path: a.path }),
});
