import { describe, expect, it } from 'vitest';
import { previewUnavailableNote } from '../../../../src/core/effects/commandEffects';
import type { IsolationState } from '../../../../src/core/isolationState';
import { parsePolicy } from '../../../../src/core/policy';

// The start-up line that says why approved commands get no effect card although previews are on: the sandbox runs,
// but no copy-on-write view can be made here.
const root = '/tmp/gs-preview-note';
const sandbox = (preview?: IsolationState['preview']): IsolationState => ({ kind: 'bwrap', ...(preview && { preview }) }) as IsolationState;

describe('previewUnavailableNote', () => {
  it('names why previews are unavailable where they are wanted and the sandbox runs', () => {
    const note = previewUnavailableNote(parsePolicy({ root, mode: 'confirm', commandPreview: 'asked' }), sandbox({ unavailable: 'the trial mount failed: timed out' }));
    expect(note).toContain('Command preview is unavailable here (the trial mount failed: timed out)');
  });

  it('says nothing when previews are off, the workspace is read-only, there is no sandbox, or they work', () => {
    const why = sandbox({ unavailable: 'no overlayfs' });
    expect(previewUnavailableNote(parsePolicy({ root, mode: 'confirm', commandPreview: 'off' }), why)).toBeUndefined();
    expect(previewUnavailableNote(parsePolicy({ root, mode: 'readOnly', commandPreview: 'asked' }), why)).toBeUndefined();
    expect(previewUnavailableNote(parsePolicy({ root, mode: 'confirm', commandPreview: 'asked' }), sandbox())).toBeUndefined();
    expect(previewUnavailableNote(parsePolicy({ root, mode: 'confirm', commandPreview: 'asked' }), sandbox({ tools: {} as never, staging: {} as never }))).toBeUndefined();
  });
});
