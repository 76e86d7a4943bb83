package io.durablejournal.flinkagents;

import java.util.Map;
import org.apache.flink.agents.api.trace.ExecutionReporter;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;

/**
 * A journaled Java action's runner context on Flink Agents main: also the {@link
 * ExecutionReporter} Flink Agents' own context is, so the trace events a chat or tool action
 * reports through its context ({@code ExecutionReporters} looks for the interface and otherwise
 * drops them) reach Flink Agents' context as they would without the adapter.
 */
final class ReportingRunnerContext04 extends JournaledRunnerContext implements ExecutionReporter {
    ReportingRunnerContext04(RunnerContextImpl flinkAgents, NativeJournalContext journal) {
        super(flinkAgents, journal);
    }

    @Override
    public void reportExecutionStarted(String entityType, String entityName, Map<String, Object> entityMetadata)
            throws Exception {
        flinkAgentsContext().reportExecutionStarted(entityType, entityName, entityMetadata);
    }

    @Override
    public void reportExecutionSucceeded(String entityType, String entityName, Map<String, Object> entityMetadata)
            throws Exception {
        flinkAgentsContext().reportExecutionSucceeded(entityType, entityName, entityMetadata);
    }

    @Override
    public void reportExecutionFailed(String entityType, String entityName, Map<String, Object> entityMetadata,
            Throwable error, String problemCategory) throws Exception {
        flinkAgentsContext().reportExecutionFailed(entityType, entityName, entityMetadata, error, problemCategory);
    }
}
