import { z } from 'zod';
import { writeFileTool } from '../../core/files/write';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'writeFile',
  title: 'Write a file',
  description: (policy) => `Write or append text to a file, atomically; the result shows the diff. ${CHECKED(policy)}`,
  inputSchema: {
    file: z.string().describe('Workspace-relative.'),
    text: z.string().describe('The text to write.'),
    append: z.boolean().default(false).describe('Append instead of replacing.'),
    newline: z.boolean().default(true).describe('End with a line break.'),
    mkdirs: z.boolean().default(false).describe('Create missing parent folders.'),
  },
  annotations: CHANGES,
  view: 'change',
  call: writeFileTool,
});
