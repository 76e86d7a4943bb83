package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.durablejournal.LoaderLeaks;
import io.durablejournal.flinkagents.demo.AgentJob;
import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Flink Agents job jar carrying the adapter (its jar, the Flink integration's, the core's, Flink
 * Agents and their own Jackson) over Flink in the cluster's {@code lib/}, resubmitted
 * {@value LoaderLeaks#ROUNDS} times on one JVM: every class loader is collected with its copy of
 * the native library, and RSS stays flat ({@link LoaderLeaks}).
 */
class AgentsLoaderLeakTest {
    /**
     * What the job jar carries besides our jars: Flink Agents (and its YAML) and Jackson. Flink
     * Agents 0.3.1 in {@code lib/} would keep every job's loader itself, with or without us: its
     * {@code ActionStateSerde} holds a static Jackson mapper and Kryo serializer, which keep the
     * classes of the events they wrote (docs/cluster-jars.md).
     */
    private static final String[] JOB_JAR_DEPENDENCIES = {"flink-agents-", "jackson-", "snakeyaml-"};

    @TempDir
    Path tmp;

    @Test
    void everyClassLoaderOverTheAdaptersJarIsCollectedWithItsLibrary() throws Exception {
        Path coreJar = Paths.get(System.getProperty("durablejournal.test.jar"));
        List<Path> jars = new ArrayList<>();
        for (String property : new String[] {"durablejournal.flinkagents.test.jar", "durablejournal.flink.test.jar", "durablejournal.test.jar"}) {
            jars.add(Paths.get(System.getProperty(property)));
        }
        List<Path> jobDependencies = LoaderLeaks.classPathJars(JOB_JAR_DEPENDENCIES);
        jars.addAll(jobDependencies);
        jars.add(LoaderLeaks.locationOf(AgentsLoaderRound.class));
        jars.add(LoaderLeaks.locationOf(AgentJob.class));
        // Flink's lib/: Flink and what it brings, none of this build's outputs.
        Path repository = coreJar.getParent().getParent().getParent();
        List<Path> lib = new ArrayList<>();
        for (String element : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Paths.get(element).toAbsolutePath();
            if (element.endsWith(".jar") && !path.startsWith(repository) && !jobDependencies.contains(path)) {
                lib.add(path);
            }
        }
        String answer = LoaderLeaks.assertNothingLeftBehind(AgentsLoaderRound.class.getName(), jars, lib, tmp);
        assertEquals("replayed=true \"hello\"", answer);
    }
}
