import { z } from 'zod';
import { replaceInFileTool } from '../../core/files/editTools';
import { CHANGES, fileTool, TRANSACTION } from './define';

export default fileTool({
  name: 'replaceInFile',
  title: 'Replace text in a file',
  description: (policy) => `Replace exact text (not a regex) in a file; the number of occurrences must equal expectedReplacements. ${TRANSACTION(policy)}`,
  inputSchema: {
    file: z.string().describe('Workspace-relative.'),
    oldText: z.string().min(1).describe('Exact text, white space included.'),
    newText: z.string(),
    expectedReplacements: z.number().int().min(1).default(1),
  },
  annotations: CHANGES,
  view: 'change',
  call: replaceInFileTool,
});
