export type { IsolationProbe, Sandbox, SandboxContext, SandboxKind, SandboxLimits } from './types';
export { DEFAULT_SANDBOX_LIMITS, SENSITIVE_HOME_ENTRIES } from './context';
export { bwrapArgs, createBwrapSandbox, mountPlan } from './bwrap';
export { createSeatbeltSandbox, seatbeltProfile, SANDBOX_EXEC_PATH } from './seatbelt';
export { probeIsolation } from './probe';
export { sandboxFromProbe, selectSandbox, type SandboxSelection } from './select';
export { isolationState } from './state';
