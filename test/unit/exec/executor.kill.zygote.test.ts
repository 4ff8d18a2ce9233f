// The executor's kill suite with every stage started through the containment zygote (src/core/exec/zygote).
import './zygoteMode';
import './executor.kill.test';
