package io.durablejournal.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.scope.ScopeFormat;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/**
 * A test class's MiniCluster whose metrics the tests read: its jobs report to an in-memory
 * reporter that keeps every metric group, also those of a task attempt that has ended. Register
 * it as a static {@code @RegisterExtension} field.
 */
public final class ReportingMiniCluster extends ServiceExtension {
    private final InMemoryReporter reporter;

    private ReportingMiniCluster(InMemoryReporter reporter, int slots) {
        super(MiniClusters.withSlots(slots, reporter));
        this.reporter = reporter;
    }

    /** One task manager with {@code slots} task slots. */
    public static ReportingMiniCluster withSlots(int slots) {
        return new ReportingMiniCluster(InMemoryReporter.createWithRetainedMetrics(), slots);
    }

    /** The reporter holds its metrics from the start: nothing to start. */
    @Override
    protected void start() {}

    /** The metrics of every metric group named {@code group} (one per subtask and attempt). */
    public List<Map<String, Metric>> metricsOfGroups(String group) {
        List<Map<String, Metric>> metrics = new ArrayList<>();
        for (MetricGroup found : reporter.findGroups(group)) {
            metrics.add(reporter.getMetricsByGroup(found));
        }
        return metrics;
    }

    /**
     * The metrics of the metric groups named {@code group} of job {@code job}, by task attempt
     * number (a restarted task registers its metrics again; the reporter keeps both). Fails when an
     * attempt has two such groups: the job must run its operator on one subtask.
     */
    public SortedMap<Integer, Map<String, Metric>> metricsPerAttempt(String group, JobID job) {
        SortedMap<Integer, Map<String, Metric>> byAttempt = new TreeMap<>();
        for (MetricGroup found : reporter.findGroups(group)) {
            Map<String, String> variables = found.getAllVariables();
            if (job.toString().equals(variables.get(ScopeFormat.SCOPE_JOB_ID))) {
                int attempt = Integer.parseInt(variables.get(ScopeFormat.SCOPE_TASK_ATTEMPT_NUM));
                Map<String, Metric> previous = byAttempt.put(attempt, reporter.getMetricsByGroup(found));
                assertEquals(null, previous, "one group per attempt");
            }
        }
        return byAttempt;
    }
}
