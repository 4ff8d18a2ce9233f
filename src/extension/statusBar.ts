import * as vscode from 'vscode';
import type { ApprovalQueue } from './approval/queue';
import type { ServerManager } from './serverManager';

/**
 * One status bar item for all folders: state and mode, pending approvals, background commands running, and a
 * warning colour when commands run without a sandbox (or a server is down). Clicking it shows the status and the endpoints.
 */
export function createStatusBar(manager: ServerManager, approvals: ApprovalQueue, showStatusCommand: string): vscode.Disposable & { readonly item: vscode.StatusBarItem } {
  const item = vscode.window.createStatusBarItem('guardedShell.status', vscode.StatusBarAlignment.Left, 50);
  item.name = 'Guarded Shell';
  item.command = showStatusCommand;

  const update = () => {
    const servers = manager.all;
    const pending = approvals.pending.length;
    const background = servers.reduce((n, s) => n + s.background.length, 0);
    if (servers.length === 0) {
      item.hide();
      return;
    }
    const failed = servers.filter((s) => s.state === 'failed' || s.state === 'stopped');
    const starting = servers.some((s) => s.state === 'starting');
    // Unsandboxed: no sandbox was found (warning), or the person chose isolation `none`.
    const unsandboxed = servers.filter((s) => s.ready && (s.ready.warning || s.ready.isolation === 'none'));
    const modes = [...new Set(servers.map((s) => s.ready?.mode).filter(Boolean))];
    const icon = failed.length ? '$(error)' : starting ? '$(sync~spin)' : unsandboxed.length ? '$(warning)' : '$(shield)';
    const state = failed.length ? 'stopped' : starting ? 'starting' : modes.join('/') || 'running';
    item.text = `${icon} Guarded Shell: ${state}${pending ? ` $(bell-dot) ${pending}` : ''}${background ? ` $(server-process) ${background}` : ''}`;
    item.backgroundColor = failed.length
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : unsandboxed.length || pending
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
    const tip = new vscode.MarkdownString(undefined, true);
    for (const s of servers) {
      const where = s.ready ? ` — ${s.ready.url}, mode \`${s.ready.mode}\`, isolation \`${s.ready.isolation}\`` : s.startError ? ` — ${s.startError}` : '';
      tip.appendMarkdown(`**${escape(s.name)}**: ${s.state}${escape(where)}\n\n`);
      if (s.ready?.warning) tip.appendMarkdown(`$(warning) ${escape(s.ready.warning)}\n\n`);
      else if (s.ready?.isolation === 'none') tip.appendMarkdown('$(warning) Commands run without an OS sandbox, with your permissions.\n\n');
    }
    if (pending) tip.appendMarkdown(`$(bell-dot) ${pending} approval(s) waiting\n\n`);
    if (background) {
      tip.appendMarkdown(`$(server-process) ${background} background command(s) running (the approval panel lists them, with Stop):\n\n`);
      for (const s of servers) for (const r of s.background) tip.appendMarkdown(`- ${escape(s.name)}: \`${r.id}\` ${escape(r.stages.map((st) => st.join(' ')).join(' | ').slice(0, 80))}\n`);
      tip.appendMarkdown('\n');
    }
    tip.appendMarkdown('Click for status and connection details.');
    item.tooltip = tip;
    item.show();
  };
  update();
  const disposable = vscode.Disposable.from(item, manager.onDidChange(update), approvals.onDidChange(update));
  return Object.assign(disposable, { item });
}

function escape(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+!|<>-]/g, '\\$&');
}
