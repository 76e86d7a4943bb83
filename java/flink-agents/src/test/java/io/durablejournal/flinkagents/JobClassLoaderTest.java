package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.flinkagents.demo.SideEffects;
import io.durablejournal.flinkagents.demo.SupportAgent;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flink Agents job as a cluster runs it: a job jar with the core (and its native library),
 * this adapter and the agent, loaded by a user-code class loader of its own (child-first), which
 * must load the native library again (a JVM refuses one library file from two class loaders).
 * Two jobs, one after the other, on one MiniCluster; each crashes mid-action after a checkpoint
 * and recovers through its journal. Flink Agents itself comes from the cluster's class path, as
 * from a Flink distribution's {@code lib/}.
 */
class JobClassLoaderTest {
    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void jobsInFreshUserCodeClassLoadersReplayTheirJournals() throws Exception {
        Path jobJar = buildJobJar(tmp.resolve("job.jar"));
        String testLoader = System.identityHashCode(SupportAgent.class.getClassLoader()) + ":"
                + SupportAgent.class.getClassLoader().getClass().getName();
        MiniClusterConfiguration config = new MiniClusterConfiguration.Builder()
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(4)
                .setConfiguration(new Configuration())
                .build();
        List<Set<String>> loadersPerJob = new ArrayList<>();
        try (MiniCluster cluster = new MiniCluster(config)) {
            cluster.start();
            for (int job = 0; job < 2; job++) {
                AgentJob.Settings settings = new AgentJob.Settings();
                settings.workDir = tmp.resolve("job-" + job);
                TestStreamEnvironment env = new TestStreamEnvironment(cluster, AgentJob.flinkConfiguration(Duration.ofMillis(100)),
                        settings.parallelism, Collections.singletonList(new org.apache.flink.core.fs.Path(jobJar.toUri())),
                        Collections.emptyList());
                AgentJob.Outcome outcome = AgentJob.run(env, settings);
                System.out.println("[timing] job " + job + " in a user-code class loader: " + outcome.wallMillis + " ms");

                assertTrue(outcome.crashed);
                assertEquals(AgentJob.expectedAnswers(settings.requests), outcome.answers);
                assertEquals(0, outcome.duplicateSideEffects(), "no side effect ran twice: " + outcome.sideEffects);
                assertEquals(1, outcome.callsReplayed());
                assertFalse(outcome.agentLoaders.contains(testLoader), "the agent ran from the job jar: " + outcome.agentLoaders);
                for (String loader : outcome.agentLoaders) {
                    assertTrue(loader.contains("ChildFirst"), "loaded child-first from the job jar: " + loader);
                }
                loadersPerJob.add(outcome.agentLoaders);
            }
        }
        System.out.println("[loaders] per job: " + loadersPerJob);
        Set<String> shared = new HashSet<>(loadersPerJob.get(0));
        shared.retainAll(loadersPerJob.get(1));
        assertEquals(Collections.emptySet(), shared, "the second job got a class loader of its own: " + loadersPerJob);
    }

    /**
     * The core jar, the Flink integration's jar and this adapter's jar, plus the agent's classes,
     * as a user would ship a job. The demo's staging, source and request type stay out: the job's loader finds them on the
     * test's class path, where the test reaches them too.
     */
    private static Path buildJobJar(Path target) throws Exception {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(target))) {
            Set<String> written = new HashSet<>();
            copyJar(System.getProperty("durablejournal.test.jar"), out, written);
            copyJar(System.getProperty("durablejournal.flink.test.jar"), out, written);
            copyJar(System.getProperty("durablejournal.flinkagents.test.jar"), out, written);
            for (Class<?> shipped : new Class<?>[] {SupportAgent.class, SideEffects.class}) {
                Path classes = classesDir(shipped);
                String packageDir = shipped.getPackage().getName().replace('.', '/');
                try (Stream<Path> files = Files.list(classes.resolve(packageDir))) {
                    for (Path file : (Iterable<Path>) files::iterator) {
                        String name = file.getFileName().toString();
                        if (name.startsWith(shipped.getSimpleName()) && name.endsWith(".class")
                                && written.add(packageDir + "/" + name)) {
                            out.putNextEntry(new JarEntry(packageDir + "/" + name));
                            Files.copy(file, out);
                            out.closeEntry();
                        }
                    }
                }
            }
        }
        return target;
    }

    private static void copyJar(String jar, JarOutputStream out, Set<String> written) throws IOException {
        assertTrue(jar != null && new File(jar).isFile(), "the build passes the jar: " + jar);
        try (JarFile source = new JarFile(jar)) {
            Enumeration<JarEntry> entries = source.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                if (!written.add(entry.getName())) {
                    continue;
                }
                out.putNextEntry(new JarEntry(entry.getName()));
                try (InputStream in = source.getInputStream(entry)) {
                    in.transferTo(out);
                }
                out.closeEntry();
            }
        }
    }

    private static Path classesDir(Class<?> type) throws URISyntaxException {
        return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
