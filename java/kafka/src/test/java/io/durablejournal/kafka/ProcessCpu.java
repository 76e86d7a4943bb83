package io.durablejournal.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;

/** CPU time of a process on Linux (/proc/<pid>/stat), for the benchmark's CPU per call. */
final class ProcessCpu {
    /** Clock ticks per second of /proc's times; 100 on every Linux this runs on. */
    private static final long TICKS_PER_SECOND = 100;

    private ProcessCpu() {}

    /** User + system CPU time of process {@code pid} so far, or -1 when /proc cannot tell. */
    static long nanos(long pid) {
        try {
            String stat = new String(Files.readAllBytes(Paths.get("/proc/" + pid + "/stat")));
            // Fields after the command name (which may hold spaces) start after its closing parenthesis.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return ticks * 1_000_000_000L / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** This JVM's CPU time so far. */
    static long self() {
        return nanos(ProcessHandle.current().pid());
    }
}
