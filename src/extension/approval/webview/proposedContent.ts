import * as path from 'node:path';
import * as vscode from 'vscode';

/** The scheme of the read-only documents that hold a change's proposed (and, when needed, original) content. */
export const PROPOSED_SCHEME = 'guarded-shell-proposed';

/**
 * Read-only virtual documents for VS Code's diff editor: the content an agent proposes is shown without being
 * written anywhere. Each document's path ends with the file's own name, so the editor picks its language.
 */
export class ProposedContentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private readonly registration: vscode.Disposable;
  /** Documents kept (the newest); older ones read as empty. */
  private static readonly KEEP = 50;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? '';
  }

  /** A URI for `content`, unique per request and side ('proposed' / 'original'). */
  put(requestId: string, side: 'proposed' | 'original', file: string, content: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${encodeURIComponent(requestId)}/${side}/${path.posix.basename(file) || 'file'}` });
    this.docs.delete(uri.toString());
    this.docs.set(uri.toString(), content);
    while (this.docs.size > ProposedContentProvider.KEEP) this.docs.delete(this.docs.keys().next().value!);
    return uri;
  }

  dispose(): void {
    this.registration.dispose();
    this.docs.clear();
  }
}
