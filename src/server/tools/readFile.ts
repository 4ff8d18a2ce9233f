import { z } from 'zod';
import { readFileTool } from '../../core/files/read';
import { fileTool, READS } from './define';

export default fileTool({
  name: 'readFile',
  title: 'Read a text file',
  description:
    "Read a UTF-8 text file in the workspace (binary files are refused). offset/limit select lines; a long file is returned in parts (the result says where to continue).",
  inputSchema: {
    file: z.string().describe('Relative to the workspace root.'),
    offset: z.number().int().min(1).optional().describe('First line, 1-based.'),
    limit: z.number().int().min(1).optional().describe('Number of lines.'),
  },
  annotations: READS,
  actions: ['read'],
  view: 'content',
  call: (deps, call, a) => readFileTool(deps, call, { file: a.file, ...(a.offset !== undefined && { offset: a.offset }), ...(a.limit !== undefined && { limit: a.limit }) }),
});
