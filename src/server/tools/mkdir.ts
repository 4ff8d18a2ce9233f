import { z } from 'zod';
import { mkdirTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'mkdir',
  title: 'Create a folder',
  description: (policy) => `Create a folder (parents: also missing parents, and an existing folder is fine). ${CHECKED(policy)}`,
  inputSchema: {
    path: z.string().describe('Workspace-relative.'),
    parents: z.boolean().default(false),
  },
  annotations: { ...CHANGES, destructiveHint: false },
  view: 'change',
  call: mkdirTool,
});
