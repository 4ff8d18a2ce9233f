import { moveRenameFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool, FROM_TO } from './define';

export default fileTool({
  name: 'moveRenameFile',
  title: 'Move or rename a file',
  description: (policy) => `Move or rename a file (not a folder or link); replaces a destination only with overwrite. ${CHECKED(policy)}`,
  inputSchema: FROM_TO,
  annotations: CHANGES,
  view: 'change',
  call: moveRenameFileTool,
});
