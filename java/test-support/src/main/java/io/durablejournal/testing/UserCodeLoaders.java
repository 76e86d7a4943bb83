package io.durablejournal.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;

/**
 * Jobs that run in user-code class loaders, as on a Flink cluster: a MiniCluster that a test
 * submits job jars to ({@link JobJar}), and the class loaders the jobs' classes came from. A job
 * restart brings a new loader, which must load the native library again.
 */
public final class UserCodeLoaders {
    private UserCodeLoaders() {}

    /** A started MiniCluster of one task manager with {@code slots} slots; the caller closes it. */
    public static MiniCluster startedCluster(int slots) throws Exception {
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(slots)
                .setConfiguration(new Configuration())
                .build());
        cluster.start();
        return cluster;
    }

    /** An environment whose jobs run on {@code cluster} with {@code jobJar} shipped: loaded child-first, in a loader per job. */
    public static TestStreamEnvironment environment(MiniCluster cluster, Configuration conf, int parallelism, Path jobJar) {
        return new TestStreamEnvironment(cluster, conf, parallelism,
                Collections.singletonList(new org.apache.flink.core.fs.Path(jobJar.toUri())), Collections.emptyList());
    }

    /** A class loader as {@code <identity>:<class>}. */
    public static String describe(ClassLoader loader) {
        return System.identityHashCode(loader) + ":" + loader.getClass().getName();
    }

    /** Every loader of a job ({@link #describe}d) is Flink's child-first one for its jar, none the test's {@code own}. */
    public static void assertChildFirst(Set<String> loaders, ClassLoader own) {
        assertFalse(loaders.contains(describe(own)), "the job ran in a user-code class loader, not the test's: " + loaders);
        for (String loader : loaders) {
            assertTrue(loader.contains("ChildFirst"), "loaded child-first from the job jar: " + loader);
        }
    }

    /** No two jobs shared a loader: each got a class loader of its own. */
    public static void assertOnePerJob(List<Set<String>> loadersPerJob) {
        System.out.println("[loaders] per job: " + loadersPerJob);
        Set<String> shared = new HashSet<>(loadersPerJob.get(0));
        for (Set<String> loaders : loadersPerJob.subList(1, loadersPerJob.size())) {
            shared.retainAll(loaders);
        }
        assertEquals(Collections.emptySet(), shared, "the second job got a class loader of its own: " + loadersPerJob);
    }
}
