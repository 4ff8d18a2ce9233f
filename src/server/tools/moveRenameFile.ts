import { moveRenameFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool, FROM_TO } from './define';

export default fileTool({
  name: 'moveRenameFile',
  title: 'Move or rename a file',
  description: `Move or rename a file (not a folder or link); replaces a destination only with overwrite. ${CHECKED}`,
  inputSchema: FROM_TO,
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: moveRenameFileTool,
});
