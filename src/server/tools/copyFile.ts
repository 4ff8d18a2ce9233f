import { copyFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool, FROM_TO } from './define';

export default fileTool({
  name: 'copyFile',
  title: 'Copy a file',
  description: (policy) => `Copy a file; replaces a destination only with overwrite. ${CHECKED(policy)}`,
  inputSchema: FROM_TO,
  annotations: CHANGES,
  view: 'change',
  call: copyFileTool,
});
