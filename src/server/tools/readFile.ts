import { z } from 'zod';
import { readFileTool } from '../../core/files/read';
import { fileTool, READS } from './define';

export default fileTool({
  name: 'readFile',
  title: 'Read a text file',
  description:
    'Read a UTF-8 text file (not binary) of any size, a page per call: lines by offset/limit, or bytes by byteOffset/length; the result says where to continue.',
  inputSchema: {
    file: z.string().describe('Workspace-relative.'),
    offset: z.number().int().min(1).optional().describe('First line, 1-based.'),
    limit: z.number().int().min(1).optional().describe('Number of lines.'),
    byteOffset: z.number().int().min(0).optional(),
    length: z.number().int().min(1).optional().describe('Most bytes.'),
  },
  annotations: READS,
  view: 'content',
  call: (deps, call, a) =>
    readFileTool(deps, call, {
      file: a.file,
      ...(a.offset !== undefined && { offset: a.offset }),
      ...(a.limit !== undefined && { limit: a.limit }),
      ...(a.byteOffset !== undefined && { byteOffset: a.byteOffset }),
      ...(a.length !== undefined && { length: a.length }),
    }),
});
