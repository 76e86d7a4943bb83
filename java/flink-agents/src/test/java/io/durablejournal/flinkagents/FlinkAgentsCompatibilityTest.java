package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flinkagents.FlinkAgentsCompatibility.Shape;
import io.durablejournal.flinkagents.FlinkAgentsCompatibility.Surface;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.Test;

/**
 * The guard list and the start-up check of the Flink Agents on the classpath ({@link
 * FlinkAgentsCompatibility}), run on each supported version ({@link VersionFixtures} names the
 * one under test).
 */
class FlinkAgentsCompatibilityTest {
    /** apache/flink-agents#926's journal methods (refs/pull/926/head), which no supported version has. */
    private static final String[] PR_926_JOURNAL_METHODS = {
        "getCallResultAt(int)",
        "reservePendingBatch(java.util.List,java.util.List)",
        "finalizeCallAt(int,java.lang.String,java.lang.String,byte[],byte[])",
        "advanceCallIndexBy(int)",
        "clearCallResultsFromAndPersist(int)",
        "clearCallResultsFrom(int)",
    };

    @Test
    void theFlinkAgentsUnderTestHasItsSupportedShapeAndGetsItsShim() {
        assertSame(VersionFixtures.SHAPE, FlinkAgentsCompatibility.check());
        assertEquals(VersionFixtures.OPERATOR_CLASS, FlinkAgentsCompatibility.shim().operatorClass());
        assertEquals(FlinkAgentsCompatibility.JOURNAL_METHODS,
                FlinkAgentsCompatibility.publicInstanceMethods(RunnerContextImpl.DurableExecutionContext.class));
        assertEquals(new TreeSet<>(FlinkAgentsCompatibility.RUNNER_CONTEXT_METHODS),
                FlinkAgentsCompatibility.interfaceMethods(RunnerContext.class));
        assertEquals(new TreeSet<>(FlinkAgentsCompatibility.STORE_METHODS),
                FlinkAgentsCompatibility.interfaceMethods(ActionStateStore.class));
    }

    @Test
    void everySupportedShapeIsMatchedAsItselfNotAsAnEarlierOne() {
        for (Shape shape : FlinkAgentsCompatibility.SUPPORTED) {
            assertSame(shape, FlinkAgentsCompatibility.matching(shape.members, "version " + shape.version), shape.version);
        }
    }

    @Test
    void aVersionWithPr926IsRefusedNamingTheNearestVersionAndEveryNewMethod() {
        Map<Surface, Set<String>> found = FlinkAgentsCompatibility.onClasspath();
        for (String method : PR_926_JOURNAL_METHODS) {
            found.get(Surface.JOURNAL).add(method);
        }
        found.get(Surface.RUNNER_CONTEXT).add("durableExecuteAllAsync(java.util.List)");

        String message = assertThrows(IllegalStateException.class,
                () -> FlinkAgentsCompatibility.matching(found, "version 0.5-SNAPSHOT")).getMessage();
        assertTrue(message.contains("(version 0.5-SNAPSHOT; supported: 0.3.1, 0.4-main-8ad3a32b)"), message);
        assertTrue(message.contains("Nearest supported version: " + VersionFixtures.SHAPE.version + ","), message);
        assertTrue(message.contains("RunnerContextImpl$DurableExecutionContext that the adapter does not know: "
                + String.join(", ", new TreeSet<>(java.util.Arrays.asList(PR_926_JOURNAL_METHODS)))), message);
        assertTrue(message.contains("durableExecuteAllAsync(java.util.List)"), message);
    }

    @Test
    void aNewStoreHookOrAMissingStoreMethodIsRefused() {
        // As apache/flink-agents#1024 adds default hooks to the store SPI after 8ad3a32b.
        Map<Surface, Set<String>> found = FlinkAgentsCompatibility.onClasspath();
        found.get(Surface.STORE_SPI).add("setMaxParallelism(int)");
        found.get(Surface.STORE_SPI).remove("getRecoveryMarker()");

        String message = assertThrows(IllegalStateException.class,
                () -> FlinkAgentsCompatibility.matching(found, "version unknown")).getMessage();
        assertTrue(message.contains("ActionStateStore that the adapter does not know: setMaxParallelism(int)"), message);
        assertTrue(message.contains("ActionStateStore that are missing: getRecoveryMarker()"), message);
    }

    @Test
    void theNearestVersionIsTheOneWithTheFewestMembersDiffering() {
        for (Shape shape : FlinkAgentsCompatibility.SUPPORTED) {
            Map<Surface, Set<String>> found = new EnumMap<>(Surface.class);
            shape.members.forEach((surface, members) -> found.put(surface, new TreeSet<>(members)));
            found.get(Surface.JOURNAL).add("getCallResultAt(int)");
            // A shim-called member gone: a PRESENT surface counts what is missing.
            found.get(Surface.PLAN).remove("getConfig()");

            String message = assertThrows(IllegalStateException.class,
                    () -> FlinkAgentsCompatibility.matching(found, "version x")).getMessage();
            assertTrue(message.contains("Nearest supported version: " + shape.version + ","), message);
            assertTrue(message.contains("the shim calls that are missing: getConfig()"), message);
        }
    }
}
