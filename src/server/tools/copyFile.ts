import { copyFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool, FROM_TO } from './define';

export default fileTool({
  name: 'copyFile',
  title: 'Copy a file',
  description: `Copy a file; replaces a destination only with overwrite. ${CHECKED}`,
  inputSchema: FROM_TO,
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: copyFileTool,
});
