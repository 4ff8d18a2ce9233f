import { z } from 'zod';
import { rmdirTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'rmdir',
  title: 'Remove an empty folder',
  description: `Remove an EMPTY folder (never recursive). ${CHECKED}`,
  inputSchema: { path: z.string().describe('Relative to the workspace root.') },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: rmdirTool,
});
