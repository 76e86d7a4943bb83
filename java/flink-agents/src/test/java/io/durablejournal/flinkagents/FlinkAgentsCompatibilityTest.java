package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.Test;

/** The start-up check of the Flink Agents on the classpath ({@link FlinkAgentsCompatibility}). */
class FlinkAgentsCompatibilityTest {
    @Test
    void flinkAgents031PassesAndItsMembersAreExactlyTheKnownOnes() {
        FlinkAgentsCompatibility.check();
        assertEquals(FlinkAgentsCompatibility.JOURNAL_METHODS,
                FlinkAgentsCompatibility.publicInstanceMethods(RunnerContextImpl.DurableExecutionContext.class));
        assertEquals(new TreeSet<>(FlinkAgentsCompatibility.RUNNER_CONTEXT_METHODS),
                FlinkAgentsCompatibility.interfaceMethods(RunnerContext.class));
    }

    @Test
    void aJournalMethodTheAdapterDoesNotKnowFailsTheStartNamingClassAndMethod() {
        // As apache/flink-agents#926 adds to DurableExecutionContext on main.
        Set<String> found = new TreeSet<>(FlinkAgentsCompatibility.JOURNAL_METHODS);
        found.add("reservePendingBatch(java.util.List)");
        List<String> problems = FlinkAgentsCompatibility.unknown("public methods of " + RunnerContextImpl.DurableExecutionContext.class.getName(),
                found, FlinkAgentsCompatibility.JOURNAL_METHODS);

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> FlinkAgentsCompatibility.failIfAny(problems, "version 0.4-SNAPSHOT"));
        String message = refused.getMessage();
        assertTrue(message.contains("RunnerContextImpl$DurableExecutionContext"), message);
        assertTrue(message.contains("reservePendingBatch(java.util.List)"), message);
        assertTrue(message.contains("supported: 0.3.1"), message);
        assertTrue(message.contains("version 0.4-SNAPSHOT"), message);
    }

    @Test
    void aChangedOperatorConstructorOrANewRunnerContextMethodIsAProblemEach() {
        // As apache/flink-agents#887 adds a parameter to the operator's constructor.
        List<String> problems = new ArrayList<>(FlinkAgentsCompatibility.differing("public constructors of ActionExecutionOperator",
                Collections.singleton("ActionExecutionOperator(org.apache.flink.agents.plan.AgentPlan,java.lang.Boolean,"
                        + "org.apache.flink.streaming.runtime.tasks.ProcessingTimeService,"
                        + "org.apache.flink.api.common.operators.MailboxExecutor,"
                        + "org.apache.flink.agents.runtime.actionstate.ActionStateStore,java.lang.String)"),
                FlinkAgentsCompatibility.OPERATOR_CONSTRUCTORS));
        Set<String> methods = new TreeSet<>(FlinkAgentsCompatibility.RUNNER_CONTEXT_METHODS);
        methods.add("durableExecuteAll(java.util.List)");
        problems.addAll(FlinkAgentsCompatibility.unknown("methods of RunnerContext", methods,
                FlinkAgentsCompatibility.RUNNER_CONTEXT_METHODS));

        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("java.lang.String)") && problems.get(0).contains("missing"), problems.get(0));
        assertTrue(problems.get(1).contains("durableExecuteAll(java.util.List)"), problems.get(1));
        assertEquals(Collections.emptyList(), FlinkAgentsCompatibility.unknown("x", Arrays.asList("a()"), Collections.singleton("a()")));
    }
}
