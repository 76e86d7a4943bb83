package io.durablejournal.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A standalone cluster's {@code conf/} directory: {@code config.yaml} (every address 127.0.0.1,
 * free ports, small heaps, fast heartbeats so a killed TaskManager is declared lost in seconds, a
 * fixed-delay restart strategy, checkpoints under the cluster's directory) and the Log4j
 * configuration each process logs to its own file with.
 */
final class ClusterConfig {
    final Path dir;
    final int restPort;

    private ClusterConfig(Path dir, int restPort) {
        this.dir = dir;
        this.restPort = restPort;
    }

    static ClusterConfig write(Path clusterDir) throws IOException {
        Path conf = Files.createDirectories(clusterDir.resolve("conf"));
        int restPort = freePort();
        Map<String, String> config = new LinkedHashMap<>();
        config.put("jobmanager.rpc.address", "127.0.0.1");
        config.put("jobmanager.rpc.port", Integer.toString(freePort()));
        config.put("jobmanager.bind-host", "127.0.0.1");
        config.put("taskmanager.bind-host", "127.0.0.1");
        config.put("taskmanager.host", "127.0.0.1");
        config.put("rest.address", "127.0.0.1");
        config.put("rest.bind-address", "127.0.0.1");
        config.put("rest.port", Integer.toString(restPort));
        config.put("blob.server.port", "0");
        config.put("taskmanager.rpc.port", "0");
        config.put("taskmanager.data.port", "0");
        config.put("jobmanager.memory.heap.size", "256m");
        config.put("jobmanager.memory.off-heap.size", "64m");
        config.put("jobmanager.memory.jvm-metaspace.size", "192m");
        config.put("jobmanager.memory.jvm-overhead.min", "64m");
        config.put("taskmanager.memory.task.heap.size", "192m");
        config.put("taskmanager.memory.framework.heap.size", "64m");
        config.put("taskmanager.memory.managed.size", "16m");
        config.put("taskmanager.memory.network.min", "32m");
        config.put("taskmanager.memory.network.max", "32m");
        config.put("taskmanager.memory.framework.off-heap.size", "64m");
        config.put("taskmanager.memory.jvm-metaspace.size", "256m");
        config.put("taskmanager.memory.jvm-overhead.min", "64m");
        config.put("taskmanager.numberOfTaskSlots", "2");
        config.put("parallelism.default", "2");
        // A job's slots spread over the TaskManagers: each of them runs (and is measured running) its tasks.
        config.put("taskmanager.load-balance.mode", "SLOTS");
        config.put("heartbeat.interval", "1000");
        config.put("heartbeat.timeout", "5000");
        config.put("restart-strategy.type", "fixed-delay");
        config.put("restart-strategy.fixed-delay.attempts", "30");
        config.put("restart-strategy.fixed-delay.delay", "500 ms");
        config.put("execution.checkpointing.dir", clusterDir.resolve("checkpoints").toUri().toString());
        config.put("io.tmp.dirs", Files.createDirectories(clusterDir.resolve("tmp")).toString());
        config.put("web.upload.dir", Files.createDirectories(clusterDir.resolve("upload")).toString());
        config.put("web.tmpdir", Files.createDirectories(clusterDir.resolve("web")).toString());
        StringBuilder yaml = new StringBuilder();
        config.forEach((key, value) -> yaml.append(key).append(": ").append(quoted(value)).append('\n'));
        Files.write(conf.resolve("config.yaml"), yaml.toString().getBytes(StandardCharsets.UTF_8));
        Files.write(conf.resolve("log4j.properties"), String.join("\n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.file.ref = MainAppender",
                "appender.main.name = MainAppender",
                "appender.main.type = File",
                "appender.main.append = true",
                "appender.main.fileName = ${sys:log.file}",
                "appender.main.layout.type = PatternLayout",
                "appender.main.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c - %m%n",
                "").getBytes(StandardCharsets.UTF_8));
        return new ClusterConfig(conf, restPort);
    }

    private static String quoted(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    /** A port free now on 127.0.0.1 (the JobManager binds it a moment later). */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
