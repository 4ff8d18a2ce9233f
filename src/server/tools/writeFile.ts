import { z } from 'zod';
import { writeFileTool } from '../../core/files/write';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'writeFile',
  title: 'Write a file',
  description: `Write (or append) text to a file inside the workspace, atomically. The parent folder must exist unless mkdirs is true. The result includes the diff of what was written. ${CHECKED}`,
  inputSchema: {
    file: z.string().describe('Path relative to the workspace root.'),
    text: z.string().describe('The text to write.'),
    append: z.boolean().default(false).describe('Append instead of replacing the file.'),
    newline: z.boolean().default(true).describe('End the text with a line break if it does not end with one.'),
    mkdirs: z.boolean().default(false).describe('Create missing parent folders.'),
  },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: writeFileTool,
});
