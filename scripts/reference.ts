import { z } from 'zod';
import { SETTING_IDS, SETTINGS, scopeText, type CliFlag, type ConfigKey, type EnvVariable, type SettingId, type VscodeSetting } from '../src/core/config/registry';
import { VSCODE_SETTING_IDS, vscodeDefault } from '../src/core/config/vscodeSettings';
import { ACTION_TEXT, ACTIONS, missAnswer, MODE_TABLE, MODES, NETWORK_TABLE, NETWORKS, REACH_TEXT, UNSANDBOXED_REACH, type Network, type Reach } from '../src/core/modes';
import { DELEGATION_EXAMPLES, DELEGATION_KINDS, DELEGATION_TEXT, delegationRule } from '../src/core/commands/delegation';
import { TOOLS } from '../src/server/tools';
import { TOOL_ACTIONS } from '../src/core/offers';
import { hintsAt, type ToolHints } from '../src/server/tools/annotations';
import type { Policy } from '../src/core/policy';
import { recommendedConfigFile, recommendedVscodeSettings } from '../src/core/config/recommended';
import { hardeningTables } from './hardeningTables';

/**
 * Everything generated from the settings registry, the mode table and the tool registry: package.json's
 * `contributes.configuration` and the reference tables in the docs. `npm run generate` writes them;
 * test/unit/core/config/reference.test.ts fails when a file drifts from what this produces.
 */

type Spec = { summary: string; default?: unknown; schema: z.ZodType; cli?: readonly CliFlag[]; env?: readonly EnvVariable[]; config?: readonly ConfigKey[]; vscode?: VscodeSetting };
const spec = (id: SettingId) => SETTINGS[id] as Spec;
const code = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;
const shown = (v: unknown) => (v === undefined ? '—' : Array.isArray(v) && v.length > 6 ? `${v.length} built-in names` : code(v));
/** A table cell: one line, pipes escaped, VS Code's `#setting#` links as plain names. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n+/g, ' ').replace(/#(guardedShell\.[\w.]+)#/g, '$1');
const SCOPE_LABEL = { tighten: 'only stricter', user: 'user settings only', union: 'workspace values added', narrow: 'a workspace may only narrow it', subset: 'a workspace may only narrow it' } as const;
const table = (head: string[], rows: string[][]) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');

/** `contributes.configuration.properties` of package.json. */
export function vscodeConfiguration(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  VSCODE_SETTING_IDS.forEach((id, order) => {
    const s = spec(id);
    const v = s.vscode!;
    const json = z.toJSONSchema(s.schema) as Record<string, unknown> & { anyOf?: Array<Record<string, unknown>> };
    const shape = json.anyOf ? json.anyOf[0]! : json; // a mode is one value in the settings UI
    const { $schema: _, ...rest } = shape;
    if (rest.maximum === Number.MAX_SAFE_INTEGER) delete rest.maximum; // zod's int() bound, not a limit of ours
    if (vscodeDefault(id) === '') delete rest.minLength; // VS Code's "unset" for a string setting is ''
    out[`guardedShell.${v.key}`] = {
      ...rest,
      default: vscodeDefault(id),
      scope: 'resource',
      order,
      markdownDescription: `${v.description}\n\n${scopeText(v.scope)}`,
      ...(v.enumDescriptions && { markdownEnumDescriptions: v.enumDescriptions }),
    };
  });
  return out;
}

export function tables(): Record<string, string> {
  const flags = SETTING_IDS.flatMap((id) => (spec(id).cli ?? []).map((f) => [code(`${f.name}${f.arg ? ` ${f.arg}` : ''}`), f.help ?? spec(id).summary, id, 'value' in f ? `sets ${code(f.value)}` : shown(spec(id).default)]));
  const env = SETTING_IDS.flatMap((id) => (spec(id).env ?? []).map((e) => [code(e.name), spec(id).summary, id, e.empty === 'value' ? 'set but empty = an empty list' : 'empty = unset']));
  const config = SETTING_IDS.flatMap((id) => (spec(id).config ?? []).map((k) => [code(k.key), spec(id).summary, id, shown(spec(id).default)]));
  const vscode = VSCODE_SETTING_IDS.map((id) => [code(`guardedShell.${spec(id).vscode!.key}`), spec(id).vscode!.description, shown(vscodeDefault(id)), SCOPE_LABEL[spec(id).vscode!.scope]]);
  return {
    flags: table(['Flag', 'Meaning', 'Setting', 'Default'], flags),
    environment: table(['Variable', 'Meaning', 'Setting', 'Empty value'], env),
    'config-file': table(['Key', 'Meaning', 'Setting', 'Default'], config),
    'vscode-settings': table(['Setting', 'Meaning', 'Default', 'Workspace rule'], vscode),
    modes: table(['The agent wants to …', ...MODES.map(code)], [
      ...ACTIONS.map((a) => [ACTION_TEXT[a], ...MODES.map((m) => MODE_TABLE[m][a])]),
      ['run a command **not on the allowlist** (the card offers **Always allow** with a rule)', ...MODES.map((m) => missAnswer(m))],
    ]),
    delegation: table(['A program that runs any code it is given', 'e.g.', 'with a sandbox', 'without a sandbox'], DELEGATION_KINDS.map((k) => [
      DELEGATION_TEXT[k].replace(/^an? /, ''), DELEGATION_EXAMPLES[k],
      k === 'workspace-program' ? 'runs when a path glob lists it (`bin/*`), asked like any command, inside the sandbox' : 'runs when listed, asked like any command, inside the sandbox',
      'refused (`' + delegationRule(k) + '`), unless `allowUnsandboxedCode` (user scope): then it runs with your own permissions',
    ])),
    network: table(['`network`', 'the fetch tool reaches', 'commands in a sandbox reach', 'commands without a sandbox reach'], NETWORKS.map((n) => [
      code(n), FETCH_REACH[NETWORK_TABLE[n].fetch], SANDBOXED_REACH[NETWORK_TABLE[n].sandboxedCommands], UNSANDBOXED_TEXT(n),
    ])),
    tools: table(['Tool', 'Parameters (`?` optional)', 'Read-only', 'What it does', 'Not offered when'], TOOLS.map((t) => [code(t.name), parameters(t.inputSchema), readOnlyColumn(t.annotations), t.title, notOfferedWhen(TOOL_ACTIONS[t.name])])),
    ...hardeningTables(),
    'recommended-vscode': fence('jsonc', recommendedVscodeSettings()),
    'recommended-config': fence('json', recommendedConfigFile()),
  };
}

/** The network table's cells, from the reach each party has (modes.ts NETWORK_TABLE). */
const FETCH_REACH: Record<Reach, string> = {
  none: 'nothing (the tool is not offered)',
  listed: 'the listed hosts, at public addresses',
  public: 'any public address (every redirect checked)',
  all: 'every address this machine reaches',
};
const SANDBOXED_REACH: Record<Reach, string> = {
  none: 'nothing: no network of their own; the proxy refuses every host at once, naming `domains`',
  listed: 'the listed hosts, at public addresses, only through the proxy (every attempt on the record; an unlisted host can become a card)',
  public: 'any public address',
  all: "every address this machine reaches (the host's network)",
};
const UNSANDBOXED_TEXT = (n: Network): string =>
  `${REACH_TEXT[UNSANDBOXED_REACH]} (nothing cuts it${n === 'domains' ? '; the list cannot be enforced on commands, and a warning says so' : ''})`;
/** A settings object as a fenced JSON block; a long list wrapped at about 110 columns. */
function fence(lang: string, settings: Record<string, unknown>): string {
  const value = (v: unknown): string => {
    if (!Array.isArray(v)) return JSON.stringify(v);
    const lines: string[] = [];
    let line = '';
    for (const item of v.map((x) => JSON.stringify(x))) {
      if (line && `${line}, ${item}`.length > 100) {
        lines.push(`${line},`);
        line = item;
      } else line = line ? `${line}, ${item}` : item;
    }
    lines.push(line);
    return lines.length === 1 ? `[${lines[0]}]` : `[\n    ${lines.join('\n    ')}\n  ]`;
  };
  const entries = Object.entries(settings).map(([k, v]) => `  ${JSON.stringify(k)}: ${value(v)}`);
  return ['```' + lang, '{', entries.join(',\n'), '}', '```'].join('\n');
}

function parameters(shape: z.ZodRawShape): string {
  const json = z.toJSONSchema(z.object(shape), { io: 'input' }) as { properties?: object; required?: string[] };
  const required = new Set(json.required ?? []);
  return Object.keys(json.properties ?? {}).map((p) => code(required.has(p) ? p : `${p}?`)).join(', ');
}

/** `yes`, `no`, or the modes in which the tool's readOnlyHint is true (a command tool's hints follow the mode). */
function readOnlyColumn(hints: ToolHints): string {
  const modes = MODES.filter((mode) => hintsAt(hints, { policy: { mode, network: 'fetch' } as Policy, isolation: 'sandboxed' }).readOnlyHint);
  return modes.length === MODES.length ? 'yes' : modes.length ? `in mode ${modes.map(code).join(', ')}` : 'no';
}

function notOfferedWhen(actions: readonly string[]): string {
  const modes = MODES.filter((m) => actions.some((a) => MODE_TABLE[m][a as keyof (typeof MODE_TABLE)[typeof m]] === 'deny')).map(code);
  return [...(modes.length ? [`mode ${modes.join(', ')}`] : []), ...(actions.includes('egress') ? ['`network: deny`'] : []), 'named in `disableTools`'].join('; ');
}

const marker = (name: string) => [`<!-- generated:${name} -->`, `<!-- /generated:${name} -->`] as const;

/** The text with every generated region it contains replaced; also returns which regions it found. */
export function fillRegions(text: string, generated: Record<string, string> = tables()): { text: string; found: string[] } {
  const found: string[] = [];
  for (const [name, content] of Object.entries(generated)) {
    const [open, close] = marker(name);
    const a = text.indexOf(open);
    const b = text.indexOf(close);
    if (a < 0 || b < a) continue;
    found.push(name);
    text = `${text.slice(0, a + open.length)}\n${content}\n${text.slice(b)}`;
  }
  return { text, found };
}
