package io.durablejournal.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.Collections;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Adds the CPU time the benchmark JVM spent per operation ({@code cpu}, ns/op) to every
 * iteration: all its threads (the benchmark thread, GC, JIT) over the iteration, divided by the
 * operations. On a machine shared with other work the wall-clock score grows with the time the
 * benchmark waits for a core, which changes from one benchmark to the next; CPU time does not, so
 * ratios between benchmarks of one run stay comparable. It leaves out time spent waiting for I/O
 * (an fsync), which only the wall-clock score shows.
 *
 * <p>Used with {@code -prof io.durablejournal.bench.CpuTimeProfiler} (the {@code jmh} task adds it).
 */
public final class CpuTimeProfiler implements InternalProfiler {
    /** The secondary result's label in JMH's results. */
    public static final String LABEL = "cpu";

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long startNs;

    @Override
    public String getDescription() {
        return "CPU time of the benchmark JVM (all threads) per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        startNs = os.getProcessCpuTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        long cpuNs = os.getProcessCpuTime() - startNs;
        long ops = result.getMetadata().getAllOps();
        if (ops <= 0 || cpuNs < 0) {
            return Collections.emptyList();
        }
        return Collections.singletonList(new ScalarResult(LABEL, (double) cpuNs / ops, "ns/op", AggregationPolicy.AVG));
    }
}
