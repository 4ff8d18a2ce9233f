import { z } from 'zod';
import { mkdirTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'mkdir',
  title: 'Create a folder',
  description: `Create a folder (parents: also missing parents, and an existing folder is fine). ${CHECKED}`,
  inputSchema: {
    path: z.string().describe('Relative to the workspace root.'),
    parents: z.boolean().default(false),
  },
  annotations: { ...CHANGES, destructiveHint: false },
  actions: ['fileChange'],
  view: 'change',
  call: mkdirTool,
});
