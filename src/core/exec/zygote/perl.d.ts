/** zygote.pl is bundled as text (esbuild's `text` loader; vitest's perl-as-text plugin). */
declare module '*.pl' {
  const source: string;
  export default source;
}
