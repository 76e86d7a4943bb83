package io.durablejournal.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * <p>A module's subclass builds its jar and runs and checks one job; its class-level
 * {@code @Timeout} bounds the test.
 */
public abstract class UserCodeLoaderJobsTest {
    private static final int JOBS = 2;

    @TempDir
    protected Path tmp;

    /** The job jar the module ships, built at {@code jar}: the jars a user ships and the agent's classes. */
    protected abstract Path buildJobJar(Path jar) throws Exception;

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
        Path jobJar = buildJobJar(tmp.resolve("job.jar"));
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
