package io.durablejournal.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The user-code class loader test every Flink-facing module runs: two jobs, one after the other,
 * on one MiniCluster, each submitted with a job jar ({@link JobJar}) and so loaded child-first in
 * a class loader of its own, which must load the native library again (a JVM refuses one library
 * file from two class loaders). Each job crashes once and recovers through its journal.
 *
 * <p>A module's subclass names what its job jar adds and runs and checks one job; its class-level
 * {@code @Timeout} bounds the test.
 */
public abstract class UserCodeLoaderJobsTest {
    private static final int JOBS = 2;

    /** What every job jar holds: the core jar (classes and native library) and the Flink integration's. */
    private static final String[] SHIPPED_BY_EVERY_JOB = {"durablejournal.test.jar", "durablejournal.flink.test.jar"};

    private final String moduleJar;
    private final Class<?>[] agentClasses;

    @TempDir
    protected Path tmp;

    /**
     * A job jar as a user ships it: the core's and the Flink integration's jars, {@code moduleJar}
     * (a {@link JobJar} system property naming a jar the build made) and {@code agentClasses}.
     */
    protected UserCodeLoaderJobsTest(String moduleJar, Class<?>... agentClasses) {
        this.moduleJar = moduleJar;
        this.agentClasses = agentClasses;
    }

    /**
     * Runs job number {@code job} (its own work directory under {@link #tmp}) with {@code conf} on
     * {@code jobs}, checks it recovered exactly once, and returns the class loaders ({@link
     * UserCodeLoaders#describe}d) its agent's classes came from.
     */
    protected abstract Set<String> runAndCheck(int job, JobEnvironments jobs) throws Exception;

    /** Environments whose jobs run on the test's cluster with the job jar shipped. */
    public static final class JobEnvironments {
        private final MiniCluster cluster;
        private final Path jobJar;

        JobEnvironments(MiniCluster cluster, Path jobJar) {
            this.cluster = cluster;
            this.jobJar = jobJar;
        }

        /** An environment at {@code parallelism} with {@code conf}: each job it runs gets a new loader. */
        public TestStreamEnvironment environment(Configuration conf, int parallelism) {
            return UserCodeLoaders.environment(cluster, conf, parallelism, jobJar);
        }
    }

    @Test
    public void jobsInFreshUserCodeClassLoadersLoadTheLibraryAndReplayTheirJournals() throws Exception {
        String[] jars = Arrays.copyOf(SHIPPED_BY_EVERY_JOB, SHIPPED_BY_EVERY_JOB.length + 1);
        jars[SHIPPED_BY_EVERY_JOB.length] = moduleJar;
        Path jobJar = JobJar.build(tmp.resolve("job.jar"), jars, agentClasses);
        List<Set<String>> loadersPerJob = new ArrayList<>();
        try (MiniCluster cluster = UserCodeLoaders.startedCluster(4)) {
            JobEnvironments jobs = new JobEnvironments(cluster, jobJar);
            for (int job = 0; job < JOBS; job++) {
                long started = System.nanoTime();
                loadersPerJob.add(runAndCheck(job, jobs));
                System.out.println("[timing] job " + job + " in a user-code class loader: "
                        + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
            }
        }
        UserCodeLoaders.assertOnePerJob(loadersPerJob);
    }
}
