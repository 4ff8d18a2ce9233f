import { z } from 'zod';
import { readFileTool } from '../../core/files/read';
import { fileTool, READS } from './define';

export default fileTool({
  name: 'readFile',
  title: 'Read a text file',
  description:
    "Read a UTF-8 text file inside the workspace. Binary files are refused. offset (first line, 1-based) and limit (number of lines) select a window; at most the server's output limit is returned per call (the result says where to continue).",
  inputSchema: {
    file: z.string().describe('Path relative to the workspace root.'),
    offset: z.number().int().min(1).optional().describe('First line to return, 1-based (default 1).'),
    limit: z.number().int().min(1).optional().describe('Number of lines to return (default: to the end).'),
  },
  annotations: READS,
  actions: ['read'],
  view: 'content',
  call: (deps, call, a) => readFileTool(deps, call, { file: a.file, ...(a.offset !== undefined && { offset: a.offset }), ...(a.limit !== undefined && { limit: a.limit }) }),
});
