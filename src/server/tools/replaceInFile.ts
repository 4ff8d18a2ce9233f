import { z } from 'zod';
import { replaceInFileTool } from '../../core/files/editTools';
import { CHANGES, fileTool, TRANSACTION } from './define';

export default fileTool({
  name: 'replaceInFile',
  title: 'Replace text in a file',
  description: `Replace an exact piece of text (not a regex) in a text file. The number of occurrences must equal expectedReplacements (default 1), otherwise nothing changes and the error says how many there were. ${TRANSACTION}`,
  inputSchema: {
    file: z.string().describe('Existing text file, relative to the workspace root.'),
    oldText: z.string().min(1).describe('The exact text to find, including white space and line breaks.'),
    newText: z.string().describe('The replacement text.'),
    expectedReplacements: z.number().int().min(1).default(1).describe('How many occurrences must be replaced.'),
  },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: replaceInFileTool,
});
