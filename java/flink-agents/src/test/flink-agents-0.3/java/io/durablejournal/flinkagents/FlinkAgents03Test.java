package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What only the 0.3.1 shim does (runs where Flink Agents 0.3.1 is the version under test). */
class FlinkAgents03Test {
    @Test
    void pickledPythonKeysAreRefusedBeforeAnOperatorIsBuilt() {
        // 0.3.1's operator has no such mode (it came with apache/flink-agents#887 on main).
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> FlinkAgentsCompatibility.shim().operator(Fixtures.plan(), false, true, null, null, null));
        assertTrue(refused.getMessage().contains("no pickled Python keys"), refused.getMessage());
    }
}
