import { z } from 'zod';
import { rmdirTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'rmdir',
  title: 'Remove an empty folder',
  description: (policy) => `Remove an EMPTY folder (never recursive). ${CHECKED(policy)}`,
  inputSchema: { path: z.string().describe('Workspace-relative.') },
  annotations: CHANGES,
  view: 'change',
  call: rmdirTool,
});
