import { z } from 'zod';
import { mkdirTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'mkdir',
  title: 'Create a folder',
  description: `Create a folder; with parents: true, missing parent folders too (and an existing folder is fine). ${CHECKED}`,
  inputSchema: {
    path: z.string().describe('Folder relative to the workspace root.'),
    parents: z.boolean().default(false).describe('Create missing parents; succeed if the folder exists.'),
  },
  annotations: { ...CHANGES, destructiveHint: false },
  actions: ['fileChange'],
  view: 'change',
  call: mkdirTool,
});
