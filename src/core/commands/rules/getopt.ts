/**
 * A small, total (never throwing) re-implementation of the option scanners the hardened programs use:
 * GNU getopt_long (tar, sort, sed, uniq …), bsdtar's own scanner and git's parse-options are all variants of
 * "short clusters + long names with unique abbreviations + `--`". Each family rule describes its program's
 * grammar as data and judges the resulting events, so the rule sees the argv exactly as the program would.
 *
 * WHY conservative choices are made where the grammars are unclear: a value that we wrongly think is consumed
 * by an option would hide a following option from us (a bypass); an option we wrongly think takes no value
 * only makes us scan one more token (at worst a false denial). So unknown and ambiguous options are treated as
 * taking NO value, and only options we know to take a value consume one.
 */

export type ArgKind = 'none' | 'required' | 'optional';

export interface LongOption {
  readonly name: string;
  readonly arg: ArgKind;
}

export interface Grammar {
  /** Known short option letters and whether they take a value. Letters not listed are unknown (no value). */
  readonly short: Readonly<Record<string, ArgKind>>;
  readonly long: readonly LongOption[];
  /** GNU getopt permutes: options after operands are still options. */
  readonly permute: boolean;
  /** Tokens that end option parsing when they are not consumed as a value (`--`, git's `--end-of-options`). */
  readonly terminators?: readonly string[];
  /** git grep: `-NUM` (digits inside a cluster) is an option. */
  readonly numericShort?: boolean;
  /** Operands that do not stop a non-permuting scan (git grep's `(` and `)`). */
  readonly optionLikeOperands?: readonly string[];
}

export type OptionEvent =
  | {
      readonly kind: 'short';
      readonly letter: string;
      readonly known: boolean;
      readonly value?: string;
      /** Index of the token that contains the letter. */
      readonly index: number;
    }
  | {
      readonly kind: 'long';
      /** The name as typed (between `--` and `=`), e.g. `checkp` for `--checkp=exec=x`. */
      readonly typed: string;
      /** The option the program would pick: an exact match, or the only option the prefix abbreviates. */
      readonly resolved?: LongOption;
      /** Every option the typed name is a prefix of (ambiguity is visible to the rule). */
      readonly candidates: readonly LongOption[];
      readonly value?: string;
      readonly index: number;
    }
  | { readonly kind: 'operand'; readonly value: string; readonly index: number }
  | { readonly kind: 'end'; readonly index: number };

/** Resolve a typed long name the way getopt_long / parse-options do: exact match first, else a unique prefix. */
export function resolveLong(
  typed: string,
  options: readonly LongOption[],
): { resolved?: LongOption; candidates: LongOption[] } {
  const candidates = options.filter((o) => o.name.startsWith(typed));
  const exact = options.find((o) => o.name === typed);
  if (exact) return { resolved: exact, candidates };
  if (candidates.length === 1) return { resolved: candidates[0], candidates };
  return { candidates };
}

/**
 * True when a typed long name COULD select `target`: it is a non-empty prefix of the target name (so an exact
 * spelling, a unique abbreviation and an ambiguous abbreviation all count), unless the typed name is itself the
 * exact name of a different, harmless option (exact matches win in every grammar we model: `--checkpoint`).
 */
export function couldMean(typed: string, target: string, options: readonly LongOption[]): boolean {
  if (!target.startsWith(typed)) return false;
  if (typed === target) return true;
  return !options.some((o) => o.name === typed);
}

/** Scan argv (without the program name) under a grammar. Total: never throws, whatever the input. */
export function scanOptions(args: readonly string[], g: Grammar): OptionEvent[] {
  const events: OptionEvent[] = [];
  const terminators = g.terminators ?? ['--'];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const tok = args[i]!;
    if (ended) {
      events.push({ kind: 'operand', value: tok, index: i });
      continue;
    }
    if (terminators.includes(tok)) {
      events.push({ kind: 'end', index: i });
      ended = true;
      continue;
    }
    if (tok.startsWith('--') && tok.length > 2) {
      const eq = tok.indexOf('=');
      const typed = eq >= 0 ? tok.slice(2, eq) : tok.slice(2);
      const { resolved, candidates } = resolveLong(typed, g.long);
      let value: string | undefined = eq >= 0 ? tok.slice(eq + 1) : undefined;
      if (value === undefined && resolved?.arg === 'required' && i + 1 < args.length) {
        value = args[++i];
      }
      events.push(
        value === undefined
          ? { kind: 'long', typed, resolved, candidates, index: i }
          : { kind: 'long', typed, resolved, candidates, value, index: eq >= 0 ? i : i - 1 },
      );
      continue;
    }
    if (tok.startsWith('-') && tok.length > 1) {
      const at = i;
      for (let j = 1; j < tok.length; j++) {
        const letter = tok[j]!;
        if (g.numericShort && letter >= '0' && letter <= '9') {
          let k = j;
          while (k < tok.length && tok[k]! >= '0' && tok[k]! <= '9') k++;
          events.push({ kind: 'short', letter: '#', known: true, value: tok.slice(j, k), index: at });
          j = k - 1;
          continue;
        }
        const kind = Object.prototype.hasOwnProperty.call(g.short, letter) ? g.short[letter] : undefined;
        if (kind === 'required') {
          const rest = tok.slice(j + 1);
          if (rest !== '') events.push({ kind: 'short', letter, known: true, value: rest, index: at });
          else if (i + 1 < args.length) events.push({ kind: 'short', letter, known: true, value: args[++i]!, index: at });
          else events.push({ kind: 'short', letter, known: true, index: at });
          break;
        }
        if (kind === 'optional') {
          const rest = tok.slice(j + 1);
          events.push(rest !== '' ? { kind: 'short', letter, known: true, value: rest, index: at } : { kind: 'short', letter, known: true, index: at });
          break;
        }
        events.push({ kind: 'short', letter, known: kind !== undefined, index: at });
      }
      continue;
    }
    events.push({ kind: 'operand', value: tok, index: i });
    if (!g.permute && !(g.optionLikeOperands ?? []).includes(tok)) ended = true;
  }
  return events;
}

/** Build a long-option table from a compact `name:kind` list (n = none, r = required, o = optional). */
export function longTable(spec: string): LongOption[] {
  return spec
    .split(/\s+/)
    .filter(Boolean)
    .map((entry) => {
      const [name, k] = entry.split(':') as [string, string | undefined];
      const arg: ArgKind = k === 'r' ? 'required' : k === 'o' ? 'optional' : 'none';
      return { name, arg };
    });
}

/** Build a short-option table: letters followed by `:` take a value, by `::` an attached optional value. */
export function shortTable(spec: string): Record<string, ArgKind> {
  const out: Record<string, ArgKind> = {};
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i]!;
    if (spec[i + 1] === ':' && spec[i + 2] === ':') {
      out[c] = 'optional';
      i += 2;
    } else if (spec[i + 1] === ':') {
      out[c] = 'required';
      i += 1;
    } else out[c] = 'none';
  }
  return out;
}
