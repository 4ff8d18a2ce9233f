// The streaming suite with every stage started through the containment zygote (src/core/exec/zygote).
import './zygoteMode';
import './executor.stream.test';
