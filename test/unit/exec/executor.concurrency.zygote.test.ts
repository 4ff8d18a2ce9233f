// The executor's concurrency suite with every stage started through the containment zygote (src/core/exec/zygote).
import './zygoteMode';
import './executor.concurrency.test';
