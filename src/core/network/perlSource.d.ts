// Perl sources (the network bridge, src/core/network/bridge.pl) are bundled as text (esbuild.mjs, bench/run.mjs; vitest: perlAsText).
declare module '*.pl' {
  const source: string;
  export default source;
}
