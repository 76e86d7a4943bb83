package io.durablejournal.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Flink standalone session cluster as separate processes, as Flink's start scripts run one: a
 * JobManager ({@code StandaloneSessionClusterEntrypoint}) and TaskManagers ({@code
 * TaskManagerRunner}), each its own {@code java} on the classpath the build resolves (system
 * property {@code durablejournal.cluster.classpath}), with the JVM memory flags Flink's {@code
 * BashJavaUtils} derives from the configuration. Each process logs to its own file under the
 * cluster's directory and writes any crash file ({@code hs_err_pid*.log}) there.
 *
 * <p>{@link #close} kills every process it started (SIGKILL) and waits for each to be gone; a
 * shutdown hook does the same if the test JVM exits first, so no process outlives the test.
 */
final class FlinkCluster implements AutoCloseable {
    private static final String JOB_MANAGER = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    private static final String TASK_MANAGER = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    private static final String BASH_JAVA_UTILS = "org.apache.flink.runtime.util.bash.BashJavaUtils";
    private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";
    /** What Flink's distribution passes on Java 17 (its config.yaml's env.java.opts.all). */
    private static final List<String> JAVA_17_OPTIONS = Arrays.asList(
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    final Path dir;
    final FlinkRest rest;
    private final ClusterConfig config;
    private final String classpath;
    private final String java;
    private final Map<String, Process> processes = new ConcurrentHashMap<>();
    private final Thread killer = new Thread(this::killAll, "flink-cluster-killer");
    /** BashJavaUtils' JVM options and dynamic properties for a TaskManager: the same for each. */
    private List<String> taskManagerJvmOptions;
    private List<String> taskManagerProperties;
    private int taskManagers;

    private FlinkCluster(Path dir) throws IOException {
        this.dir = dir;
        this.config = ClusterConfig.write(dir);
        this.classpath = System.getProperty("durablejournal.cluster.classpath");
        if (classpath == null || classpath.isEmpty()) {
            throw new IllegalStateException("the build passes the cluster's classpath as durablejournal.cluster.classpath");
        }
        this.java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        this.rest = new FlinkRest(config.restPort);
        Runtime.getRuntime().addShutdownHook(killer);
    }

    /** Starts a JobManager and {@code taskManagers} TaskManagers, and waits until all are registered. */
    static FlinkCluster start(Path dir, int taskManagers, Duration timeout) throws Exception {
        FlinkCluster cluster = new FlinkCluster(dir);
        try {
            cluster.startJobManager();
            for (int i = 0; i < taskManagers; i++) {
                cluster.startTaskManager();
            }
            cluster.rest.awaitTaskManagers(taskManagers, timeout);
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void startJobManager() throws Exception {
        List<List<String>> parameters = resourceParameters("GET_JM_RESOURCE_PARAMS");
        List<String> args = new ArrayList<>(Arrays.asList("--configDir", config.dir.toString()));
        args.addAll(parameters.get(1));
        launch("jobmanager", JOB_MANAGER, parameters.get(0), args);
    }

    /** Starts one more TaskManager, named {@code taskmanager-<n>}; returns its name. */
    String startTaskManager() throws Exception {
        if (taskManagerJvmOptions == null) {
            List<List<String>> parameters = resourceParameters("GET_TM_RESOURCE_PARAMS");
            taskManagerJvmOptions = parameters.get(0);
            taskManagerProperties = parameters.get(1);
        }
        String name = "taskmanager-" + taskManagers++;
        List<String> args = new ArrayList<>(Arrays.asList("--configDir", config.dir.toString(),
                "-D", "taskmanager.resource-id=" + name));
        args.addAll(taskManagerProperties);
        List<String> jvm = new ArrayList<>(taskManagerJvmOptions);
        // The whole heap resident from the start (Flink sets -Xms to -Xmx): RSS then grows only with
        // what is not the heap, such as a native library or a class loader's metaspace kept alive.
        jvm.add("-XX:+AlwaysPreTouch");
        launch(name, TASK_MANAGER, jvm, args);
        return name;
    }

    /** The process id of a process this cluster started. */
    long pid(String name) {
        return process(name).pid();
    }

    /** The names of the processes started and still alive, TaskManagers only. */
    List<String> liveTaskManagers() {
        return processes.entrySet().stream()
                .filter(e -> e.getKey().startsWith("taskmanager-") && e.getValue().isAlive())
                .map(Map.Entry::getKey).sorted().collect(Collectors.toList());
    }

    /** The name of the process with id {@code pid}, which this cluster must have started. */
    String nameOf(long pid) {
        return processes.entrySet().stream().filter(e -> e.getValue().pid() == pid).map(Map.Entry::getKey).findFirst()
                .orElseThrow(() -> new AssertionError("process " + pid + " is none this cluster started: " + processes.keySet()));
    }

    /** SIGKILLs the process (as a machine dies: no shutdown hook, no cleanup) and waits until it is gone. */
    void kill(String name) throws InterruptedException {
        Process process = process(name);
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " is still alive 30 s after SIGKILL");
        }
    }

    /** The process's log file ({@code -Dlog.file}). */
    Path logFile(String name) {
        return dir.resolve("log").resolve(name + ".log");
    }

    /** Every log file of the cluster's processes (the live and the killed ones). */
    List<Path> logFiles() {
        return processes.keySet().stream().sorted().map(this::logFile).collect(Collectors.toList());
    }

    /** The JVM crash files ({@code hs_err_pid*.log}) any process of the cluster wrote. */
    List<Path> crashFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve("log"))) {
            return files.filter(f -> f.getFileName().toString().startsWith("hs_err")).collect(Collectors.toList());
        }
    }

    private Process process(String name) {
        Process process = processes.get(name);
        if (process == null) {
            throw new IllegalArgumentException("no process " + name + " in " + processes.keySet());
        }
        return process;
    }

    private void launch(String name, String mainClass, List<String> jvmOptions, List<String> args) throws IOException {
        Path log = Files.createDirectories(dir.resolve("log"));
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions);
        command.addAll(JAVA_17_OPTIONS);
        command.add("-XX:ErrorFile=" + log.resolve("hs_err_pid%p.log"));
        command.add("-Dlog.file=" + logFile(name));
        command.add("-Dlog4j.configurationFile=" + config.dir.resolve("log4j.properties").toUri());
        command.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp").resolve(name)));
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.resolve(name + ".out").toFile())
                .start();
        processes.put(name, process);
    }

    /**
     * BashJavaUtils' answer, each line split at spaces: the JVM options, then the dynamic
     * properties ({@code -D key=value ...}, arguments as the entry points take them).
     */
    private List<List<String>> resourceParameters(String command) throws Exception {
        Process process = new ProcessBuilder(java, "-cp", classpath, BASH_JAVA_UTILS, command, "--configDir", config.dir.toString())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("BashJavaUtils " + command + " failed:\n" + output);
        }
        List<String> results = output.lines().filter(l -> l.startsWith(RESULT_PREFIX))
                .map(l -> l.substring(RESULT_PREFIX.length()).trim()).collect(Collectors.toList());
        if (results.size() < 2) {
            throw new IllegalStateException("BashJavaUtils " + command + " gave no JVM options and dynamic properties:\n" + output);
        }
        return results.stream().limit(2)
                .map(line -> Arrays.stream(line.split("\\s+")).filter(s -> !s.isEmpty()).collect(Collectors.toList()))
                .collect(Collectors.toList());
    }

    private void killAll() {
        for (Process process : processes.values()) {
            process.destroyForcibly();
        }
        for (Process process : processes.values()) {
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or has run: it kills the same processes.
        }
    }
}
