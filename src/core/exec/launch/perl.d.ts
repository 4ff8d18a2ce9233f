// The fork server's Perl source (forkServer.pl) is bundled as text (esbuild.mjs, bench/run.mjs; vitest: perlAsText).
declare module '*.pl' {
  const source: string;
  export default source;
}
